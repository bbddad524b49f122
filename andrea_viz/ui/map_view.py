"""The canvas map (``plots.canvas_map``) on a page: a bidirectional component declared from the static folder
``map_frame/`` beside this file (plain HTML, CSS and JS, no build step), which returns the id of a clicked point."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st
import streamlit.components.v1 as components

FRAME = Path(__file__).with_name("map_frame")
_frame = components.declare_component("canvas_map", path=str(FRAME))
_lines = components.declare_component("canvas_map_lines", path=str(FRAME))  # the same page, in its lines mode
LINES_BOX = "canvas-map-lines"  # the container of the lines' frame, hidden


def canvas_clicked_id(key: str) -> int | None:
    """The token id of the point last clicked on the canvas map of widget ``key``, or None before any click:
    readable in ``on_click``, before the script runs again."""
    value = st.session_state.get(key)
    return int(value["id"]) if isinstance(value, dict) and "id" in value else None


def canvas_map(payload: dict, key: str, on_click: Callable[[], None] | None = None) -> int | None:
    """Draw the map of ``payload`` (``plots.canvas_map.canvas_map_payload``); the token id of the point last
    clicked on it, or None before any click. ``on_click`` runs before the rerun a click causes (read the id with
    ``canvas_clicked_id(key)``), so that one run can draw the lines. A rerun that changes only the lines or the labels
    keeps the frame's point raster (its fingerprint is unchanged).

    The lines go to a second component on the same page (the same frame in its lines mode, with no height), which
    hands them to the map's frame: a click's rerun then sends the map's message unchanged, as a reference that
    Streamlit's message cache resolves in the browser (at 128k points 3.4 MB were sent again on every click), and
    only the lines."""
    with st.container(key=LINES_BOX):  # not shown: its frame only hands over the lines (and an empty frame took 26 px)
        st.html(f"<style>.st-key-{LINES_BOX} {{display: none}}</style>")
        _lines(key=f"{key}:lines", default=None, mode="lines", target=payload["points"], lines=payload.get("lines"),
               lang=payload.get("lang"))
    points = {k: v for k, v in payload.items() if k != "lines"}  # after the lines: they reach the browser first
    _frame(key=key, default=None, on_change=on_click, **points)
    return canvas_clicked_id(key)
