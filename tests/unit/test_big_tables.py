"""Big tables stay small and fast: 16-bit tables kept as stored and memory-mapped, headers alone for what the
headers say, the output table and the tie comparison only when needed, and every computation on a 16-bit table
equal to the same computation on its float32 widening."""

import json
import mmap
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch
from safetensors.torch import save_file

import andrea_viz
from andrea_viz import geometry
from andrea_viz.checkpoints import tables
from tests.checkpoint_files import makers

ROOT = Path(__file__).resolve().parents[2]


def _mapped(a: np.ndarray) -> bool:
    """Whether an array's bytes are a memory map of a file (its chain of bases ends in an mmap)."""
    base = a
    while base is not None and not isinstance(base, mmap.mmap):
        base = getattr(base, "base", None) if isinstance(base, np.ndarray) else getattr(base, "obj", None)
    return isinstance(base, mmap.mmap)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_a_16_bit_table_is_kept_as_stored_and_memory_mapped(tmp_path, dtype):
    g = torch.Generator().manual_seed(0)
    wte = torch.randn(300, 24, generator=g).to(dtype)
    head = torch.randn(300, 24, generator=g).to(dtype)
    save_file({"transformer.wte.weight": wte, "lm_head.weight": head}, str(tmp_path / "m.safetensors"))
    emb = andrea_viz.load(tmp_path / "m.safetensors")
    want = np.dtype(ml_dtypes.bfloat16) if dtype == torch.bfloat16 else np.dtype(np.float16)
    assert emb.token_table.dtype == want and emb.output_table.dtype == want
    assert _mapped(emb.token_table) and _mapped(emb.output_table) and not emb.token_table.flags.writeable
    np.testing.assert_array_equal(np.asarray(emb.token_table, np.float32), wte.float().numpy())  # torch's widening
    np.testing.assert_array_equal(np.asarray(emb.output_table, np.float32), head.float().numpy())
    assert "kept as stored" in emb.provenance.text()


def _bf16_llama(folder: Path, family: str = "llama-untied"):
    model = makers.hf_family(folder, family, dtype=torch.bfloat16, max_shard_size="4KB")
    makers.word_level_tokenizer(folder)
    return model


def test_the_config_decides_the_tie_and_a_few_rows_settle_an_untied_pair(tmp_path, monkeypatch):
    calls = []
    real = tables.whole_tables_equal
    monkeypatch.setattr(tables, "whole_tables_equal", lambda a, b: calls.append(a.shape) or real(a, b))
    _bf16_llama(tmp_path / "untied")
    assert andrea_viz.load(tmp_path / "untied").output_kind == "untied"
    _bf16_llama(tmp_path / "tied", "llama-tied")
    assert andrea_viz.load(tmp_path / "tied").output_kind == "tied"
    assert calls == []  # the config said so for both: no full comparison
    g = torch.Generator().manual_seed(1)
    wte = torch.randn(50, 8, generator=g).bfloat16()
    other = wte.clone()
    other[40] += 1  # equal in the first rows, different later: only the whole comparison tells
    save_file({"wte.weight": wte, "lm_head.weight": wte.clone()}, str(tmp_path / "same.safetensors"))
    save_file({"wte.weight": wte, "lm_head.weight": other}, str(tmp_path / "late.safetensors"))
    save_file({"wte.weight": wte, "lm_head.weight": torch.randn(50, 8, generator=g).bfloat16()},
              str(tmp_path / "diff.safetensors"))
    assert andrea_viz.load(tmp_path / "same.safetensors").output_kind == "tied"
    assert andrea_viz.load(tmp_path / "late.safetensors").output_kind == "untied"
    assert len(calls) == 2
    assert andrea_viz.load(tmp_path / "diff.safetensors").output_kind == "untied"
    assert len(calls) == 2  # differs in its first rows: settled there


# A process of its own, on purpose: its peak resident memory counts only what `info` reads, not the tables and
# models this test process already holds (the peak reader is andrea_viz.testing_harness's, as the benchmarks').
CHILD = r"""
import json, sys
import transformers  # imported before the peak is reset: what it costs is not a table's bytes
from andrea_viz import cli
import andrea_viz.checkpoints.safetensors_file as sf
from andrea_viz.testing_harness import PeakResident
with PeakResident() as peak:
    cli.main(["info", "--json", sys.argv[1]])
print(json.dumps({"growth": peak.bytes}))
"""


def test_info_reads_the_headers_and_no_tensor(tmp_path, monkeypatch):
    """A folder whose token and output tables are 64 MB each (bf16): ``info`` reads none of their bytes (counted
    by the readers that copy and the passes over a table; the peak resident memory of a fresh process grows far less
    than one table)."""
    folder = tmp_path / "big"
    folder.mkdir()
    V, d = 8192, 4096
    g = torch.Generator().manual_seed(0)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": V, "hidden_size": d,
              "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 32, "num_key_value_heads": 8,
              "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
    (folder / "config.json").write_text(json.dumps(config))
    save_file({"model.embed_tokens.weight": torch.randn(V, d, generator=g).bfloat16(),
               "lm_head.weight": torch.randn(V, d, generator=g).bfloat16()}, str(folder / "model.safetensors"),
              metadata={"format": "pt"})
    touched = []
    for name in ("nonfinite_rows", "whole_tables_equal"):
        monkeypatch.setattr(tables, name, lambda *a, n=name: touched.append(n))
    from andrea_viz import cli
    from andrea_viz.checkpoints import safetensors_file

    monkeypatch.setattr(safetensors_file, "_read_other", lambda *a: touched.append("read"))
    assert cli.main(["info", "--json", str(folder)]) == 0
    assert touched == []
    r = subprocess.run([sys.executable, "-c", CHILD, str(folder)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    table_bytes = V * d * 2
    assert json.loads(r.stdout.strip().splitlines()[-1])["growth"] < table_bytes / 4


@pytest.fixture(scope="module")
def big_bf16():
    """A bf16 table past the unit-copy limit (so the 16-bit search path runs), and its float32 twin."""
    g = np.random.default_rng(3)
    V, d = 2048, 64
    t = (g.standard_normal((V, d)) * 0.02).astype(np.float32)
    t[7] = t[5] * 1.01 + 1e-4  # a close pair: the best neighbour of 5 is 7
    t[100] = 0  # an all-zero row
    bf = torch.from_numpy(t).bfloat16()
    stored = bf.view(torch.uint16).numpy().view(ml_dtypes.bfloat16)
    emb = andrea_viz.load("andrea-12m-init")
    narrow = replace(emb, name="bf16", key="bf16", token_table=stored, position_table=None, position_kind="none",
                     output_table=None, tied=False, tokenizer=andrea_viz.tokenizer.IdTokenizer(V))
    wide = replace(narrow, name="f32", key="f32", token_table=np.asarray(stored, np.float32))
    return narrow, wide


def test_the_16_bit_search_gives_the_exact_search_ids_and_scores(big_bf16, monkeypatch):
    narrow, wide = big_bf16
    monkeypatch.setattr(andrea_viz.model, "DERIVED_COPY_MAX", 0)  # both take the no-unit-copy path
    called = []
    real = geometry.narrow_cosine_top_k
    monkeypatch.setattr(geometry, "narrow_cosine_top_k", lambda *a: called.append(1) or real(*a))
    for q in ["#5", "#0", "#100", "#2047", "#1234"]:
        _, fast = geometry.neighbours(narrow, q, k=10)
        _, ref = geometry.neighbours(wide, q, k=10)
        assert [n.id for n in fast] == [n.id for n in ref], q
        np.testing.assert_allclose([n.score for n in fast], [n.score for n in ref], rtol=1e-5, atol=1e-7)
    assert len(called) == 5 and geometry.neighbours(narrow, "#5", k=1)[1][0].id == 7


def test_a_whole_map_clicks_lines_come_from_the_16_bit_search_and_are_the_exact_ones(big_bf16, monkeypatch):
    """A click on a whole-table map of a 16-bit table (its sample every row once, in the page's order): the true 10
    nearest from the 16-bit estimate and exact rescoring, the same positions as the float32 reference (nearest_in
    over the float32 twin); a sample of part of the table takes nearest_in."""
    narrow, wide = big_bf16
    monkeypatch.setattr(andrea_viz.model, "DERIVED_COPY_MAX", 0)  # past the unit-copy limit, as Gemma-3's table is
    called = []
    real = geometry.narrow_cosine_top_k
    monkeypatch.setattr(geometry, "narrow_cosine_top_k", lambda *a: called.append(1) or real(*a))
    order = np.random.default_rng(0).permutation(narrow.vocab_size)  # the page puts the query and groups first
    for index in [int(np.flatnonzero(order == 5)[0]), 0, 1234, 2047]:
        fast = geometry.nearest_of(narrow, order, index, 10)
        ref = geometry.nearest_in(wide.token_table, order, index, 10, wide.row_norms)
        assert fast.tolist() == ref.tolist(), index
    zero = geometry.nearest_of(narrow, order, int(np.flatnonzero(order == 100)[0]), 10)  # every cosine 0: a tie
    assert order[zero].tolist() == list(range(10))  # broken by the smaller id, the library's one tie rule
    called.pop()
    assert len(called) == 4 and order[geometry.nearest_of(narrow, order, int(np.flatnonzero(order == 5)[0]), 1)[0]] == 7
    part = order[:1500]
    assert geometry.nearest_of(narrow, part, 3, 10).tolist() == geometry.nearest_in(
        wide.token_table, part, 3, 10, wide.row_norms).tolist()
    assert len(called) == 5  # the sample's own search, not the whole table's


def test_a_map_made_ready_to_search_leaves_its_first_click_nothing_but_the_search(big_bf16, monkeypatch):
    """ready_to_search (the map page calls it before any click) computes the rows' lengths the click's search reads,
    once: the first click then makes no pass of its own over the table's lengths, and finds the exact nearest."""
    narrow, wide = big_bf16
    monkeypatch.setattr(andrea_viz.model, "DERIVED_COPY_MAX", 0)
    passes = []
    real = torch.linalg.vector_norm
    monkeypatch.setattr(torch.linalg, "vector_norm", lambda *a, **kw: passes.append(1) or real(*a, **kw))
    whole, part = replace(narrow, key="bf16-whole"), replace(narrow, key="bf16-part")  # nothing kept yet
    order = np.random.default_rng(1).permutation(narrow.vocab_size)
    geometry.ready_to_search(whole, order)
    assert passes == [1]
    geometry.ready_to_search(whole, order)
    assert geometry.nearest_of(whole, order, 17, 10).tolist() == geometry.nearest_in(
        wide.token_table, order, 17, 10, wide.row_norms).tolist()
    assert passes == [1]  # computed once, before the click
    geometry.ready_to_search(part, order[:1500])  # a sample's search reads the exact lengths
    assert "row_norms" in {key[0] for key in part.__dict__["_memo"]} and passes == [1]


def test_every_computation_on_a_bf16_table_equals_it_on_the_float32_table(big_bf16):
    from andrea_viz import forward_pass, lookup
    from andrea_viz.maps.project import project_model

    narrow, wide = big_bf16
    np.testing.assert_array_equal(narrow.row_norms, wide.row_norms)
    for metric in ("cosine", "dot", "euclidean"):
        a = geometry.scores(narrow, wide.token_table[5], metric)
        b = geometry.scores(wide, wide.token_table[5], metric)
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert geometry.anisotropy(narrow) == pytest.approx(geometry.anisotropy(wide), abs=1e-6)
    sa, sb = lookup.value_stats(narrow.token_table), lookup.value_stats(wide.token_table)
    np.testing.assert_array_equal(sa.counts, sb.counts)
    ids = np.array([[1, 5, 7, 2047]])
    x = forward_pass.forward(narrow, ids, backend="numpy", positions=False).x
    np.testing.assert_array_equal(x, wide.token_table[ids])
    pa = project_model(narrow, "pca", n=500)
    pb = project_model(wide, "pca", n=500)
    np.testing.assert_allclose(pa.projection.coords, pb.projection.coords, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("family", ["llama-untied", "llama-tied", "mistral", "qwen2"])
def test_the_written_recipe_of_a_rope_decoder_is_transformers_own(tmp_path, family):
    """The recipe written from config.json alone (no transformers import) names the tables, tie and position kind
    that transformers' class built on the meta device names; the file's parameter count is the class's."""
    from andrea_viz.checkpoints import architectures

    model = makers.hf_family(tmp_path, family)
    cfg = json.loads((tmp_path / "config.json").read_text())
    keys = frozenset(json.loads((tmp_path / "model.safetensors").read_bytes()[8:8 + int.from_bytes(
        (tmp_path / "model.safetensors").read_bytes()[:8], "little")]).keys()) - {"__metadata__"}
    quick = architectures.template_recipe(cfg)
    built = architectures._recipe(json.dumps(cfg, sort_keys=True), keys)
    assert quick is not None
    same = ("model_type", "model_class", "token", "output", "tied", "position", "position_kind", "token_type", "norm",
            "scale", "project_in", "project_out", "shared")
    assert {f: getattr(quick, f) for f in same} == {f: getattr(built, f) for f in same}
    assert {n: quick.shapes[n] for n in built.shapes} == built.shapes
    assert str(quick.position_reason).startswith("RoPE")
    emb = andrea_viz.load(tmp_path)
    assert emb.card["total_params"] == sum(p.numel() for p in model.parameters()) == built.total_params


def test_bench_load_writes_a_llama_folder_and_a_gemma_table_that_open_as_the_real_ones(tmp_path):
    """bench-load's writers at a tiny size: three shards with save_pretrained's index, the bf16 tables where the
    real models keep them, untied; a Gemma-shaped bare table found by its name."""
    from safetensors import safe_open

    from andrea_viz.bench import load as bench

    folder = bench.write_llama_folder(tmp_path / "llama", V=300, d=32)
    index = json.loads((folder / "model.safetensors.index.json").read_text())
    assert sorted(set(index["weight_map"].values())) == [f"model-0000{i}-of-00003.safetensors" for i in (1, 2, 3)]
    sizes = 0
    for shard in set(index["weight_map"].values()):
        with safe_open(str(folder / shard), framework="pt") as f:
            sizes += sum(f.get_tensor(k).numel() * 2 for k in f.keys())
    assert index["metadata"]["total_size"] == sizes
    emb = andrea_viz.load(folder)
    assert emb.token_table.shape == (300, 32) and emb.token_table.dtype == np.dtype(ml_dtypes.bfloat16)
    assert emb.output_kind == "untied" and emb.position_kind == "rope" and _mapped(emb.output_table)
    with safe_open(str(folder / index["weight_map"]["lm_head.weight"]), framework="pt") as f:
        np.testing.assert_array_equal(np.asarray(emb.output_table, np.float32), f.get_tensor("lm_head.weight").float())
    assert emb.tokenizer.lookup(bench.WORD) == [2] and geometry.neighbours(emb, bench.WORD, k=3)[1]
    table = bench.write_gemma_table(tmp_path / "gemma", V=400, d=24)
    g = andrea_viz.load(table)
    assert g.token_table.shape == (400, 24) and g.output_kind == "none" and g.tokenizer.lookup(bench.WARM_WORD) == [3]
