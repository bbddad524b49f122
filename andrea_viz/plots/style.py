"""The look shared by every figure."""

from __future__ import annotations

import plotly.graph_objects as go

DIVERGING = "RdBu_r"  # negative blue, zero white, positive red
BLUE, ORANGE, GREY, RED, GREEN, PURPLE = "#1f77b4", "#ff7f0e", "#7f7f7f", "#d62728", "#2ca02c", "#9467bd"


def layout(fig: go.Figure, title: str, x: str | None = None, y: str | None = None, height: int = 420) -> go.Figure:
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}},
        template="plotly_white",
        height=height,
        margin={"l": 70, "r": 30, "t": 60, "b": 60},
        font={"size": 13},
        hoverlabel={"font_size": 13},
    )
    if x is not None:
        fig.update_xaxes(title_text=x)
    if y is not None:
        fig.update_yaxes(title_text=y)
    return fig
