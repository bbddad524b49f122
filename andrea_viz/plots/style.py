"""The look shared by every figure."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.colors import qualitative

from ..i18n import language, separators

DIVERGING = "RdBu_r"  # negative blue, zero white, positive red
BLUE, ORANGE, GREY, RED, GREEN, PURPLE = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd"
PALETTE = qualitative.Dark24  # groups and classes: 24 colours that stay apart
QUERY_RGB = (214, 39, 40)  # a map's first word asked for


def hex_rgb(hex_colour: str) -> list[int]:
    """"#rrggbb" as [r, g, b]."""
    h = hex_colour.lstrip("#")
    return [int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)]


def score_rgb(share: float) -> list[int]:
    """A map point's colour for a score in [0, 1] with 1 good (trust, neighbours kept): red at 0, green at 1."""
    return [int(255 * (1 - share)), int(200 * share), 60]


def map_groups(groups) -> list[str]:
    """A map's word groups that get a colour of their own, in order of first appearance (not 'other' or the
    query): the j-th is drawn in ``PALETTE[j % len(PALETTE)]``."""
    return list(dict.fromkeys(g for g in groups if g not in ("other", "query")))


def layout(fig: go.Figure, title: str, x: str | None = None, y: str | None = None, height: int = 420) -> go.Figure:
    """The shared look, set in one update (each separate update walks the figure again). No plotly
    template: Streamlit's theme styles the charts, and applying one costs about 17 ms per figure."""
    props = {
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}},
        "height": height,
        "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
        "font": {"size": 13},
        "hoverlabel": {"font": {"size": 13}},
        "separators": plotly_separators(),
    }
    if x is not None:
        props["xaxis"] = {"title": {"text": x}}
    if y is not None:
        props["yaxis"] = {"title": {"text": y}}
    fig.update_layout(props)
    return fig


def plotly_separators() -> str:
    """Plotly's separators: the decimal mark, then the thousands mark, of the current language."""
    group, decimal = separators(language())
    return decimal + group
