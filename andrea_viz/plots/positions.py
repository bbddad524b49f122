"""Pictures of position information and of the forward pass x = tok + pos."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .style import BLUE, DIVERGING, GREEN, ORANGE, RED, layout


def three_rows(tok: np.ndarray, pos: np.ndarray, token: str, t: int) -> go.Figure:
    """The token row, the position row and their sum, aligned dimension by dimension."""
    x = tok + pos
    fig = make_subplots(rows=3, cols=1, shared_xaxes=True, vertical_spacing=0.09, subplot_titles=(
        f"token_embedding[“{token}”]   ‖·‖ = {np.linalg.norm(tok):.3f}",
        f"position_embedding[{t}]   ‖·‖ = {np.linalg.norm(pos):.3f}",
        f"x_{t} = token + position   ‖·‖ = {np.linalg.norm(x):.3f}"))
    dims = np.arange(tok.size)
    for r, (v, c) in enumerate(((tok, BLUE), (pos, ORANGE), (x, GREEN)), 1):
        fig.add_bar(x=dims, y=v, marker_color=c, marker_line_width=0, showlegend=False,
                    hovertemplate="dim %{x}: %{y:.4f}<extra></extra>", row=r, col=1)
    lim = float(np.abs(np.concatenate([tok, pos, x])).max()) * 1.05
    fig.update_yaxes(range=[-lim, lim], title_text="value")
    fig.update_xaxes(title_text="dimension", row=3, col=1)
    fig.update_layout(bargap=0)
    return layout(fig, "x_t = token_embedding[id_t] + position_embedding[t], element by element", height=620)


def table_heatmap(table: np.ndarray, title: str, max_cols: int = 256) -> go.Figure:
    """A (T, d) table, columns block-averaged past ``max_cols``, positions down the side."""
    step = max(1, -(-table.shape[1] // max_cols))
    shown = table[:, : table.shape[1] // step * step].reshape(table.shape[0], -1, step).mean(axis=2)
    lim = float(np.percentile(np.abs(shown), 99.5)) or 1.0
    fig = go.Figure(go.Heatmap(z=shown, x=np.arange(shown.shape[1]) * step, colorscale=DIVERGING,
                               zmin=-lim, zmax=lim, colorbar={"title": {"text": "value"}},
                               hovertemplate="position %{y} · dim %{x}: %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed")
    return layout(fig, title, x="dimension" + (f" (means of {step})" if step > 1 else ""), y="position t", height=430)


def cosine_heatmap(cos: np.ndarray, pos: np.ndarray, title: str) -> go.Figure:
    fig = go.Figure(go.Heatmap(z=cos, x=pos, y=pos, colorscale=DIVERGING, zmin=-1, zmax=1,
                               colorbar={"title": {"text": "cos"}},
                               hovertemplate="positions %{y} and %{x}: cos %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", scaleanchor="x")
    return layout(fig, title, x="position", y="position", height=430)


def position_path(coords: np.ndarray, ratio: np.ndarray, title: str) -> go.Figure:
    """Positions 0…T-1 through the first two principal components, joined in order."""
    t = np.arange(coords.shape[0])
    fig = go.Figure(go.Scatter(x=coords[:, 0], y=coords[:, 1], mode="lines+markers",
                               line={"color": "#bbbbbb", "width": 1},
                               marker={"color": t, "colorscale": "Viridis", "size": 5,
                                       "colorbar": {"title": {"text": "position"}}},
                               customdata=t, hovertemplate="position %{customdata}<extra></extra>"))
    for k in (0, coords.shape[0] - 1):
        fig.add_annotation(x=coords[k, 0], y=coords[k, 1], text=f"t = {k}", showarrow=True, arrowhead=2)
    return layout(fig, title, x=f"PC1 ({ratio[0]:.1%} of variance)", y=f"PC2 ({ratio[1]:.1%} of variance)",
                  height=430)


def row_norms(learned: np.ndarray | None, sinus: np.ndarray) -> go.Figure:
    fig = go.Figure()
    if learned is not None:
        fig.add_scatter(y=np.linalg.norm(learned, axis=1), mode="lines", name="learned", line={"color": RED})
    fig.add_scatter(y=np.linalg.norm(sinus, axis=1), mode="lines", name="sinusoidal", line={"color": BLUE})
    fig.update_layout(legend={"orientation": "h", "y": -0.25})
    fig.update_yaxes(type="log")
    return layout(fig, "Length of each position row (log scale: the sinusoidal rows all have length √(d/2))",
                  x="position t", y="‖position_embedding[t]‖", height=360)


def rope_picture(q: np.ndarray, k: np.ndarray, pairs: list[tuple[int, int]], theta: float,
                 rotate) -> go.Figure:
    """q at position m and k at position n, rotated by m·θ and n·θ: each pair has offset m − n."""
    fig = go.Figure()
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]
    for (m, n), c in zip(pairs, colors, strict=False):
        qm, kn = rotate(q, m, theta), rotate(k, n, theta)
        score = float(qm @ kn)
        for v, name, dash in ((qm, f"q at m = {m}", "solid"), (kn, f"k at n = {n}", "dot")):
            fig.add_scatter(x=[0, v[0]], y=[0, v[1]], mode="lines+markers", name=f"{name} (q·k = {score:.3f})",
                            line={"color": c, "width": 3, "dash": dash},
                            marker={"symbol": ["circle", "arrow"], "size": [4, 14], "angleref": "previous",
                                    "color": c})
    lim = 1.2 * max(np.linalg.norm(q), np.linalg.norm(k))
    fig.update_xaxes(range=[-lim, lim], zeroline=True)
    fig.update_yaxes(range=[-lim, lim], zeroline=True, scaleanchor="x")
    fig.update_layout(legend={"font": {"size": 11}})
    return layout(fig, "RoPE: rotate q by m·θ and k by n·θ; q·k depends only on m − n", height=470)


def matrix_heatmap(x: np.ndarray, labels: list[str], title: str, lim: float | None = None) -> go.Figure:
    """A (T, d) matrix with one labelled row per token."""
    lim = lim or float(np.percentile(np.abs(x), 99.5)) or 1.0
    fig = go.Figure(go.Heatmap(z=x, y=labels, colorscale=DIVERGING, zmin=-lim, zmax=lim, showscale=False,
                               hovertemplate="%{y} · dim %{x}: %{z:.3f}<extra></extra>"))
    fig.update_yaxes(autorange="reversed", type="category")
    return layout(fig, title, x="dimension", height=max(260, 60 + 26 * len(labels)))
