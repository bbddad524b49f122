"""The canvas map's data: every point's coordinates, id, trust and token as they were, the zoom levels each label is offered at,
and the page's share of a 128,256-point map within 8 MB."""

import re

import numpy as np

from andrea_viz.maps.clusters import Cluster
from andrea_viz.plots.canvas_map import (
    NOT_SCORED, PLOTLY_FLUID_MAX, canvas_map_payload, default_renderer, payload_bytes, with_lines,
)
from andrea_viz.i18n import set_language, translate
from andrea_viz.maps.layout import Projection
from andrea_viz.maps.sample import Sample

PAYLOAD_MAX = 8 * 2**20  # bytes: the page's data for one map


def _map(n: int, groups=None, ids=None):
    rng = np.random.default_rng(0)
    proj = Projection((rng.standard_normal((n, 2)) * 5).astype(np.float32), "umap", None, 0.0)
    trust = np.full(n, np.nan)
    trust[: min(n, 5000)] = rng.random(min(n, 5000))
    return proj, Sample(np.arange(n) if ids is None else ids, tuple(groups or ("other",) * n)), trust


def _tokens(payload: dict) -> list[str]:
    """The tokens as the frame reads them: UTF-8 slices between int32 offsets."""
    off = np.frombuffer(payload["offsets"], "<i4")
    blob = payload["tokens"]
    return [blob[off[k]:off[k + 1]].decode("utf-8") for k in range(off.size - 1)]


def test_a_map_of_128256_real_tokens_fits_in_8_mb(minilm):
    n = 128_256
    tokens = [minilm.token(i % minilm.vocab_size) for i in range(n)]
    proj, sample, trust = _map(n)
    payload = canvas_map_payload(proj, sample, tokens, trust)
    size = payload_bytes(payload)
    print(f"canvas payload, {n:,} points: {size / 2**20:.2f} MiB")
    assert size <= PAYLOAD_MAX
    assert np.array_equal(np.frombuffer(payload["xy"], "<f4").reshape(n, 2), proj.coords)  # float32, exact
    assert np.array_equal(np.frombuffer(payload["ids"], "<i4"), sample.ids)
    assert _tokens(payload)[::4999] == tokens[::4999]


def test_a_128256_point_map_of_long_foreign_tokens_still_fits():
    """Tokens of 8 CJK characters each (24 UTF-8 bytes, longer than any Llama-3 average) and ids past 65,535."""
    n = 128_256
    rng = np.random.default_rng(1)
    tokens = ["".join(chr(0x4E00 + c) for c in rng.integers(0, 20_000, 8)) for _ in range(n)]
    proj, sample, trust = _map(n, ids=np.arange(n) + 100_000)
    payload = canvas_map_payload(proj, sample, tokens, trust)
    assert payload_bytes(payload) <= PAYLOAD_MAX
    assert _tokens(payload)[-1] == tokens[-1] and np.frombuffer(payload["ids"], "<i4")[-1] == 100_000 + n - 1


def test_hostile_tokens_and_trust_travel_as_they_are():
    tokens = ["</script>", "<b>x</b>", "{t}", "cat", "", "\x00", "a\ud800b", *[f"w{i}" for i in range(43)]]
    groups = ["other"] * 50
    groups[3], groups[5] = "animals", "query"
    proj, sample, trust = _map(50, groups)
    trust[1] = np.nan
    p = canvas_map_payload(proj, sample, tokens, trust)
    got = _tokens(p)
    assert got[:6] == tokens[:6] and got[6] == "a\ufffdb"  # a lone surrogate cannot be UTF-8: U+FFFD
    kept = np.frombuffer(p["kept"], np.uint8)
    assert kept[1] == NOT_SCORED and kept[0] == round(100 * trust[0]) and kept[10] == round(100 * trust[10])
    colour = np.frombuffer(p["colour"], np.uint8)
    palette = p["palette"]
    assert colour[0] == 0 and colour[5] == len(palette) - 1 and 0 < colour[3] < colour[5]  # drawn last: the query
    assert palette[colour[5]]["size"] > palette[colour[3]]["size"] > palette[0]["size"]


def test_trust_colours_run_from_red_to_green():
    proj, sample, trust = _map(10)
    trust[:] = np.linspace(0, 1, 10)
    p = canvas_map_payload(proj, sample, [f"t{i}" for i in range(10)], trust, colour_by_trust=True)
    rgb = [p["palette"][c]["rgb"] for c in np.frombuffer(p["colour"], np.uint8)]
    assert rgb[0][:2] == [255, 0] and rgb[-1][:2] == [0, 200]


def test_each_label_goes_with_the_zoom_levels_it_is_offered_at():
    proj, sample, trust = _map(30)
    zoom = [(float(k), 0.0, Cluster(k, 100 - k, (), (f"m{k}",), (k,)), k % 3, None if k % 3 == 2 else k % 3 + 1)
            for k in range(20)]
    p = canvas_map_payload(proj, sample, [f"t{i}" for i in range(30)], trust, zoom_labels=zoom)
    assert [(L["text"], L["level"], L["until"], L["size"]) for L in p["labels"]] == \
        [(f"m{k}", k % 3, None if k % 3 == 2 else k % 3 + 1, 100 - k) for k in range(20)]
    assert canvas_map_payload(proj, sample, [f"t{i}" for i in range(30)], trust)["labels"] == []


def test_lines_change_without_changing_the_points():
    proj, sample, trust = _map(30)
    p = canvas_map_payload(proj, sample, [f"t{i}" for i in range(30)], trust)
    q = with_lines(p, 3, np.array([4, 5, 6]))
    assert q["lines"] == {"from": 3, "to": [4, 5, 6]} and q["points"] == p["points"] and q["xy"] is p["xy"]
    moved = Projection(proj.coords + 1, "umap", None, 0.0)
    assert canvas_map_payload(moved, sample, [f"t{i}" for i in range(30)], trust)["points"] != p["points"]


def test_the_canvas_map_is_the_default_above_plotlys_fluid_size_and_only_in_2d():
    assert default_renderer(PLOTLY_FLUID_MAX, 2) == "plotly"
    assert default_renderer(PLOTLY_FLUID_MAX + 1, 2) == "canvas"
    assert default_renderer(128_256, 3) == "plotly"


def test_the_keyboards_sentences_come_in_the_readers_language_with_the_frames_placeholders():
    """The frame fills {token}, {id}, ... into the sentences the page sends; it builds none itself (map_frame/map.js)."""
    POINT = "{token}, id {id}, {kept} of its 10 nearest kept here, region: {region}"
    proj, sample, trust = _map(30)
    for lang in ("en", "nl", "pt-BR", "zh-TW"):
        set_language(lang)
        text = canvas_map_payload(proj, sample, [f"t{i}" for i in range(30)], trust)["text"]
        assert text["point"] == translate(POINT, lang)
        assert set(re.findall(r"\{(\w+)\}", text["point"])) == {"token", "id", "kept", "region"}
        assert set(re.findall(r"\{(\w+)\}", text["nearest"])) == {"rank", "count", "origin", "point"}
        assert (text["point"] == POINT) == (lang == "en")  # translated in every other language
        assert "30" in text["label"] and "{" not in text["label"] and text["keys"]
        assert all(isinstance(v, str) and v for v in text.values())
    set_language("en")
