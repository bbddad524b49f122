"""A 2-D map for any size, drawn by the project's own Canvas2D frame (``andrea_viz/ui/map_frame/``): what the
page sends it, built here without Streamlit.

The frame draws every point once into an offscreen raster (pixels written straight into an ``ImageData``), moves
and scales that bitmap while the pointer pans or zooms, and draws the points again when it rests; hover finds
the point under the pointer in a grid index; lines to a clicked point's true nearest neighbours and the cluster
labels are drawn over the raster, so a click that only changes the lines draws no point again.

Everything per point travels as raw little-endian arrays (Streamlit sends ``bytes`` arguments of a component as
they are, no base64 and no JSON): coordinates as float32 pairs, token ids as int32, a colour index and the trust
in percent (255: not scored) as uint8, and the tokens as one UTF-8 blob with int32 offsets, decoded one at a time
in the frame for what is hovered. The JSON part is small: the palette, the region labels with the zoom levels each is offered at, the
lines, the texts in the reader's language, and a fingerprint of the point arrays (the frame keeps its raster
while it does not change). 128,256 points with MiniLM's tokens come to 3.0 MiB
(``tests/unit/test_canvas_map.py``).

Tokens are untrusted text: the frame sets them with ``textContent`` only, never as markup.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from ..i18n import _
from ..maps.layout import Projection
from ..maps.sample import Sample
from ..maps.scene import Scene, build_scene
from .style import OTHER_GREY, entry_colours, hex_rgb, score_rgb

FRAME_HEIGHT = 640  # px: the map's height in the page
OTHER = tuple(hex_rgb(OTHER_GREY))  # the points of no group, drawn first
NOT_SCORED = 255  # trust byte of a point outside the scored sample
SHADES = 51  # colours of a score's scale (0, 2, ..., 100 %)
PLOTLY_FLUID_MAX = 10_000  # points: plotly's scattergl pans at about 7 frames/s at 30,000 in software GL (bench-map-view);
# 10,000 is a margin below that, not a measured crossing


def _colours(scene: Scene) -> tuple[np.ndarray, list[dict]]:
    """(a palette index per point, the palette in drawing order: its entries' rgb, square size in px and, for word
    groups, the legend's name in the reader's language: untrusted text, drawn on the canvas as text)."""
    if scene.by_score:
        s = np.asarray(scene.values, np.float64)
        s = np.nan_to_num(s, nan=0.0).clip(0, 1)
        index = np.rint(s * (SHADES - 1)).astype(np.uint8)
        palette = [{"rgb": score_rgb(v), "size": 3} for v in np.linspace(0, 1, SHADES)]
        return index, palette
    colours = entry_colours(scene.slots)
    sizes = [2, *[4] * len(scene.word_groups), 7]
    return scene.entry, [{"rgb": hex_rgb(c), "size": size, "name": scene.names[j]}
                         for j, (c, size) in enumerate(zip(colours, sizes, strict=True))]


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text).encode("utf-8")


def _token_blob(tokens: list[str]) -> tuple[bytes, bytes]:
    """(the tokens' UTF-8 bytes one after another, int32 offsets (N + 1,) into them). A lone surrogate, which
    UTF-8 cannot hold, is written as U+FFFD."""
    parts = [_utf8(t) for t in tokens]
    offsets = np.zeros(len(parts) + 1, "<i4")
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    return b"".join(parts), offsets.tobytes()


def canvas_map_payload(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray,
                       colour_by_trust: bool = False, zoom_labels: list | None = None, lines_from: int | None = None,
                       lines_to: np.ndarray | None = None, shade: np.ndarray | None = None,
                       height: int = FRAME_HEIGHT) -> dict:
    """``scene_payload`` of the scene these make (``maps.scene.build_scene``). ``zoom_labels``: (x, y, group, level,
    until) from ``clusters.zoom_labels``; ``lines_from``/``lines_to``: positions in the sample of a chosen
    point and of its true nearest neighbours; ``shade``: values in [0, 1], 1 good, one per point (``map_colours``)."""
    return scene_payload(build_scene(proj, sample, tokens, trust, colour_by_trust=colour_by_trust, shade=shade,
                                     zoom_labels=zoom_labels, lines_from=lines_from, lines_to=lines_to), height)


def scene_payload(scene: Scene, height: int = FRAME_HEIGHT) -> dict:
    """The frame's arguments for a scene (see the module's docstring): ``bytes`` values travel raw, the rest as JSON;
    the scene's labels by zoom (``Scene.zoom_labels``), each with the zoom levels it is offered at."""
    if scene.dims != 2:
        raise ValueError("the canvas map draws 2-D maps")
    xy = np.ascontiguousarray(scene.coords[:, :2], "<f4")
    ids = np.ascontiguousarray(scene.ids, "<i4")
    colour, palette = _colours(scene)
    t = np.asarray(scene.trust, np.float64)
    kept = np.where(np.isnan(t), NOT_SCORED, np.rint(100 * np.nan_to_num(t)).clip(0, 100)).astype(np.uint8)
    blob, offsets = _token_blob(scene.tokens)
    arrays = {"xy": xy.tobytes(), "ids": ids.tobytes(), "colour": colour.tobytes(), "kept": kept.tobytes(),
              "tokens": blob, "offsets": offsets}
    fingerprint = hashlib.blake2b(digest_size=12)
    for name in ("xy", "ids", "colour", "offsets", "tokens"):
        fingerprint.update(arrays[name])
    fingerprint.update(json.dumps(palette).encode())
    payload = {
        **arrays,
        "n": len(scene), "points": fingerprint.hexdigest(), "palette": palette, "height": int(height),
        "lang": scene.lang,
        "labels": [{"x": lab.x, "y": lab.y, "text": lab.text, "level": lab.level, "until": lab.until,
                    "size": int(lab.cluster.size)} for lab in scene.zoom_labels],
        "lines": None,
        "text": {"kept": _("neighbours kept"), "unscored": _("not in the scored sample"),
                 "hint": _("Drag to pan, wheel to zoom, click a point for its true 10 nearest."),
                 "reset": _("Whole map"), **keyboard_texts(len(scene))},
    }
    return with_lines(payload, scene.lines_from, scene.lines_to)


def keyboard_texts(n: int) -> dict[str, str]:
    """What the frame says to a keyboard and a screen reader, in the reader's language: the canvas's name, the
    keys' hint, and the sentences of its live region as templates whose ``{token}``, ``{id}``, ``{kept}``,
    ``{region}``, ``{rank}``, ``{count}``, ``{origin}``, ``{point}`` and ``{typed}`` the frame fills in (it never
    builds a sentence of its own). ``{kept}`` is how many of a point's 10 nearest the map kept (its trust times
    10), ``{id}`` the token id written plainly."""
    return {
        "label": _("Map of {n:,} tokens. Arrow keys move to the nearest point in that direction, Enter draws lines to "
                   "its true 10 nearest, Page Down and Page Up walk them, typing a word jumps to its token.", n=n),
        "keys": _("Arrows: move. Enter: lines. Page Down/Up: walk the 10 nearest. Type a word to jump to it."),
        "point": _("{token}, id {id}, {kept} of its 10 nearest kept here, region: {region}"),
        "point_plain": _("{token}, id {id}, {kept} of its 10 nearest kept here"),
        "point_unscored": _("{token}, id {id}, not in the scored sample, region: {region}"),
        "point_unscored_plain": _("{token}, id {id}, not in the scored sample"),
        "nearest": _("nearest {rank} of {count} to {origin}: {point}"),
        "lines": _("Lines drawn from {token} to its {count} true nearest; Page Down walks them."),
        "no_lines": _("Press Enter first: it draws the lines from {token} to its true 10 nearest."),
        "nothing": _("No point in that direction."),
        "no_match": _("No token starts with “{typed}”."),
    }


def payload_bytes(payload: dict) -> int:
    """The bytes the page receives for the map: the raw arrays, and the rest as the JSON Streamlit writes."""
    raw = sum(len(v) for v in payload.values() if isinstance(v, bytes))
    return raw + len(json.dumps({k: v for k, v in payload.items() if not isinstance(v, bytes)}))


def with_lines(payload: dict, lines_from: int | None, lines_to: np.ndarray | None) -> dict:
    """The same payload with the lines from point ``lines_from`` to ``lines_to`` (positions in the sample), or
    none; the point arrays are the same objects, so the frame keeps its raster."""
    lines = None if lines_from is None or lines_to is None else {"from": int(lines_from), "to": [int(j) for j in lines_to]}
    return {**payload, "lines": lines}


def default_renderer(points: int, dims: int) -> str:
    """What draws a map of ``points`` points by default: plotly while it pans fluidly (and for every 3-D map),
    the canvas map above ``PLOTLY_FLUID_MAX``."""
    return "canvas" if dims == 2 and points > PLOTLY_FLUID_MAX else "plotly"
