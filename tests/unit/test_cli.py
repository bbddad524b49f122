"""`python -m andrea_viz` as a person runs it: real arguments, real exit codes and output, run in this process through
`cli.main(argv)` (the `cli` fixture of tests/conftest.py); the module's own entry, `python -m andrea_viz`, is run as
a process once, below."""

import json
import subprocess
import sys


def test_info_json_keys_and_values(cli):
    r = cli("info", "andrea-120m-init", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert set(d) == {"name", "format", "vocab_size", "d_model", "context", "position_kind", "output", "params",
                      "tokenizer", "notes", "warnings", "total_params", "layers", "init_std", "position_width",
                      "position_reason", "position_offset", "block_1_input", "model_class", "shared_table"}
    assert (d["vocab_size"], d["d_model"], d["context"]) == (8_449, 768, 1024)
    assert d["block_1_input"] == r"x_t = \mathrm{tok}[id_t] + \mathrm{pos}[t]" and d["position_width"] == 768
    assert d["params"] == {"token": 6_488_832, "position": 786_432, "output": 6_488_832}
    assert d["output"] == "untied" and d["position_kind"] == "learned"
    # the lesson's 120M model: 12 blocks of 7,084,800 plus 2 × 6,488,832 + 786,432 + the final norm's 1,536
    assert d["total_params"] == 98_698_752 and d["layers"] == 12
    assert abs(d["init_std"] - 768 ** -0.5) < 1e-12


def test_info_json_counts_the_whole_default_model(cli):
    d = json.loads(cli("info", "minilm-l6", "--json").stdout)
    assert d["total_params"] == 22_713_216 and d["layers"] == 6  # all-MiniLM-L6-v2's published size


def test_info_text_for_the_default_model(cli):
    r = cli("info", "minilm-l6")
    assert r.returncode == 0 and "30,522 × 384" in r.stdout


def test_neighbors_json_best_first(cli):
    r = cli("neighbors", "minilm-l6", "cat", "-k", "10", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["query"] == "cat" and d["query_ids"] == [4937]
    scores = [n["score"] for n in d["neighbors"]]
    assert scores == sorted(scores, reverse=True) and len(scores) == 10
    assert {"dog", "kitten"} <= {n["token"] for n in d["neighbors"]}
    assert set(d["neighbors"][0]) == {"id", "token", "score"}


def test_euclidean_neighbours_are_nearest_first(cli):
    d = json.loads(cli("neighbors", "minilm-l6", "dog", "--metric", "euclidean", "--json", "-k", "5").stdout)
    scores = [n["score"] for n in d["neighbors"]]
    assert scores == sorted(scores)


def test_bad_input_exits_2_with_one_line_and_no_traceback(cli):
    for args in (("info", "no-such-model"), ("neighbors", "minilm-l6", "#99999999"), ("neighbors", "minilm-l6"),
                 ("neighbors", "minilm-l6", "cat", "--metric", "cos")):
        r = cli(*args)
        assert r.returncode == 2, args
        assert "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_the_module_run_as_a_process_exits_with_mains_status_and_one_line():
    """A real process, on purpose: what the in-process tests cannot see, that ``python -m andrea_viz`` (__main__.py)
    hands main's status to the shell and that a refusal prints one line and no traceback."""
    r = subprocess.run([sys.executable, "-m", "andrea_viz", "info", "no-such-model"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "no-such-model" in r.stderr, r.stderr
