"""The Streamlit script that ``bench-map-view`` serves: one synthetic map (``bench.map_view.synthetic_map``) drawn by
the renderer named in the address, ``?renderer=plotly|deck|canvas|none&n=N`` (none: the page without a map, for the
bytes every page costs), or ``?renderer=saved``: the canvas map the bench saved in the folder ``$ANDREA_VIZ_BENCH_MAP``
names (``bench.map_view.save_payload``). Run as a script, so its imports are absolute."""

import os
from pathlib import Path

import numpy as np
import streamlit as st
import torch  # noqa: F401 (loaded before any click is timed: a server drawing a whole large map has loaded it already)

from andrea_viz.bench.map_view import SAVED, load_payload, synthetic_map, synthetic_model
from andrea_viz.geometry import nearest_of, ready_to_search
from andrea_viz.plots.canvas_map import canvas_map_payload, with_lines
from andrea_viz.plots.deck_map import deck_map
from andrea_viz.plots.projection import projection_scatter
from andrea_viz.ui import url
from andrea_viz.ui.map_view import canvas_clicked_id, canvas_map


@st.cache_resource
def _built(renderer: str, n: int):
    proj, sample, tokens, trust = synthetic_map(n)
    if renderer == "plotly":
        fig = projection_scatter(proj, sample, tokens, trust, f"{n:,} points")
        return fig.update_layout(dragmode="pan")  # a drag pans, as on the other two (plotly's own default draws a zoom box)
    if renderer == "deck":
        return deck_map(proj, sample, tokens, trust)
    return canvas_map_payload(proj, sample, tokens, trust)


@st.cache_resource
def _saved() -> dict:  # the map bench-map --planted saved, from the folder the bench named in the environment
    return load_payload(Path(os.environ[SAVED]))


renderer = url.read("renderer", "none", allowed=("none", "plotly", "deck", "canvas", "saved"))
n = url.read("n", 30000, url.int_in(1, 10_000_000))
st.set_page_config(layout="wide")
if renderer == "plotly":
    st.plotly_chart(_built(renderer, n), key="map")
elif renderer == "deck":
    st.pydeck_chart(_built(renderer, n), height=640, key="map")
elif renderer == "canvas":  # a click: the true 10 nearest of that point in the model behind the map, then its lines
    model = st.cache_resource(synthetic_model)(n)  # made before any click is timed
    clicked = canvas_clicked_id("map")
    ready_to_search(model, np.arange(n))  # as the app's map page does before any click
    lines = None if clicked is None else nearest_of(model, np.arange(n), clicked, 10)
    canvas_map(with_lines(_built(renderer, n), clicked, lines), key="map")
elif renderer == "saved":  # a map saved by the bench (the planted table's, labelled), drawn as it is
    canvas_map(_saved(), key="map")
st.caption(str(n))  # the script has run to its end
