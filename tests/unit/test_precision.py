"""Jaccard@10 of each token's exact cosine neighbours at a lower precision, against float32: checked on sampled
rows against a slow float64 reference, on a table of tight clusters where 4-bit rounding scrambles them."""

import json

import numpy as np
import pytest
from gguf import GGMLQuantizationType, quants

import andrea_viz
from andrea_viz import precision as P
from andrea_viz.geometry import jaccard, top_k
from andrea_viz.model import Embeddings, Provenance
from andrea_viz.tokenizer import IdTokenizer
from tests.checkpoint_files import makers


def clustered(V=1200, d=64, clusters=60, spread=0.02, seed=0) -> np.ndarray:
    """Tight clusters: each token's 10 nearest are the 19 others of its cluster, ordered by small differences
    that coarse rounding can swap."""
    g = np.random.default_rng(seed)
    centres = g.standard_normal((clusters, d))
    rows = centres[np.arange(V) % clusters] + spread * g.standard_normal((V, d))
    return rows.astype(np.float32)


def model(table: np.ndarray) -> Embeddings:
    return Embeddings("clusters", table, None, "none", None, False, IdTokenizer(table.shape[0]), Provenance("test"))


def slow_neighbours(table: np.ndarray, row: int, k: int = 10) -> list[int]:
    """float64 cosines of one row against every row, itself left out, the k best by the library's top_k."""
    t = table.astype(np.float64)
    n = np.sqrt((t * t).sum(axis=1))
    cos = (t @ t[row]) / (n * n[row])
    return [int(i) for i in top_k(cos, k, exclude=(row,))]


@pytest.fixture(scope="module")
def results():
    table = clustered()
    return table, P.compare_precisions(model(table))


def test_each_precision_agrees_with_a_slow_float64_reference_on_sampled_rows(results):
    table, res = results
    sample = np.random.default_rng(1).choice(table.shape[0], 60, replace=False)
    assert list(res) == list(P.PRECISIONS)
    for name, r in res.items():
        low = P.at_precision(table, name)
        ref = np.array([jaccard(slow_neighbours(table, i), slow_neighbours(low, i)) for i in sample])
        assert np.mean(np.isclose(r.jaccard[sample], ref)) >= 0.95, name  # a near-tie may fall either side
        assert np.abs(r.jaccard[sample] - ref).mean() < 0.02, name


def test_four_bits_scramble_tight_clusters_and_sixteen_keep_them(results):
    _, res = results
    assert res["fp16"].median == 1.0 and res["fp16"].p05 >= 0.8
    assert res["q8_0"].median >= 0.8
    assert res["q4_0"].median < 0.6 and res["q4_0"].p05 < 0.4  # many tokens lose most of their neighbourhood
    assert (res["q4_0"].jaccard < 0.5).mean() > 0.3
    w = res["q4_0"].worst(100)
    assert len(w) == 100 and res["q4_0"].jaccard[w].max() <= np.sort(res["q4_0"].jaccard)[99]


def test_the_precisions_are_made_as_stated():
    t = clustered(V=64, d=64)
    q = quants.quantize(t, GGMLQuantizationType.Q4_0)
    assert np.array_equal(P.at_precision(t, "Q4_0"), quants.dequantize(q, GGMLQuantizationType.Q4_0))
    assert np.array_equal(P.at_precision(t, "fp16"), t.astype(np.float16).astype(np.float32))
    bf = P.at_precision(t, "bf16")
    assert np.all(bf.view(np.uint32) & 0xFFFF == 0) and np.abs(bf - t).max() <= np.abs(t).max() * 2**-8
    i8 = P.at_precision(t, "int8")
    scale = np.abs(t).max(1, keepdims=True) / 127
    assert np.allclose(i8 / scale, np.rint(i8 / scale), atol=1e-3) and np.abs(i8 - t).max() <= scale.max() / 2 + 1e-6
    with pytest.raises(andrea_viz.QueryError, match="precision must be one of"):
        P.at_precision(t, "fp8")


def test_numpy_and_torch_passes_agree():
    t = clustered(V=500, d=32)
    assert np.array_equal(P.neighbour_ids(t, 10, backend="numpy"), P.neighbour_ids(t, 10, backend="torch"))


def test_the_lessons_pairs_at_every_precision():
    emb = andrea_viz.load("andrea-micro")
    res = P.compare_precisions(emb)
    for name, r in res.items():
        assert set(r.pairs) == {"cat/dog", "cat/tuesday"}, name
        (cd32, cd), (ct32, ct) = r.pairs["cat/dog"], r.pairs["cat/tuesday"]
        assert cd32 > ct32 and abs(cd - cd32) < 0.1 and cd > ct, name


def test_cli_keys_are_the_dtypes_as_typed_and_a_gguf_file_by_its_name(cli, tmp_path):
    emb = andrea_viz.load("andrea-micro")
    makers.gguf_model(tmp_path / "micro-q4_0.gguf", V=emb.vocab_size, d=emb.d_model, qtype="Q4_0", tokenizer="none",
                      table=np.array(emb.token_table))
    r = cli("precision", "andrea-micro", "--dtypes", "BF16", "q4_0", "--against", str(tmp_path / "micro-q4_0.gguf"), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert list(d) == ["BF16", "q4_0", "micro-q4_0.gguf"]
    for v in d.values():
        assert {"jaccard_median", "jaccard_p05", "worst"} <= set(v) and len(v["worst"]) == 100
        assert set(v["worst"][0]) == {"id", "token", "jaccard"}
    assert d["micro-q4_0.gguf"]["worst"] == d["q4_0"]["worst"]  # the same quantize, read back from the file
    bad = cli("precision", "andrea-micro", "--dtypes", "fp8")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "fp8" in bad.stderr
