"""A 2-D map drawn by deck.gl (pydeck) instead of plotly: every point in one ScatterplotLayer on an
OrthographicView, a tooltip with the token, id and trust, region labels in a TextLayer, and lines from a chosen
point to its true nearest neighbours in a LineLayer.

Each point travels as one short record: coordinates rounded to 4 significant figures (finer than a pixel
of the map), its token, id, colour and trust in percent. Tokens are untrusted text: the tooltip is pydeck's
``text`` form, which Streamlit's deck.gl chart fills in and sets with ``innerText`` (its ``html`` form would be
markup; it is never used).
"""

from __future__ import annotations

import numpy as np
import pydeck as pdk

from ..i18n import _, language
from ..projection import Projection, Sample
from .style import PALETTE

GREY = [154, 154, 154, 110]
QUERY = [214, 39, 40, 255]


def _rgb(hex_colour: str, alpha: int = 230) -> list[int]:
    h = hex_colour.lstrip("#")
    return [int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), alpha]


def point_records(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray,
                  colour_by_trust: bool = False) -> list[dict]:
    """One small record per point: x, y, token t, id i, trust k (percent, -1 where not scored), colour c."""
    groups = list(dict.fromkeys(g for g in sample.groups if g not in ("other", "query")))
    colours = {g: _rgb(PALETTE[j % len(PALETTE)]) for j, g in enumerate(groups)}
    colours.update({"other": GREY, "query": QUERY})
    out = []
    for k, (i, g) in enumerate(zip(sample.ids.tolist(), sample.groups, strict=True)):
        share = trust[k]
        if colour_by_trust:
            s = 0.0 if np.isnan(share) else float(share)
            colour = [int(255 * (1 - s)), int(200 * s), 60, 200]
        else:
            colour = colours[g]
        out.append({"x": float(f"{proj.coords[k, 0]:.4g}"), "y": float(f"{proj.coords[k, 1]:.4g}"), "t": tokens[k],
                    "i": i, "k": -1 if np.isnan(share) else int(round(100 * float(share))), "c": colour})
    return out


def deck_map(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray, colour_by_trust: bool = False,
             labels: list | None = None, lines_from: int | None = None, lines_to: np.ndarray | None = None) -> pdk.Deck:
    """The map as a pydeck Deck (2-D only): pan with the mouse, zoom with the wheel, hover for a token."""
    if proj.coords.shape[1] != 2:
        raise ValueError("deck_map draws 2-D maps")
    xy = proj.coords
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = float(max(hi - lo)) or 1.0
    zoom = float(np.log2(600 / span))  # the whole map in about 600 pixels
    layers = [pdk.Layer("ScatterplotLayer", point_records(proj, sample, tokens, trust, colour_by_trust), id="points",
                        get_position=["x", "y"], get_fill_color="c", get_radius=2, radius_units="'pixels'",
                        radius_min_pixels=1.5, pickable=True, auto_highlight=True)]
    if lines_from is not None and lines_to is not None and len(lines_to):
        a = xy[lines_from]
        layers.append(pdk.Layer("LineLayer", [{"s": [float(a[0]), float(a[1])], "e": [float(xy[j, 0]), float(xy[j, 1])]}
                                              for j in lines_to], id="nearest", get_source_position="s",
                                get_target_position="e", get_color=[0, 0, 0, 220], get_width=1.5))
    if labels:
        layers.append(pdk.Layer("TextLayer", [{"x": x, "y": y, "text": c.label(language())} for x, y, c in labels],
                                id="labels", get_position=["x", "y"], get_text="text", get_size=12,
                                get_color=[20, 20, 20, 255], background=True, get_background_color=[255, 255, 255, 160],
                                character_set="auto", get_pixel_offset=[0, -12]))
    kept = _("neighbours kept")
    return pdk.Deck(layers=layers, views=[pdk.View(type="OrthographicView", controller=True)],
                    initial_view_state=pdk.ViewState(target=[float((lo[0] + hi[0]) / 2), float((lo[1] + hi[1]) / 2), 0],
                                                     zoom=zoom),
                    tooltip={"text": "{t} #{i}\n" + kept + ": {k}%"}, map_provider=None, map_style=None)
