"""The deck.gl map's data: every point once, its token intact, and the page's share of it small."""

import json

import numpy as np

from andrea_viz.plots.deck_map import deck_map
from andrea_viz.projection import Projection, Sample

PAYLOAD_MAX = 8 * 2**20  # bytes: the page's data for one map


def _map(n: int, tokens: list[str], groups=None):
    rng = np.random.default_rng(0)
    proj = Projection((rng.standard_normal((n, 2)) * 5).astype(np.float32), "umap", None, 0.0)
    trust = np.full(n, np.nan)
    trust[:5000] = 0.7
    return proj, Sample(np.arange(n), tuple(groups or ("other",) * n)), trust


def test_a_map_of_128256_real_tokens_fits_in_8_mb(minilm):
    n = 128_256
    tokens = [minilm.token(i % minilm.vocab_size) for i in range(n)]
    proj, sample, trust = _map(n, tokens)
    text = deck_map(proj, sample, tokens, trust).to_json()
    size = len(text.encode())
    print(f"deck.gl payload, {n:,} points: {size / 2**20:.2f} MiB")
    assert size <= PAYLOAD_MAX
    data = json.loads(text)
    points = {layer["id"]: layer for layer in data["layers"]}["points"]["data"]
    assert len(points) == n and [p["i"] for p in points[:3]] == [0, 1, 2]
    assert all(abs(p["x"] - float(proj.coords[p["i"], 0])) <= 1e-3 * max(1.0, abs(p["x"])) for p in points[::997])


def test_tokens_travel_as_they_are_and_groups_get_their_colour():
    tokens = ["</script>", "<b>x</b>", "{t}", "cat", *[f"w{i}" for i in range(46)]]
    groups = ["other"] * 50
    groups[3] = "animals"
    proj, sample, trust = _map(50, tokens, groups)
    data = json.loads(deck_map(proj, sample, tokens, trust).to_json())
    layers = {layer["id"]: layer for layer in data["layers"]}
    assert [p["t"] for p in layers["points"]["data"][:3]] == tokens[:3]
    assert [p["t"] for p in layers["marked"]["data"]] == ["cat"] and len(layers["marked"]["data"][0]["c"]) == 4
