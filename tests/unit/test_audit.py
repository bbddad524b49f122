"""The fine-tune audit on pairs made here by transformers' own code (tiny GPT-2 and Llama models saved with
save_pretrained, with a WordLevel tokenizer wrapped in PreTrainedTokenizerFast): each kind of vocabulary surgery is
found, each added row's init is named, and clean pairs give every list empty."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import transformers

from andrea_viz.audit import AUDIT_KEYS, audit_checkpoints, audit_report, classify_init, table_stats
from andrea_viz.errors import CheckpointError
from tests.audit_pairs import tokenizer as _tokenizer  # one maker of the audit tests' word-level tokenizers

WORDS = ["[UNK]", "[PAD]", *(f"[unused{i}]" for i in range(5)), "cat", "dog", "kat", "hond", "the", "a", "sat", "on",
         "mat", "ran", "home", "big", "small", "red", "blue", *(f"w{i}" for i in range(44))]  # 66 tokens
D = 16
TEXT = "the cat sat on the mat a dog ran home the big red cat the small blue dog"


def _model(kind: str, tied: bool = True, seed: int = 0):
    torch.manual_seed(seed)
    if kind == "gpt2":
        cfg = transformers.GPT2Config(vocab_size=len(WORDS), n_embd=D, n_layer=1, n_head=2, n_positions=32,
                                      tie_word_embeddings=tied)
    else:
        cfg = transformers.LlamaConfig(vocab_size=len(WORDS), hidden_size=D, intermediate_size=32, num_hidden_layers=1,
                                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                                       tie_word_embeddings=tied)
    return transformers.AutoModelForCausalLM.from_config(cfg)


def _save(model, tok, folder: Path) -> str:
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return str(folder)


def _train(model, tok, steps: int = 3, text: str = TEXT) -> None:
    ids = torch.tensor([tok(text)["input_ids"]])
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)  # no weight decay: rows no gradient reaches stay exact
    for _ in range(steps):
        opt.zero_grad()
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()


def _edit_config(folder: str, **changes) -> None:
    p = Path(folder) / "config.json"
    cfg = json.loads(p.read_text())
    cfg.update(changes)
    p.write_text(json.dumps(cfg))


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    """Every pair, made once: name -> (base, tuned, step0 or None)."""
    root = tmp_path_factory.mktemp("audit")
    tok = _tokenizer(WORDS)
    out: dict[str, tuple[str, str, str | None]] = {}
    base = _save(_model("gpt2"), tok, root / "base")
    llama_base = _save(_model("llama", tied=False, seed=1), tok, root / "llama_base")
    llama_tied = _save(_model("llama", tied=True, seed=2), tok, root / "llama_tied")

    def tuned(name: str, build, base_folder: str = base) -> None:
        model = transformers.AutoModelForCausalLM.from_pretrained(base_folder)
        t = build(model) or tok
        out[name] = (base_folder, _save(model, t, root / name), None)

    out["clean_copy"] = (base, _save(_model("gpt2"), tok, root / "clean_copy"), None)
    tuned("clean_trained", lambda m: _train(m, tok))
    tuned("clean_llama_trained", lambda m: _train(m, tok), llama_base)

    new = ["<tool>", "</tool>", "<sep>", "<end>"]

    def resize(mean: bool, extra=None):
        def build(m):
            t = _tokenizer(WORDS, new)
            m.resize_token_embeddings(len(t), mean_resizing=mean)
            if extra is not None:
                extra(m, t)
            return t
        return build

    tuned("mvn", resize(True))
    model = transformers.AutoModelForCausalLM.from_pretrained(base)
    model.resize_token_embeddings(len(WORDS) + 4, mean_resizing=True)
    model.save_pretrained(root / "ids_only")  # config.json and weights alone: audited by ids
    out["ids_only"] = (base, str(root / "ids_only"), None)
    tuned("normal", resize(False))

    def zeros(m, t):
        with torch.no_grad():
            m.get_input_embeddings().weight[len(WORDS):] = 0

    def copy(m, t):
        with torch.no_grad():
            w = m.get_input_embeddings().weight
            w[len(WORDS):] = w[7]  # "cat"

    tuned("zeros", resize(True, zeros))
    tuned("copy", resize(True, copy))

    def described(m):
        t = _tokenizer(WORDS, ["cat dog"])
        m.resize_token_embeddings(len(t), mean_resizing=False)
        with torch.no_grad():
            w = m.get_input_embeddings().weight
            w[len(WORDS)] = (w[7] + w[8]) / 2
        return t

    tuned("description_mean", described)

    # add tokens, resize, save the step-0 snapshot, then train a few steps (Llama, untied: the head grows too)
    model = transformers.AutoModelForCausalLM.from_pretrained(llama_base)
    t = _tokenizer(WORDS, new)
    model.resize_token_embeddings(len(t), mean_resizing=True)
    step0 = _save(model, t, root / "trained_step0")
    _train(model, t, text=TEXT + " <tool> <sep> <end> </tool> the cat")  # the last token gets no gradient
    out["trained_new_rows"] = (llama_base, _save(model, t, root / "trained_new_rows"), step0)

    def reserved(m):
        words = list(WORDS)
        words[3] = "<think>"  # [unused1] becomes a real token; its row stays as it was (a LoRA-style fine-tune)
        return _tokenizer(words)

    tuned("reserved", reserved)

    def renamed(m):
        words = list(WORDS)
        words[7] = "feline"  # "cat"
        return _tokenizer(words)

    tuned("renamed", renamed)

    def padded(m):
        t = _tokenizer(WORDS, ["<tool>"])
        m.resize_token_embeddings(len(t), pad_to_multiple_of=32, mean_resizing=True)
        return t

    tuned("padding", padded)
    tuned("tokenizer_longer", lambda m: _tokenizer(WORDS, ["<x>", "<y>", "<z>"]))
    tuned("removed", lambda m: m.resize_token_embeddings(60) and None)

    # tie mismatches: the config edited after save_pretrained
    model = transformers.AutoModelForCausalLM.from_pretrained(llama_base)
    folder = _save(model, tok, root / "config_tied_bytes_untied")
    _edit_config(folder, tie_word_embeddings=True)
    out["config_tied_bytes_untied"] = (llama_base, folder, None)
    model = transformers.AutoModelForCausalLM.from_pretrained(llama_tied)
    folder = _save(model, tok, root / "config_untied_bytes_tied")
    _edit_config(folder, tie_word_embeddings=False)
    out["config_untied_bytes_tied"] = (llama_tied, folder, None)
    out["clean_llama_tied_copy"] = (llama_tied, _save(_model("llama", tied=True, seed=2), tok, root / "tied_copy"), None)
    return out


def _audit(pairs, name: str) -> dict:
    base, tuned, step0 = pairs[name]
    return audit_checkpoints(base, tuned, init=step0)


def _findings(result: dict) -> dict[str, int]:
    return {k: len(v) for k, v in result.items() if k != "tie" and v}


@pytest.mark.parametrize("name", ["clean_copy", "clean_trained", "clean_llama_trained", "clean_llama_tied_copy"])
def test_clean_pairs_have_no_finding_and_a_consistent_tie_state(pairs, name):
    r = _audit(pairs, name)
    assert tuple(r) == AUDIT_KEYS
    assert _findings(r) == {}
    assert r["tie"]["config"] == r["tie"]["bytes"]
    assert {r["tie"][k] for k in ("transformers", "vllm", "llama_cpp")} == {"keeps"}


@pytest.mark.parametrize(("name", "init"), [("mvn", "mvn"), ("normal", "normal"), ("zeros", "zeros"), ("copy", "copy"),
                                            ("description_mean", "description_mean")])
def test_each_init_method_of_resized_rows_is_named(pairs, name, init):
    r = _audit(pairs, name)
    rows = r["added_rows"]
    assert [x["id"] for x in rows] == list(range(len(WORDS), len(WORDS) + len(rows))) and rows
    assert {x["init"] for x in rows} == {init}, [(x["init"], str(x["evidence"])) for x in rows]
    assert all(x["moved"] is (False if init != "normal" else None) for x in rows)
    assert rows[0]["token"] in ("<tool>", "cat dog")
    assert _findings(r) == {"added_rows": len(rows)}
    if init == "copy":
        assert "#7" in str(rows[0]["evidence"])
    if init == "description_mean":
        assert "#7, #8" in str(rows[0]["evidence"])


def test_added_rows_trained_after_their_resize_are_moved_and_the_untied_head_grew(pairs):
    r = _audit(pairs, "trained_new_rows")
    assert [x["init"] for x in r["added_rows"]] == ["mvn"] * 4  # judged on the step-0 snapshot
    assert [x["moved"] for x in r["added_rows"]] == [True] * 4
    assert [x["token"] for x in r["added_rows"]] == ["<tool>", "</tool>", "<sep>", "<end>"]
    assert [x["id"] for x in r["added_output_rows"]] == [66, 67, 68, 69]
    assert all(x["init"] == "mvn" and x["moved"] is True for x in r["added_output_rows"])
    assert r["tie"]["config"] == r["tie"]["bytes"] == "untied"
    # the same pair without the step-0 snapshot: the trained rows fit no init, and whether they moved is unknown
    base, tuned, _ = pairs["trained_new_rows"]
    r = audit_checkpoints(base, tuned)
    assert {x["moved"] for x in r["added_rows"]} == {None}


def test_a_folder_of_config_and_weights_alone_is_audited_by_ids(pairs):
    r = _audit(pairs, "ids_only")
    assert [(x["id"], x["token"], x["init"], x["moved"]) for x in r["added_rows"]] == [
        (i, None, "mvn", False) for i in range(66, 70)]
    assert _findings(r) == {"added_rows": 4}


def slow_copy_source(row: np.ndarray, table: np.ndarray) -> int | None:
    """The first row of ``table`` equal to ``row``, one row at a time."""
    for j in range(table.shape[0]):
        if np.allclose(row, table[j], rtol=1e-5, atol=1e-12 + 1e-6 * np.median(np.linalg.norm(table, axis=1))
                       / np.sqrt(table.shape[1])):
            return j
    return None


def test_copy_detection_matches_a_row_by_row_reference():
    rng = np.random.default_rng(3)
    table = rng.normal(0, 0.02, (80, D)).astype(np.float32)
    s = table_stats(table, 0.02)
    for j in (0, 17, 79):
        method, why = classify_init(table[j].astype(np.float64), s)
        assert (method, str(why)) == ("copy", f"equal to base row #{slow_copy_source(table[j], table)}")
    near = table[5].astype(np.float64) + 1e-3
    assert slow_copy_source(near, table) is None and classify_init(near, s)[0] != "copy"


def test_mean_resizing_in_bf16_rounds_to_the_mean():
    rng = np.random.default_rng(0)
    table = rng.normal(0, 0.02, (64, D)).astype(np.float32)
    t = torch.from_numpy(table).to(torch.bfloat16)
    mean = t.float().mean(0).to(torch.bfloat16).float().numpy()
    s = table_stats(t.float().numpy().astype(np.float32), 0.02)
    s.narrow = True  # a bf16 table
    assert classify_init(mean, s)[0] == "mean"
    s32 = table_stats(table, 0.02)
    assert classify_init(table.astype(np.float64).mean(0), s32)[0] == "mean"
    assert classify_init(rng.normal(0, 0.02, D), s32)[0] == "normal"
    assert classify_init(rng.normal(0.5, 0.02, D), s32)[0] == "unknown"


def test_reserved_rows_reused_and_renamed_rows(pairs):
    r = _audit(pairs, "reserved")
    assert r["reserved_reused"] == [{"id": 3, "base_token": "[unused1]", "token": "<think>", "moved": False}]
    assert _findings(r) == {"reserved_reused": 1}
    r = _audit(pairs, "renamed")
    assert r["renamed_rows"] == [{"id": 7, "base_token": "cat", "token": "feline"}]
    assert _findings(r) == {"renamed_rows": 1}


def test_padding_rows_ids_without_row_and_removed_rows(pairs):
    r = _audit(pairs, "padding")
    assert [x["id"] for x in r["padding_rows"]] == list(range(67, 96))
    assert all(x["added"] for x in r["padding_rows"])
    assert len(r["added_rows"]) == 30 and r["added_rows"][0]["token"] == "<tool>" and r["added_rows"][1]["token"] is None
    r = _audit(pairs, "tokenizer_longer")
    assert r["ids_without_row"] == [{"id": 66, "token": "<x>"}, {"id": 67, "token": "<y>"}, {"id": 68, "token": "<z>"}]
    assert _findings(r) == {"ids_without_row": 3}
    r = _audit(pairs, "removed")
    assert r["removed_rows"] == [{"id": i, "token": f"w{i - 22}"} for i in range(60, 66)]
    assert _findings(r) == {"removed_rows": 6, "ids_without_row": 6}  # the tokenizer kept its 66 ids


def test_tie_state_by_config_and_by_bytes_and_what_each_loader_does(pairs):
    r = _audit(pairs, "config_tied_bytes_untied")
    assert r["tie"] == {"config": "tied", "bytes": "untied", "transformers": "warns", "vllm": "drops_head",
                        "llama_cpp": "keeps"}
    assert _findings(r) == {}
    # what the installed transformers really does with it: keeps the file's two different tables (and warns)
    from safetensors import safe_open

    folder = pairs["config_tied_bytes_untied"][1]
    m = transformers.AutoModelForCausalLM.from_pretrained(folder)
    with safe_open(str(Path(folder) / "model.safetensors"), framework="pt") as f:
        assert torch.equal(m.lm_head.weight, f.get_tensor("lm_head.weight"))
    assert not torch.equal(m.lm_head.weight, m.get_input_embeddings().weight)
    r = _audit(pairs, "config_untied_bytes_tied")
    assert r["tie"] == {"config": "untied", "bytes": "tied", "transformers": "warns", "vllm": "reties",
                        "llama_cpp": "reties"}
    m = transformers.AutoModelForCausalLM.from_pretrained(pairs["config_untied_bytes_tied"][1])
    assert not torch.equal(m.lm_head.weight, m.get_input_embeddings().weight)  # a new head, not the token table


def test_bad_pairs_get_one_sentence(pairs, tmp_path):
    base = pairs["mvn"][0]
    wide = _save(_model("gpt2").__class__(transformers.GPT2Config(vocab_size=66, n_embd=32, n_layer=1, n_head=2,
                                                                  n_positions=32)), _tokenizer(WORDS), tmp_path / "wide")
    with pytest.raises(CheckpointError, match="d = 16 and the tuned model d = 32"):
        audit_checkpoints(base, wide)
    other = _save(_model("gpt2"), _tokenizer([*(f"z{i}" for i in range(65)), "[UNK]"]), tmp_path / "other")
    with pytest.raises(CheckpointError, match="no id holds the same token in both tokenizers"):
        audit_checkpoints(base, other)
    claims = _save(_model("gpt2"), _tokenizer(WORDS), tmp_path / "claims")
    _edit_config(claims, vocab_size=80)
    with pytest.raises(CheckpointError, match="vocab_size = 80 but the token table has only 66 rows"):
        audit_checkpoints(base, claims)


def test_the_command_prints_one_json_object_and_exits_0_with_findings(cli, pairs):
    base, tuned, _ = pairs["reserved"]
    run = cli("audit", base, tuned, "--json")
    assert run.returncode == 0, run.stderr
    d = json.loads(run.stdout)
    assert tuple(d) == AUDIT_KEYS and d["reserved_reused"][0]["token"] == "<think>"
    run = cli("audit", base, tuned, "--lang", "nl")
    assert run.returncode == 0 and "gereserveerde rijen hergebruikt: 1" in run.stdout, run.stdout + run.stderr
    claims = Path(tuned).parent / "claims_more"
    if not claims.exists():
        _save(_model("gpt2"), _tokenizer(WORDS), claims)
        _edit_config(str(claims), vocab_size=80)
    run = cli("audit", base, str(claims), "--json")
    assert run.returncode == 2 and run.stdout == ""
    assert "config.json says vocab_size = 80 but the token table has only 66 rows" in run.stderr


def test_the_report_names_every_finding(pairs):
    lines = [str(m) for m in audit_report(_audit(pairs, "mvn"))]
    assert lines[0] == "rows added: 4"
    assert "init mvn" in lines[1] and "'<tool>'" in lines[1]
    assert lines[-1].startswith("tie state: config tied, bytes tied")
