"""The deck.gl map's data: every point once, its token intact, and the page's share of it small."""

import json

import numpy as np

from andrea_viz.plots.deck_map import JOINER, deck_map, inert
from andrea_viz.maps.layout import Projection
from andrea_viz.maps.sample import Sample

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


HOSTILE = ["@@=console.log(1)", "@@#GL.NOPE", "@@type", "@@function", "@@=x", "@@", "@@#", "@x", "a@@=b", " @@=c",
           "\u2060@@=already"]


def _interpreted(value, key: str = "") -> list[str]:
    """The slow reference: what @deck.gl/json's converter (as Streamlit 1.67 bundles it) would not leave as plain
    data, walked value by value: a string starting with @@= or @@#, an object with a @@type or @@function key."""
    if isinstance(value, list):
        return [hit for v in value for hit in _interpreted(v, key)]
    if isinstance(value, dict):
        hits = [f"{key}: object with {k}" for k in ("@@type", "@@function") if k in value]
        return hits + [hit for k, v in value.items() for hit in _interpreted(v, k)]
    if isinstance(value, str) and (value.startswith("@@=") or value.startswith("@@#")):
        return [f"{key}: {value!r}"]
    return []


class _Cluster:
    def __init__(self, text: str):
        self.text = text

    def label(self, lang=None) -> str:
        return self.text


def test_no_token_or_label_reaches_deck_gl_as_something_it_interprets():
    n = 60
    tokens = [*HOSTILE, *[f"w{i}" for i in range(n - len(HOSTILE))]]
    groups = ["other"] * n
    groups[0] = groups[2] = "animals"  # both the grey and the coloured layer carry hostile tokens
    proj, sample, trust = _map(n, tokens, groups)
    labels = [(0.0, 0.0, _Cluster("@@=alert(1)")), (1.0, 1.0, _Cluster("@@#Nope.x")), (2.0, 2.0, _Cluster("cat dog"))]
    for kwargs in ({}, {"colour_by_trust": True}, {"shade": np.linspace(0, 1, n)}):
        data = json.loads(deck_map(proj, sample, tokens, trust, labels=labels, lines_from=0,
                                   lines_to=np.array([1, 2]), **kwargs).to_json())
        layers = {layer["id"]: layer for layer in data["layers"]}
        assert set(layers) >= {"points", "marked", "labels", "nearest"}
        assert [hit for layer in layers.values() for hit in _interpreted(layer["data"])] == []
        records = sorted((p for name in ("points", "marked") for p in layers[name]["data"]), key=lambda p: p["i"])
        # shown as typed: the only change is an invisible joiner before a string that starts with @@
        assert [p["t"].removeprefix(JOINER) if tokens[p["i"]].startswith("@@") else p["t"] for p in records] == tokens
        assert [p["t"] for p in records if not tokens[p["i"]].startswith("@@")] == [t for t in tokens if not t.startswith("@@")]
        assert [r["text"] for r in layers["labels"]["data"]] == [JOINER + "@@=alert(1)", JOINER + "@@#Nope.x", "cat dog"]
    # the deck's own accessors still are expressions (pydeck writes them so): only the data was made inert
    assert _interpreted({k: v for k, v in layers["marked"].items() if k != "data"}) != []


def test_inert_changes_only_strings_that_start_with_two_at_signs():
    assert [inert(t) for t in HOSTILE] == [JOINER + t if t.startswith("@@") else t for t in HOSTILE]
    assert inert("@@=x") == "\u2060@@=x" and inert("cat") == "cat" and inert("") == ""


def test_the_deck_maps_key_names_each_colour_it_shows_and_escapes_the_typed_word():
    """deck.gl draws no key: the page draws one under it, one swatch per colour the map shows, in the colours its
    points have, names escaped (a neighbour group's name holds the word the reader typed)."""
    import html as html_lib

    from andrea_viz.maps.sample import NEIGHBOUR_OF
    from andrea_viz.maps.scene import QUERY, build_scene
    from andrea_viz.plots.deck_map import deck_legend, point_records
    from andrea_viz.plots.style import entry_colours

    typed = "<img src=x onerror=alert(1)>"
    groups = ["other"] * 40 + ["animals"] * 5 + [NEIGHBOUR_OF + typed] * 4 + [QUERY]
    tokens = [f"w{i}" for i in range(50)]
    proj, sample, trust = _map(50, tokens, groups)
    scene = build_scene(proj, sample, tokens, trust)
    key = deck_legend(scene)
    colours = entry_colours(scene.slots)
    assert key.count('role="listitem"') == 4 and "<img" not in key and html_lib.escape(typed) in key
    for j, colour in enumerate(colours):  # the grey, animals, the typed word's neighbours, the query
        assert f"background:{colour}" in key and html_lib.escape(scene.name(j)) in key
    # the points carry those very colours
    _plain, coloured = point_records(scene)
    assert {tuple(p["c"][:3]) for p in coloured} == {tuple(int(colours[j][k:k + 2], 16) for k in (1, 3, 5))
                                                    for j in (1, 2, 3)}
    by_trust = deck_legend(build_scene(proj, sample, tokens, trust, colour_by_trust=True))
    assert "linear-gradient" in by_trust and "listitem" not in by_trust and "0%" in by_trust and "100%" in by_trust
