"""A 2-D map drawn by deck.gl (pydeck) instead of plotly: every point in one ScatterplotLayer on an
OrthographicView, a tooltip with the token, id and trust, region labels in a TextLayer, and lines from a chosen
point to its true nearest neighbours in a LineLayer.

Each point travels as one short record, in JSON without indentation (pydeck indents by 2 spaces, and Streamlit
sends what pydeck writes: 6.9 MB instead of 2.3 MB for MiniLM's 30,522 points): coordinates rounded to 4
significant figures (finer than a pixel of the map), its token, id and trust in percent; the grey points
of no group carry no colour of their own. Tokens are untrusted text: the tooltip is pydeck's
``text`` form, which Streamlit's deck.gl chart fills in and sets with ``innerText`` (its ``html`` form would be
markup; it is never used).

Streamlit's deck.gl chart passes the whole deck, the layers' data included, through ``@deck.gl/json``'s converter,
which reads a string value starting with ``@@=`` as an expression (compiled into a function), one starting with
``@@#`` as a constant or enumeration (an unknown one throws, and the chart becomes a JavaScript stack trace), and
an object with a ``@@type`` or ``@@function`` key as a class or function to call. Every string this module puts
into the data (tokens, region labels) goes through ``inert``: one starting with ``@@`` gets an invisible WORD
JOINER (U+2060) in front, so no string of ours starts with ``@@`` and the converter leaves it as it is; the
records' keys are this module's own. The tooltip shows the token as typed (the joiner has no width).
"""

from __future__ import annotations

import html
import json

import numpy as np
import pydeck as pdk
from pydeck.bindings.json_tools import default_serialize

from ..i18n import _, num
from ..maps.clusters import MAP_LABELS
from ..maps.layout import Projection
from ..maps.sample import Sample
from ..maps.scene import Scene, build_scene
from .style import OTHER_GREY, QUERY_RGB, entry_colours, hex_rgb, score_rgb, swatch

GREY = [*hex_rgb(OTHER_GREY), 110]
JOINER = "\u2060"  # WORD JOINER: invisible, no width, and not "@"
QUERY = [*QUERY_RGB, 255]


def inert(text: str) -> str:
    """``text`` as deck.gl's JSON converter leaves it: a string starting with ``@@`` (``@@=`` expression, ``@@#``
    constant, ``@@type`` / ``@@function``) gets the invisible ``JOINER`` in front; any other string is unchanged."""
    return JOINER + text if text.startswith("@@") else text


def point_records(scene: Scene) -> tuple[list[dict], list[dict]]:
    """Two lists of small records (x, y, token t, id i, trust k in percent or -1 where not scored): the grey
    'other' points, drawn in one colour and so without one of their own, and the points with a colour c of
    their own (the query, the word groups; every point when coloured by trust, red = none of its 10 nearest
    kept, green = all; likewise by a score, values in [0, 1] with 1 good, from ``map_colours``)."""
    colours = entry_colours(scene.slots)
    rgba = [GREY, *([*hex_rgb(c), 230] for c in colours[1:-1]), QUERY]
    coords, trust, values = scene.coords, scene.trust, scene.values
    plain, coloured = [], []
    for k, (i, j) in enumerate(zip(scene.ids.tolist(), scene.entry.tolist(), strict=True)):
        share = trust[k]
        rec = {"x": float(f"{coords[k, 0]:.4g}"), "y": float(f"{coords[k, 1]:.4g}"), "t": inert(scene.tokens[k]),
               "i": i, "k": -1 if np.isnan(share) else int(round(100 * float(share)))}
        if values is not None:
            s = values[k]
            s = 0.0 if np.isnan(s) else float(s)
            coloured.append({**rec, "c": [*score_rgb(s), 200]})
        elif j == 0:
            plain.append(rec)
        else:
            coloured.append({**rec, "c": rgba[j]})
    return plain, coloured


class CompactDeck(pdk.Deck):
    """pydeck's Deck, its JSON written without indentation."""

    def to_json(self) -> str:
        return json.dumps(self, sort_keys=True, default=default_serialize, separators=(",", ":"))


def deck_map(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray, colour_by_trust: bool = False,
             labels: list | None = None, lines_from: int | None = None, lines_to: np.ndarray | None = None,
             shade: np.ndarray | None = None) -> CompactDeck:
    """``scene_deck`` of the scene these make (``maps.scene.build_scene``)."""
    return scene_deck(build_scene(proj, sample, tokens, trust, colour_by_trust=colour_by_trust, shade=shade,
                                  labels=labels, lines_from=lines_from, lines_to=lines_to))


def scene_deck(scene: Scene) -> CompactDeck:
    """The map as a pydeck Deck (2-D only): pan with the mouse, zoom with the wheel, hover for a token; the largest
    regions' labels (``MAP_LABELS``)."""
    if scene.dims != 2:
        raise ValueError("deck_map draws 2-D maps")
    xy = scene.coords
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = float(max(hi - lo)) or 1.0
    zoom = float(np.log2(600 / span))  # the whole map in about 600 pixels
    plain, coloured = point_records(scene)
    common = {"get_position": ["x", "y"], "radius_units": "'pixels'", "pickable": True, "auto_highlight": True}
    layers = [pdk.Layer("ScatterplotLayer", plain, id="points", get_fill_color=GREY, get_radius=2,
                        radius_min_pixels=1.5, **common),
              pdk.Layer("ScatterplotLayer", coloured, id="marked", get_fill_color="c", get_radius=4, **common)]
    if scene.has_lines:
        a = xy[scene.lines_from]
        layers.append(pdk.Layer("LineLayer", [{"s": [float(a[0]), float(a[1])], "e": [float(xy[j, 0]), float(xy[j, 1])]}
                                              for j in scene.lines_to], id="nearest", get_source_position="s",
                                get_target_position="e", get_color=[0, 0, 0, 220], get_width=1.5))
    if scene.labels:
        layers.append(pdk.Layer("TextLayer", [{"x": lab.x, "y": lab.y, "text": inert(lab.text)}
                                              for lab in scene.labels[:MAP_LABELS]],
                                id="labels", get_position=["x", "y"], get_text="text", get_size=12,
                                get_color=[20, 20, 20, 255], background=True, get_background_color=[255, 255, 255, 160],
                                character_set="'auto'", get_pixel_offset=[0, -12]))
    kept = _("neighbours kept")
    return CompactDeck(layers=layers, views=[pdk.View(type="OrthographicView", controller=True, flip_y=False)],
                    initial_view_state=pdk.ViewState(target=[float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2), 0],
                                                     zoom=zoom),
                    tooltip={"text": "{t} #{i}\n" + kept + ": {k}%"}, map_provider=None, map_style=None)


def deck_legend(scene: Scene) -> str:
    """The deck.gl map's key, in HTML for ``st.html`` under the map (deck.gl draws none): by group, a swatch and
    the name of each colour the map shows (the grey of no group, each word group, the query), names escaped (a
    group's name holds the typed word); by a score, its name and a strip from red to green with the words at its
    two ends."""
    if scene.by_score:
        name = _("neighbours kept") if scene.scale is None else scene.scale
        low, high = scene.ends if scene.ends is not None else (num(0.0, ".0%"), num(1.0, ".0%"))
        stops = ", ".join(f"rgb({r},{g},{b})" for r, g, b in (score_rgb(v) for v in (0.0, 0.5, 1.0)))
        strip = (f'<span aria-hidden="true" style="display:inline-block;width:10em;height:0.8em;border-radius:2px;'
                 f'vertical-align:middle;background:linear-gradient(to right, {stops})"></span>')
        body = (f"<b>{html.escape(name)}</b>&ensp;{html.escape(low)}&ensp;{strip}&ensp;{html.escape(high)}")
    else:
        colours = entry_colours(scene.slots)
        shown = sorted(set(scene.entry.tolist()))
        body = "&emsp;".join(f'<span role="listitem" style="white-space:nowrap">{swatch(colours[j])}&nbsp;'
                             f"{html.escape(scene.name(j))}</span>" for j in shown)
        body = f'<span role="list">{body}</span>'
    return f'<div class="map-legend" style="font-size:0.9rem;line-height:1.9">{body}</div>'
