"""The files real runs leave: nanoGPT's meta.pkl and llm.c's gpt2_tokenizer.bin, GPT-2's BPE files,
drift between two checkpoints, and timelines ordered by the step each file records."""

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

import andrea_viz
from andrea_viz.compare import drift
from andrea_viz.errors import CheckpointError, QueryError
from andrea_viz.geometry import neighbours
from andrea_viz.timeline import open_timeline
from tests.checkpoint_files import makers

SHAKESPEARE = "First Citizen:\nBefore we proceed any further, hear me speak.\n\nAll:\nSpeak, speak.\n\tWhat?\n"


def char_run(root: Path, dataset: str = "shakespeare_char") -> Path:
    """nanoGPT's layout: data/<dataset>/meta.pkl from prepare.py, and out-<dataset>/ckpt.pt from train.py."""
    meta = makers.nanogpt_char_prepare(root / "data" / dataset, SHAKESPEARE * 4)
    (root / "out").mkdir(parents=True)
    makers.nanogpt_ckpt(root / "out" / "ckpt.pt", vocab_size=meta["vocab_size"], dataset=dataset)
    return root / "out" / "ckpt.pt"


@pytest.fixture
def run(cli, monkeypatch):
    """``run(*args, cwd=None)``: ``python -m andrea_viz ARGS`` from ``cwd`` (in this process: the cli fixture)."""
    def from_folder(*args, cwd=None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        return cli(*args)

    return from_folder


# --- nanoGPT meta.pkl ---------------------------------------------------------------------------
def test_meta_pkl_is_found_where_sample_py_looks_and_characters_show_as_themselves(tmp_path):
    emb = andrea_viz.load(char_run(tmp_path))
    meta = pickle.loads((tmp_path / "data" / "shakespeare_char" / "meta.pkl").read_bytes())
    assert emb.tokenizer.vocab_size == meta["vocab_size"] == emb.vocab_size
    assert emb.tokenizer.lookup("speak") == [meta["stoi"][c] for c in "speak"]
    assert emb.token(meta["stoi"][" "]) == "␣" and emb.token(meta["stoi"]["\n"]) == "⏎"
    assert emb.token(meta["stoi"]["\t"]) == "⇥" and emb.token(meta["stoi"]["F"]) == "F"
    assert "where nanoGPT's sample.py looks" in emb.provenance.text()
    assert len(neighbours(emb, "e", k=3)[1]) == 3


def test_meta_pkl_beside_the_checkpoint_and_in_the_working_directory(run, tmp_path):
    ckpt = char_run(tmp_path / "a")
    (tmp_path / "a" / "data" / "shakespeare_char" / "meta.pkl").rename(ckpt.parent / "meta.pkl")
    beside = pickle.loads((ckpt.parent / "meta.pkl").read_bytes())
    assert andrea_viz.load(ckpt).tokenizer.lookup("a") == [beside["stoi"]["a"]]  # beside it
    ckpt2 = char_run(tmp_path / "b")
    work = tmp_path / "work"
    (work / "data" / "shakespeare_char").mkdir(parents=True)
    (tmp_path / "b" / "data" / "shakespeare_char" / "meta.pkl").rename(work / "data" / "shakespeare_char" / "meta.pkl")
    r = run("neighbors", ckpt2, "e", "-k", "3", "--json", cwd=work)  # found under the working directory
    assert r.returncode == 0, r.stderr
    there = pickle.loads((work / "data" / "shakespeare_char" / "meta.pkl").read_bytes())
    assert json.loads(r.stdout)["query_ids"] == [there["stoi"]["e"]]


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def test_a_meta_pkl_holding_a_reduce_is_refused_and_nothing_runs(run, tmp_path):
    ckpt = char_run(tmp_path)
    marker = tmp_path / "pwned"
    meta = tmp_path / "data" / "shakespeare_char" / "meta.pkl"
    meta.write_bytes(pickle.dumps({"vocab_size": 3, "itos": {0: "a"}, "x": Evil(str(marker))}))
    emb = andrea_viz.load(ckpt)  # the weights still open
    assert not marker.exists()
    assert "asks for the Python object pathlib" in emb.provenance.text() and emb.token(1) == "#1"
    r = run("info", ckpt, "--tokenizer", meta)
    assert r.returncode == 0 and "warning: the tokenizer could not be used" in r.stdout and not marker.exists()


@pytest.mark.parametrize("damage,message", [
    (lambda b: b[: len(b) // 2], "not a readable pickle"),
    (lambda b: pickle.dumps({"vocab_size": 99, "itos": {0: "a", 1: "b"}, "stoi": {"a": 0, "b": 1}}), "says vocab_size = 99"),
    (lambda b: pickle.dumps(["not", "a", "dict"]), "holds list"),
    (lambda b: pickle.dumps({"vocab_size": 500, "itos": {i: chr(0x4E00 + i) for i in range(500)}}), "belongs to another model"),
])
def test_a_damaged_meta_pkl_is_one_sentence_and_the_weights_still_open(tmp_path, damage, message):
    ckpt = char_run(tmp_path)
    meta = tmp_path / "data" / "shakespeare_char" / "meta.pkl"
    meta.write_bytes(damage(meta.read_bytes()))
    emb = andrea_viz.load(ckpt)
    assert message in emb.provenance.text() and emb.token(2) == "#2"
    with pytest.raises(QueryError, match="tokenizer could not be used"):
        neighbours(emb, "a")


# --- llm.c gpt2_tokenizer.bin -------------------------------------------------------------------
@pytest.mark.parametrize("version", [1, 2])
def test_llmc_tokenizer_beside_the_model_bin(tmp_path, version):
    tokens = makers.GPT2_LIKE_TOKENS
    makers.llmc_write_tokenizer(tokens, tmp_path / "gpt2_tokenizer.bin", version=version)
    makers.llmc_bin(tmp_path / "gpt2_124M.bin", V=len(tokens), Vp=272)
    emb = andrea_viz.load(tmp_path / "gpt2_124M.bin")
    tok = emb.tokenizer
    assert tok.vocab_size == len(tokens) and tok.eot_id == (len(tokens) - 1 if version == 2 else None)
    assert tok.lookup("cat") == [tokens.index(b"cat")]  # its exact token
    assert tok.lookup("dog") == [tokens.index(b" dog")]  # its " word" form
    assert emb.token(tokens.index(b" the")) == " the"  # the leading space kept
    assert emb.token(tokens.index(b"\xe7\x8c")) == "\\xe7\\x8c"  # a piece of a character, escaped
    assert tok.encode("the cat") == [ord("t"), ord("h"), ord("e"), tokens.index(b" cat")]
    assert emb.vocab_size == len(tokens)  # the padded rows (Vp) dropped


@pytest.mark.parametrize("damage,message", [
    (lambda b: b[:-3], "cut short|file ends first"),
    (lambda b: b[:8] + (10_000).to_bytes(4, "little") + b[12:], "declares 10,000 tokens but ends"),
    (lambda b: b + b"\x01x", "more bytes follow"),
])
def test_a_damaged_llmc_tokenizer_is_one_sentence_and_the_weights_still_open(tmp_path, damage, message):
    makers.llmc_write_tokenizer(makers.GPT2_LIKE_TOKENS, tmp_path / "gpt2_tokenizer.bin")
    (tmp_path / "gpt2_tokenizer.bin").write_bytes(damage((tmp_path / "gpt2_tokenizer.bin").read_bytes()))
    makers.llmc_bin(tmp_path / "m.bin", V=len(makers.GPT2_LIKE_TOKENS), Vp=272)
    emb = andrea_viz.load(tmp_path / "m.bin")
    import re

    assert any(re.search(message, str(w)) for w in emb.provenance.warnings), emb.provenance.warnings
    assert emb.token(5) == "#5"


# --- GPT-2 BPE ------------------------------------------------------------------------------------
def test_a_gpt2_vocabulary_without_a_tokenizer_file_says_so(tmp_path):
    for V in (50_257, 50_304):
        np.save(tmp_path / f"wte{V}.npy", np.zeros((V, 4), np.float32))
        emb = andrea_viz.load(tmp_path / f"wte{V}.npy")
        assert "GPT-2's vocabulary, which nanoGPT takes from tiktoken at run time" in emb.provenance.text()


def test_vocab_json_and_merges_txt_given_twice_on_the_command_line(run, tmp_path):
    vocab, merges, tok_json = makers.byte_level_bpe(tmp_path / "bpe")
    np.save(tmp_path / "t.npy", np.random.default_rng(0).standard_normal((300, 8)).astype(np.float32))
    r = run("neighbors", tmp_path / "t.npy", "cat", "--tokenizer", vocab, "--tokenizer", merges, "--json")
    assert r.returncode == 0, r.stderr
    ids = json.loads(r.stdout)["query_ids"]
    from tokenizers import Tokenizer

    assert ids == Tokenizer.from_file(str(tok_json)).encode("cat").ids and len(ids) == 1
    emb = andrea_viz.load(tmp_path / "t.npy", tokenizer=[merges, vocab])  # either order
    assert emb.tokenizer.lookup("cat") == ids and emb.token(ids[0]) == "cat"
    only = andrea_viz.load(tmp_path / "t.npy", tokenizer=[vocab])
    assert "give its merges.txt with it" in only.provenance.text()


# --- drift --------------------------------------------------------------------------------------
def test_drift_of_a_table_against_itself_and_a_rotated_copy(minilm):
    t = minilm.token_table[:3000]
    same = drift(t, t, align="none")
    assert (same.drift == 0).all() and same.mean_overlap == 1.0
    q, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((t.shape[1], t.shape[1])))
    rotated = (t @ q).astype(np.float32)
    r = drift(t, rotated, align="procrustes")
    assert r.max_drift < 1e-4 and r.mean_overlap == 1.0
    np.testing.assert_allclose(r.rotation, q, atol=1e-3)
    assert drift(t, rotated, align="none").median_drift > 0.5  # without alignment the rotation looks like change


def test_most_and_least_moved_put_rows_that_are_not_finite_apart():
    from andrea_viz.compare import Drift

    r = Drift(np.array([0.5, np.nan, 0.1, 0.5, 0.0, 0.9]), np.full(6, np.nan), np.arange(0), "none", 1, None, 0.0)
    assert r.most_moved(4).tolist() == [5, 0, 3, 2]  # ties in id order
    assert r.most_moved(6).tolist() == [5, 0, 3, 2, 4]  # the row that is not finite is in neither list
    assert r.least_moved(3).tolist() == [4, 2, 3] and 1 not in r.least_moved(6).tolist()


def test_drift_between_real_snapshots_is_larger_for_frequent_tokens_than_never_seen_ones(tmp_path):
    from andrea_viz.grow import train

    r = train(tmp_path / "run", steps=20, snapshot_at=[0, 20])
    first, last = (andrea_viz.load(p) for _, p in r.snapshots)
    d = drift(first.token_table, last.token_table, align="none")
    unseen = np.array(r.unseen_ids)
    frequent = [first.tokenizer.lookup(w)[0] for w in ("the", "cat", "on", "is")]
    assert (d.drift[unseen] == 0).all()
    assert d.drift[frequent].min() > 0.01


def test_drift_cli_json_keys_and_a_shape_mismatch_exits_2(run, tmp_path):
    r = run("drift", "andrea-micro", "andrea-micro", "--align", "none", "--top", "5", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {"a", "b", "vocab_size", "d_model", "aligned", "median_drift", "max_drift", "mean_overlap",
            "tokens"} <= set(d)
    assert d["aligned"] == "none" and d["median_drift"] == 0.0 and d["mean_overlap"] == 1.0
    assert len(d["tokens"]) == 5 and set(d["tokens"][0]) == {"id", "token", "drift", "overlap"}
    assert json.loads(run("drift", "andrea-micro", "andrea-micro", "--json").stdout)["aligned"] == "procrustes"
    bad = run("drift", "andrea-micro", "andrea-12m-init")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "same vocabulary and width" in bad.stderr


# --- timelines ----------------------------------------------------------------------------------
def test_timeline_of_andrea_snapshots_is_ordered_by_the_header_step(tmp_path):
    from andrea_viz.grow import train

    r = train(tmp_path / "run", steps=3, snapshot_at=[0, 1, 3])
    (tmp_path / "run" / "step-000003.bin").rename(tmp_path / "run" / "a-last.bin")  # names no longer sort by step
    tl = open_timeline(tmp_path / "run")
    assert tl.steps == [0, 1, 3] and tl.snapshots[-1].path.name == "a-last.bin"
    assert r.snapshots[0][1].name == tl.snapshots[0].path.name


def test_timeline_of_nanogpt_copies_is_ordered_by_iter_num(tmp_path):
    data = torch.randint(0, 40, (500,))
    model = None
    for name, it in (("ckpt_b.pt", 500), ("ckpt_a.pt", 1000), ("ckpt_c.pt", 250)):
        model = makers.nanogpt_ckpt(tmp_path / name, vocab_size=40, iter_num=it, steps=3, model=model, data=data)
    tl = open_timeline(tmp_path)
    assert tl.steps == [250, 500, 1000] and [s.path.name for s in tl.snapshots] == ["ckpt_c.pt", "ckpt_b.pt", "ckpt_a.pt"]


def test_timeline_of_trainer_checkpoint_folders_uses_global_step(tmp_path):
    for n, step in ((1, 300), (2, 100)):
        folder = tmp_path / f"checkpoint-{n}"
        makers.hf_gpt2(folder)
        (folder / "trainer_state.json").write_text(json.dumps({"global_step": step, "epoch": 1.0}))
    assert open_timeline(tmp_path).steps == [100, 300]


def test_a_timeline_with_mismatched_shapes_says_which_file_differs(tmp_path):
    makers.andrea_bin(tmp_path / "s1.bin", 300, 16, 32, 1, step=1, config=False)
    makers.andrea_bin(tmp_path / "s2.bin", 300, 16, 32, 1, step=2, config=False)
    for p in ("s1", "s2"):
        (tmp_path / f"{p}.json").write_text(json.dumps({"vocab_size": 300, "n_embd": 16, "block_size": 32, "n_layer": 1}))
    makers.andrea_bin(tmp_path / "odd.bin", 400, 16, 32, 1, step=3)
    (tmp_path / "odd.json").write_text(json.dumps({"vocab_size": 400, "n_embd": 16, "block_size": 32, "n_layer": 1}))
    with pytest.raises(CheckpointError, match=r"odd\.bin \(400 × 16\)"):
        open_timeline(tmp_path)
