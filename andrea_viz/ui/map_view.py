"""The canvas map (``plots.canvas_map``) on a page: a bidirectional component declared from the static folder
``map_frame/`` beside this file (plain HTML, CSS and JS, no build step), which returns the id of a clicked point."""

from __future__ import annotations

from pathlib import Path

import streamlit.components.v1 as components

FRAME = Path(__file__).with_name("map_frame")
_frame = components.declare_component("canvas_map", path=str(FRAME))


def canvas_map(payload: dict, key: str) -> int | None:
    """Draw the map of ``payload`` (``plots.canvas_map.canvas_map_payload``); the token id of the point last
    clicked on it, or None before any click. A rerun that changes only the lines or the labels keeps the frame's
    point raster (its fingerprint is unchanged)."""
    value = _frame(key=key, default=None, **payload)
    return int(value["id"]) if isinstance(value, dict) and "id" in value else None
