"""The look shared by every figure."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.colors import qualitative

from ..i18n import language, separators

DIVERGING = "RdBu_r"  # negative blue, zero white, positive red
BLUE, ORANGE, GREY, RED, GREEN, PURPLE = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd"
PALETTE = qualitative.Dark24  # groups and classes: 24 colours that stay apart


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
