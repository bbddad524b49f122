"""Pictures of nearest neighbours and of the input versus output tables."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..geometry import Neighbor
from .style import GREY, PURPLE, RED, layout

METRIC_AXIS = {"cosine": "cosine similarity (higher is closer)", "dot": "dot product (higher is closer)",
               "euclidean": "euclidean distance (lower is closer)"}


def neighbour_bars(found: list[Neighbor], query: str, metric: str, title: str | None = None,
                   color: str = RED) -> go.Figure:
    labels = [n.token if n.token == f"#{n.id}" else f"{n.token}  #{n.id}" for n in found]
    fig = go.Figure(go.Bar(y=labels, x=[n.score for n in found], orientation="h", marker_color=color,
                           text=[f"{n.score:.3f}" for n in found], textposition="auto",
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category")
    return layout(fig, title or f"The {len(found)} nearest tokens to “{query}”", x=METRIC_AXIS[metric],
                  height=140 + 28 * len(found))


def input_output_histogram(cos: np.ndarray) -> go.Figure:
    fig = go.Figure(go.Histogram(x=cos, nbinsx=100, marker_color=PURPLE, marker_line_width=0,
                                 hovertemplate="cos %{x}<br>%{y:,} tokens<extra></extra>"))
    fig.add_vline(x=float(np.median(cos)), line={"color": GREY, "dash": "dash"},
                  annotation_text=f"median {np.median(cos):+.3f}")
    return layout(fig, "cos(input row i, output row i) over the whole vocabulary",
                  x="cosine between a token's input and output vectors", y="tokens", height=380)
