"""Every checkpoint format, written by its real tool, read back with the right tables and report."""

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

import andrea_viz
from andrea_viz import CheckpointError
from andrea_viz.geometry import neighbours
from tests.checkpoint_files import makers


def test_andrea_bin_with_adam_state_known_values_at_known_offsets(tmp_path):
    V, d, T, L = 300, 16, 32, 1
    p = tmp_path / "andrea.bin"
    w = makers.andrea_bin(p, V, d, T, L, config=True)
    assert p.stat().st_size == 8 + 12 * w.size
    emb = andrea_viz.load(p)
    np.testing.assert_array_equal(emb.token_table, w[: V * d].reshape(V, d))
    np.testing.assert_array_equal(emb.position_table, w[V * d : V * d + T * d].reshape(T, d))
    np.testing.assert_array_equal(emb.output_table, w[V * d + T * d : 2 * V * d + T * d].reshape(V, d))
    assert emb.token_table[5, 3] == np.float32((5 * d + 3) * 1e-6)
    assert emb.output_kind == "untied" and emb.position_kind == "learned"
    assert np.isfinite(emb.token_table).all()  # the NaN-filled Adam m and v were never read
    assert "training step 1,234" in emb.provenance.text()
    assert "sidecar config" in emb.provenance.text()


def test_andrea_bin_sizes_are_solved_without_a_config(tmp_path):
    p = tmp_path / "ANDREA-12M.bin"
    w = makers.andrea_bin(p, V=2_305, d=384, T=1024, L=6, adam=False)
    assert w.size == 12_780_288  # the model card's count
    emb = andrea_viz.load(p)
    assert emb.token_table.shape == (2_305, 384) and emb.position_table.shape == (1024, 384)
    assumed = emb.provenance.text()
    assert "V = 2,305, d = 384, T = 1,024, L = 6 solved from n_params = 12,780,288" in assumed
    assert "microGPT's order" in assumed


def test_andrea_bin_with_harris_segments(tmp_path):
    V = 300
    p = tmp_path / "m.bin"
    makers.andrea_bin(p, V, 16, 32, 1, config=True)
    segs = ["cat", "dog", "the"] + [f"s{i}" for i in range(40)]  # 256 + 43 + 1 = 300
    (tmp_path / "harris_segments.json").write_text(json.dumps({"segments": segs}))
    emb = andrea_viz.load(p)
    assert emb.tokenizer.lookup("cat") == [256] and emb.token(V - 1) == "<BOS>"
    assert emb.tokenizer.encode("cats") == [256, ord("s")]
    assert "guess" not in emb.provenance.text()


def test_andrea_bin_wrong_size_says_what_it_expected(tmp_path):
    p = tmp_path / "bad.bin"
    w = makers.andrea_bin(p, 300, 16, 32, 1, config=True)
    with open(p, "ab") as f:
        f.write(b"\0" * 4)
    n = w.size  # 13,184
    with pytest.raises(CheckpointError) as info:
        andrea_viz.load(p)
    assert str(info.value) == (f"bad.bin: an ANDREA .bin with n_params = {n:,} must be {8 + 12 * n:,} bytes (weights + "
                               f"Adam m and v) or {8 + 4 * n:,} (weights only); it is {8 + 12 * n + 4:,}")
    p.write_bytes(p.read_bytes()[: 8 + 3 * n])  # a download cut short
    with pytest.raises(CheckpointError, match=f"must be {8 + 12 * n:,} bytes .* it is {8 + 3 * n:,}"):
        andrea_viz.load(p)


@pytest.mark.parametrize("step", [128, 384, 640, 0x80 + 0x100 * 7])
def test_andrea_bin_saved_at_a_step_whose_low_byte_is_0x80_opens(tmp_path, step):
    """Its first byte is a pickle's protocol marker; the exact ANDREA size rule is checked first."""
    p = tmp_path / f"step{step}.bin"
    w = makers.andrea_bin(p, 300, 16, 32, 1, step=step, config=True)
    assert p.read_bytes()[0] == 0x80
    emb = andrea_viz.load(p)
    np.testing.assert_array_equal(emb.token_table, w[: 300 * 16].reshape(300, 16))
    assert emb.card["step"] == step and f"training step {step:,}" in emb.provenance.text()


def test_format_table_checks_exact_size_rules_before_a_pickles_first_byte():
    from andrea_viz.checkpoints import FORMATS

    keys = [f.key for f in FORMATS]
    assert keys.index("andrea") < keys.index("torch") < keys.index("andrea-damaged")


def test_the_tokenizer_is_sized_by_the_chosen_token_table(tmp_path):
    """A 2-D tensor listed before the token table must not size the tokenizer."""
    from safetensors.numpy import save_file

    g = np.random.default_rng(0)
    save_file({"a.proj.weight": g.standard_normal((7, 8), np.float32),  # listed first, 7 rows
               "wte.weight": g.standard_normal((300, 8), np.float32)}, str(tmp_path / "m.safetensors"))
    (tmp_path / "harris_segments.json").write_text(json.dumps(["cat", "dog"] + [f"s{i}" for i in range(41)]))
    emb = andrea_viz.load(tmp_path / "m.safetensors")
    assert emb.vocab_size == 300 and emb.tokenizer.vocab_size == 300
    assert emb.tokenizer.lookup("dog") == [257] and "guess" not in emb.provenance.text()


@pytest.mark.parametrize("compiled", [False, True])
def test_nanogpt_ckpt_is_tied_with_model_args(tmp_path, compiled):
    p = tmp_path / "ckpt.pt"
    model = makers.nanogpt_ckpt(p, compiled=compiled)
    emb = andrea_viz.load(p)
    np.testing.assert_array_equal(emb.token_table, model.transformer.wte.weight.detach().numpy())
    np.testing.assert_array_equal(emb.position_table, model.transformer.wpe.weight.detach().numpy())
    assert emb.output_kind == "tied" and str(emb.provenance.format) == "PyTorch checkpoint (nanoGPT ckpt.pt)"
    assert emb.card["layers"] == 1
    # the shared table counted once, as nanoGPT's get_num_params and model.parameters() count it
    assert emb.card["total_params"] == sum(q.numel() for q in model.parameters())
    roles = {r[0]: r for r in emb.provenance.roles}
    assert "equals the token table" in str(roles["output table"][2])
    if compiled:
        assert roles["token table"][1] == "_orig_mod.transformer.wte.weight"


@pytest.mark.parametrize("safe", [True, False])
def test_hugging_face_gpt2_folder_is_tied_with_learned_positions(tmp_path, safe):
    model = makers.hf_gpt2(tmp_path, safe=safe)
    emb = andrea_viz.load(tmp_path)
    np.testing.assert_array_equal(emb.token_table, model.transformer.wte.weight.detach().numpy())
    np.testing.assert_array_equal(emb.position_table, model.transformer.wpe.weight.detach().numpy())
    assert emb.output_kind == "tied" and emb.position_kind == "learned"
    assert str(emb.provenance.format) == "Hugging Face folder (gpt2)"


def test_hugging_face_bert_folder_with_vocab_txt(tmp_path):
    model = makers.hf_bert(tmp_path)
    emb = andrea_viz.load(tmp_path)
    np.testing.assert_array_equal(emb.token_table, model.embeddings.word_embeddings.weight.detach().numpy())
    assert emb.position_table.shape == (40, 32) and emb.output_kind == "none"
    assert emb.tokenizer.lookup("kitten") == [7, 8]
    assert {t for t, *_ in emb.provenance.tensors} >= {"embeddings.token_type_embeddings.weight"}
    _, found = neighbours(emb, "cat", k=3)
    assert len(found) == 3


def test_hugging_face_llama_folder_is_rope_and_untied(tmp_path):
    model = makers.hf_llama(tmp_path)
    emb = andrea_viz.load(tmp_path)
    np.testing.assert_array_equal(emb.token_table, model.model.embed_tokens.weight.detach().numpy())
    np.testing.assert_array_equal(emb.output_table, model.lm_head.weight.detach().numpy())
    assert emb.position_kind == "rope" and emb.position_table is None and emb.output_kind == "untied"


def test_single_safetensors_file(tmp_path):
    makers.hf_llama(tmp_path)
    emb = andrea_viz.load(tmp_path / "model.safetensors")
    assert str(emb.provenance.format) == "safetensors" and emb.position_kind == "rope"


def test_meta_consolidated_pth(tmp_path):
    sd = makers.meta_consolidated(tmp_path / "consolidated.00.pth")
    emb = andrea_viz.load(tmp_path / "consolidated.00.pth")
    np.testing.assert_array_equal(emb.token_table, sd["tok_embeddings.weight"].numpy())
    np.testing.assert_array_equal(emb.output_table, sd["output.weight"].numpy())
    assert emb.position_kind == "rope"


@pytest.mark.parametrize("bf16", [False, True])
def test_llmc_bin_drops_padded_rows(tmp_path, bf16):
    p = tmp_path / "gpt2_124M.bin"
    wte, wpe = makers.llmc_bin(p, V=100, Vp=128, bf16=bf16)
    emb = andrea_viz.load(p)
    np.testing.assert_array_equal(emb.token_table, wte)
    np.testing.assert_array_equal(emb.position_table, wpe)
    assert emb.output_kind == "tied"
    assert any("rows 100 to 127" in str(w) and "padding" in str(w) for w in emb.provenance.warnings)


def test_npz_named_tables_and_npy_single_table(tmp_path):
    g = np.random.default_rng(0)
    wte, wpe, out = g.standard_normal((50, 8), np.float32), g.standard_normal((10, 8), np.float32), \
        g.standard_normal((50, 8), np.float32)
    np.savez(tmp_path / "t.npz", wte=wte, wpe=wpe, lm_head=out)
    emb = andrea_viz.load(tmp_path / "t.npz")
    np.testing.assert_array_equal(emb.output_table, out)
    assert emb.output_kind == "untied" and emb.position_kind == "learned"
    np.save(tmp_path / "table.npy", wte.astype(np.float16))
    one = andrea_viz.load(tmp_path / "table.npy")
    np.testing.assert_array_equal(one.token_table, wte.astype(np.float16).astype(np.float32))
    assert one.position_kind == "none" and one.token_table.dtype == np.float16 and "kept as stored" in one.provenance.text()


def test_format_is_sniffed_from_bytes_not_the_name(tmp_path):
    makers.hf_gpt2(tmp_path / "hf")
    misleading = tmp_path / "weights.npy"
    misleading.write_bytes((tmp_path / "hf" / "model.safetensors").read_bytes())
    assert str(andrea_viz.load(misleading).provenance.format) == "safetensors"


class Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


@pytest.mark.parametrize("writer", ["torch.save", "pickle"])
def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(tmp_path, writer):
    marker = tmp_path / "pwned"
    p = tmp_path / "evil.pt"
    payload = {"model": {"wte": torch.zeros(3, 2)}, "x": Evil(str(marker))}
    if writer == "torch.save":
        torch.save(payload, p)
    else:
        p.write_bytes(pickle.dumps(payload, protocol=2))
    with pytest.raises(CheckpointError, match="refused: it holds Python objects other than tensors"):
        andrea_viz.load(p)
    assert not marker.exists()


def test_separate_tokenizer_json_and_warnings(tmp_path, minilm):
    from andrea_viz.builtin import minilm_dir

    np.save(tmp_path / "minilm_wte.npy", minilm.token_table[:1000])
    np.save(tmp_path / "minilm_wte_whole.npy", minilm.token_table)
    emb = andrea_viz.load(tmp_path / "minilm_wte_whole.npy", tokenizer=minilm_dir() / "tokenizer.json")
    assert emb.tokenizer.lookup("the") == [1996] and emb.token(1996) == "the"
    cut = andrea_viz.load(tmp_path / "minilm_wte.npy", tokenizer=minilm_dir() / "tokenizer.json")
    # a tokenizer.json that knows more tokens than the table has rows is another model's, as for every other kind
    assert ("tokenizer.json holds 30,522 tokens but the table has only 1,000 rows: it belongs to another model"
            in cut.provenance.text()) and cut.token(5) == "#5"
    bare = andrea_viz.load(tmp_path / "minilm_wte.npy")
    assert "no tokenizer" in bare.provenance.text()
    with pytest.raises(andrea_viz.QueryError, match="no tokenizer"):
        neighbours(bare, "cat")
    assert neighbours(bare, "#5")[0].ids == (5,)


def test_nonfinite_rows_are_a_warning(tmp_path):
    t = np.ones((10, 4), np.float32)
    t[3, 1], t[7, 0] = np.nan, np.inf
    np.save(tmp_path / "n.npy", t)
    emb = andrea_viz.load(tmp_path / "n.npy")
    assert "2 rows of the token table hold NaN or Inf" in emb.provenance.text()
    _, found = neighbours(emb, "#0", k=9)
    assert [n.id for n in found] == [1, 2, 4, 5, 6, 8, 9]  # every finite row but the query's, none of 3 and 7


def test_cli_info_and_neighbors_on_a_path(cli, tmp_path):
    makers.hf_bert(tmp_path)
    r = cli("info", str(tmp_path), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["format"] == "Hugging Face folder (bert)" and d["vocab_size"] == 100 and d["output"] == "none"
    r = cli("neighbors", str(tmp_path), "cat", "--json", "--tokenizer", str(tmp_path / "vocab.txt"))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["query_ids"] == [5]
    (tmp_path / "junk.bin").write_bytes(b"\x01\x02\x03")
    r = cli("info", str(tmp_path / "junk.bin"))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_andrea_120m_count_is_not_mistaken_for_a_384_wide_model():
    from andrea_viz.checkpoints.andrea_bin import solve_sizes

    chosen, fits = solve_sizes(98_698_752)
    assert chosen == (8_449, 768, 1024, 12)
    assert (114_178, 384, 1024, 6) in fits  # the same count fits d = 384 too
    assert solve_sizes(12_780_288)[0] == (2_305, 384, 1024, 6)


def test_bf16_safetensors_are_converted(tmp_path):
    from safetensors.torch import save_file

    wte = torch.randn(20, 8).to(torch.bfloat16)
    save_file({"wte.weight": wte}, str(tmp_path / "b.safetensors"))
    emb = andrea_viz.load(tmp_path / "b.safetensors")
    np.testing.assert_array_equal(emb.token_table, wte.float().numpy())
    assert any("BF16" in t[2] for t in emb.provenance.tensors)
