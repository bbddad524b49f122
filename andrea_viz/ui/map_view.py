"""The canvas map (``plots.canvas_map``) on a page: a bidirectional component declared from the static folder
``map_frame/`` beside this file (plain HTML, CSS and JS, no build step), which returns the id of a clicked point."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

FRAME = Path(__file__).with_name("map_frame")
_frame = components.declare_component("canvas_map", path=str(FRAME))


def canvas_clicked_id(key: str) -> int | None:
    """The token id of the point last clicked on the canvas map of widget ``key``, or None before any click:
    readable in ``on_click``, before the script runs again."""
    value = st.session_state.get(key)
    return int(value["id"]) if isinstance(value, dict) and "id" in value else None


def canvas_map(payload: dict, key: str, on_click: Callable[[], None] | None = None) -> int | None:
    """Draw the map of ``payload`` (``plots.canvas_map.canvas_map_payload``); the token id of the point last
    clicked on it, or None before any click. ``on_click`` runs before the rerun a click causes (read the id with
    ``canvas_clicked_id(key)``), so that one run can draw the lines. A rerun that changes only the lines or the labels
    keeps the frame's point raster (its fingerprint is unchanged)."""
    _frame(key=key, default=None, on_change=on_click, **payload)
    return canvas_clicked_id(key)
