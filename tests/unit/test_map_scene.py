"""One scene per map view (``maps.scene``): the three renderers (plotly, the canvas frame, deck.gl) drawn from the
same scene agree on each point's group, colour and label, and on the regions' labels (the canvas's by zoom), in every
language; the reference is worked out here by hand from the sample, not by the scene."""

import json

import numpy as np
import pytest

from andrea_viz.i18n import set_language
from andrea_viz.i18n import Msg
from andrea_viz.maps.clusters import CLASS_LABELS, WORD_CLASS, Cluster
from andrea_viz.maps.layout import Projection
from andrea_viz.maps.sample import Sample, group_label
from andrea_viz.maps.scene import build_scene
from andrea_viz.plots import deck_map as deck_module
from andrea_viz.plots.canvas_map import SHADES, scene_payload
from andrea_viz.plots.deck_map import scene_deck
from andrea_viz.plots.projection import scene_scatter
from andrea_viz.plots.style import OTHER_GREY, PALETTE, RED, hex_rgb, score_rgb
from andrea_viz.safe_text import plot

N = 400
# groups in an order that is neither alphabetical nor the palette's: each gets its own colour on every renderer
GROUPS = ("neighbour of c<a>t", "numbers", "animals", "included", "colours")
# the palette's place of each named group, written out by hand: the first "neighbour of …" group takes the first
PLACE = {"animals": 1, "weekdays": 2, "months": 3, "numbers": 4, "colours": 5, "countries": 6, "family": 7,
         "people": 8, "included": 9}


def _map():
    rng = np.random.default_rng(7)
    coords = (rng.standard_normal((N, 2)) * 5).astype(np.float32)
    groups = ["other"] * N
    for j, g in enumerate(GROUPS):
        for k in range(10 + 6 * j, 14 + 6 * j):
            groups[k] = g
    groups[2] = "query"
    trust = np.full(N, np.nan)
    trust[:300] = rng.random(300)
    tokens = [f"w{i}" if i % 5 else f"<b>{i}</b>" for i in range(N)]
    # three regions far apart (none hidden by another on plotly's map), labelled by a trait and their medoids
    corners = [(-40.0, -40.0), (40.0, 40.0), (-40.0, 40.0)]
    for k, (x, y) in enumerate(corners):
        coords[300 + k] = (x, y)
    classes = ("animals", "numbers", "colours")
    labels = [(x, y, Cluster(k, 50 - k, (Msg(WORD_CLASS, name=Msg(CLASS_LABELS[classes[k]])),), (f"m{k}", "x"),
                             (300 + k,))) for k, (x, y) in enumerate(corners)]
    return Projection(coords, "umap", None, 0.0), Sample(np.arange(N) * 3 + 1, tuple(groups)), tokens, trust, labels


def _expected(groups) -> dict[int, tuple[str, list[int]]]:
    """The slow reference: each point's group and rgb, by walking the sample's groups in order (a named group at its
    place in PLACE, the first "neighbour of …" group at 0, other groups after the named ones as they come)."""
    unnamed: list[str] = []
    for g in groups:
        if g not in ("other", "query") and g not in PLACE and g not in unnamed:
            unnamed.append(g)
    out = {}
    for k, g in enumerate(groups):
        if g in ("other", "query"):
            colour = OTHER_GREY if g == "other" else RED
        else:
            j = unnamed.index(g) if g in unnamed else None
            place = PLACE[g] if j is None else 0 if j == 0 and g.startswith("neighbour of ") else len(PLACE) + j
            colour = PALETTE[place % len(PALETTE)]
        out[k] = (g, hex_rgb(colour))
    return out


def _plotly(fig, ids) -> dict[int, tuple[str, list[int]]]:
    """Each point's (legend name, rgb) on the plotly map, by position in the sample."""
    where = {int(i): k for k, i in enumerate(ids)}
    out = {}
    for trace in fig.data:
        if trace.customdata is None:
            continue
        for i in np.asarray(trace.customdata).tolist():
            out[where[int(i)]] = (trace.name, hex_rgb(trace.marker.color))
    return out


def _canvas(payload) -> dict[int, tuple[str, list[int]]]:
    colour = np.frombuffer(payload["colour"], np.uint8)
    return {k: (payload["palette"][c]["name"], payload["palette"][c]["rgb"]) for k, c in enumerate(colour)}


def _deck(deck, ids) -> dict[int, list[int]]:
    where = {int(i): k for k, i in enumerate(ids)}
    layers = {layer["id"]: layer for layer in json.loads(deck.to_json())["layers"]}
    out = {where[p["i"]]: deck_module.GREY[:3] for p in layers["points"]["data"]}
    out.update({where[p["i"]]: p["c"][:3] for p in layers["marked"]["data"]})
    return out, layers


@pytest.mark.parametrize("lang", ["en", "nl", "zh-TW"])
def test_the_three_renderers_agree_on_each_points_group_colour_and_label(lang):
    set_language(lang)
    try:
        proj, sample, tokens, trust, labels = _map()
        zoom = [(x, y, c, k, None if k == 2 else k + 1) for k, (x, y, c) in enumerate(labels)]  # the canvas's by zoom
        scene = build_scene(proj, sample, tokens, trust, labels=labels, zoom_labels=zoom, lines_from=2,
                            lines_to=np.array([10, 11]))
        want = _expected(sample.groups)
        on_plotly = _plotly(scene_scatter(scene, "T"), sample.ids)
        on_canvas = _canvas(scene_payload(scene))
        on_deck, layers = _deck(scene_deck(scene), sample.ids)
        assert len(on_plotly) == len(on_canvas) == len(on_deck) == N
        for k in range(N):
            group, rgb = want[k]
            name = group_label(group)  # in the reader's language
            assert on_canvas[k] == (name, rgb), k
            assert on_plotly[k] == (group_label(group, escape=plot), rgb), k
            assert on_deck[k] == rgb, k
        assert "c&lt;a&gt;t" in on_plotly[10][0] and "c<a>t" in on_canvas[10][0]  # the typed word, made inert for plotly
        # the regions' labels, in the reader's language: plotly and deck.gl write the largest regions', the canvas each
        # by zoom (the same regions here), with the levels it is offered at
        texts = [c.label(lang) for _x, _y, c in labels]
        assert [a["text"] for a in scene_scatter(scene, "T").layout.annotations] == [plot(t) for t in texts]
        assert [(L["text"], L["level"], L["until"]) for L in scene_payload(scene)["labels"]] == \
            [(t, k, None if k == 2 else k + 1) for k, t in enumerate(texts)]
        assert [r["text"] for r in layers["labels"]["data"]] == texts
        assert (texts[0].startswith("word class: animals")) == (lang == "en")
    finally:
        set_language("en")


def test_a_group_keeps_its_colour_on_a_map_that_lacks_the_groups_before_it():
    """A map of another model (or another sample) without the query's neighbours and the animals: the numbers and the
    colours keep the colours they have on the first map, on every renderer (by index, each group took the colour of
    the one before it: the weekdays in the animals' orange)."""
    proj, sample, tokens, trust, _labels = _map()
    colours = {}
    for groups in (sample.groups, tuple("other" if g in ("neighbour of c<a>t", "animals") else g for g in sample.groups)):
        scene = build_scene(proj, Sample(sample.ids, groups), tokens, trust)
        on_plotly = _plotly(scene_scatter(scene, "T"), sample.ids)
        on_canvas = _canvas(scene_payload(scene))
        on_deck, _layers = _deck(scene_deck(scene), sample.ids)
        for k, g in enumerate(groups):
            if g in ("numbers", "colours"):
                assert on_plotly[k][1] == on_canvas[k][1] == on_deck[k]
                colours.setdefault(g, set()).add(tuple(on_deck[k]))
    assert colours == {"numbers": {tuple(hex_rgb(PALETTE[4]))}, "colours": {tuple(hex_rgb(PALETTE[5]))}}


def test_a_2d_maps_words_are_drawn_over_every_groups_markers():
    """Each group was one trace with its words, so a later group's dots covered an earlier group's words ("wolf",
    "monday" under other dots; the query's word under its own star): the words are one trace after every trace of
    markers, each over its own point at its point's marker size."""
    proj, sample, tokens, trust, _labels = _map()
    fig = scene_scatter(build_scene(proj, sample, tokens, trust), "T")
    marks = [k for k, t in enumerate(fig.data) if t.customdata is not None]
    (words,) = [k for k, t in enumerate(fig.data) if t.mode == "markers+text"]
    assert words > max(marks) and all(fig.data[k].mode == "markers" and fig.data[k].text is None for k in marks)
    w = fig.data[words]
    at = {plot(tokens[k]): k for k in range(N)}
    assert "w2" in w.text  # the query's word is written
    for x, y, text, size in zip(w.x, w.y, w.text, w.marker.size, strict=True):
        k = at[text]
        assert (x, y) == tuple(proj.coords[k]) and size == (14 if sample.groups[k] == "query" else 8)


def test_the_three_renderers_shade_each_point_by_the_same_value():
    proj, sample, tokens, trust, _labels = _map()
    values = np.linspace(0, 1, N)
    values[7] = np.nan
    scene = build_scene(proj, sample, tokens, trust, shade=values, scores=values * 3, scale="score")
    (trace,) = [t for t in scene_scatter(scene, "T").data if t.customdata is not None]
    assert np.array_equal(np.asarray(trace.marker.color), np.where(np.isnan(values), -0.1, values))
    canvas = np.frombuffer(scene_payload(scene)["colour"], np.uint8)
    on_deck, _layers = _deck(scene_deck(scene), sample.ids)
    for k in range(N):
        v = 0.0 if np.isnan(values[k]) else float(values[k])
        assert canvas[k] == round(v * (SHADES - 1)) and on_deck[k] == score_rgb(v)[:3], k


def test_a_class_has_one_colour_on_the_projection_and_on_grows_class_map():
    """Grow's class map coloured its classes in the order of their names (translated: one class, two colours in two
    languages) and Projection by group: weekdays were Projection's colours blue on one, animals its neighbours' on
    the other. Both now read each group's place in the palette from ``colour_slots``."""
    from andrea_viz.maps.sample import colour_slots
    from andrea_viz.plots.timeline import class_map

    proj, sample, tokens, trust, _labels = _map()
    groups = tuple("weekdays" if g == "numbers" else g for g in sample.groups)  # weekdays, animals, colours on the map
    on_map = {g: rgb for g, rgb in _expected(groups).values()}
    scene_colours = _plotly(scene_scatter(build_scene(proj, Sample(sample.ids, groups), tokens, trust), "T"), sample.ids)
    assert {scene_colours[k][1] == on_map[g] for k, g in enumerate(groups)} == {True}
    keys = ["weekdays", "colours", "animals", "foods"]  # the class map's own classes, in another order
    names = {"weekdays": "weekdagen", "colours": "kleuren", "animals": "dieren", "foods": "eten"}  # as labelled in nl
    slots = {names[g]: s for g, s in zip(keys, colour_slots(keys), strict=True)}
    rng = np.random.default_rng(1)
    fig = class_map(rng.standard_normal((2, 8, 2)), [0, 600], [f"w{i}" for i in range(8)],
                    [names[g] for g in keys for _ in range(2)], np.array([0.5, 0.25]), 600, slots)
    drawn = {t.name: hex_rgb(t.marker.color) for t in fig.data if t.mode == "markers"}
    for g in ("weekdays", "colours", "animals"):
        assert drawn[names[g]] == on_map[g], g
    assert drawn["eten"] == hex_rgb(PALETTE[(1 + 10) % len(PALETTE)])  # foods: its own place after the map's groups
