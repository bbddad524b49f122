"""Trained vectors projected to 2-D or 3-D."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..projection import Projection, Sample
from .style import PALETTE, layout


def projection_scatter(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray,
                       title: str) -> go.Figure:
    """One trace per group: 'other' rows small and grey (WebGL), labelled groups with their words,
    the query as a large star."""
    dims = proj.coords.shape[1]
    groups = np.array(sample.groups)
    order = ["other"] + sorted({g for g in groups if g not in ("other", "query")}) + ["query"]
    fig = go.Figure()
    colors = iter(PALETTE * 3)
    axis = [f"PC{j}" for j in range(1, dims + 1)] if proj.method == "pca" else [f"t-SNE {j}" for j in range(1, dims + 1)]
    for g in order:
        m = groups == g
        if not m.any():
            continue
        c = proj.coords[m]
        toks = [tokens[i] for i in np.flatnonzero(m)]
        custom = [[int(i), "n/a (not in the scored subset)" if np.isnan(t) else f"{t:.0%}"]
                  for i, t in zip(sample.ids[m], trust[m], strict=True)]
        other, query = g == "other", g == "query"
        marker = {"size": 4 if other else 14 if query else 8, "opacity": 0.35 if other else 0.95,
                  "color": "#9a9a9a" if other else "#d62728" if query else next(colors),
                  "symbol": "diamond" if query and dims == 3 else "star" if query else "circle",
                  "line": {"width": 1, "color": "black"} if query else {"width": 0}}
        hover = "<b>%{text}</b> #%{customdata[0]}<br>" + g + "<br>neighbours kept: %{customdata[1]}<extra></extra>"
        common = dict(name=g, text=toks, customdata=custom, hovertemplate=hover, marker=marker,
                      mode="markers" if other else "markers+text", textposition="top center",
                      textfont={"size": 12 if query else 10})
        if dims == 3:
            fig.add_trace(go.Scatter3d(x=c[:, 0], y=c[:, 1], z=c[:, 2], **common))
        else:
            cls = go.Scattergl if other and m.sum() > 1000 else go.Scatter
            fig.add_trace(cls(x=c[:, 0], y=c[:, 1], **common))
    if dims == 3:
        fig.update_layout(scene={"xaxis_title": axis[0], "yaxis_title": axis[1], "zaxis_title": axis[2]})
        layout(fig, title, height=700)
    else:
        layout(fig, title, x=axis[0], y=axis[1], height=700)
    fig.update_layout(legend={"title": {"text": "group"}, "itemsizing": "constant"})
    return fig
