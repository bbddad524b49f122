"""Pictures of dot products and cosines: arrows in the plane, the turning animation, real vectors."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..angles import PlanePair, plane_pair
from ..quiz import Pair
from .style import BLUE, GREEN, GREY, ORANGE, RED, layout


def _arrow(vec: np.ndarray, color: str, name: str) -> go.Scatter:
    return go.Scatter(x=[0, vec[0]], y=[0, vec[1]], mode="lines+markers", name=name,
                      line={"color": color, "width": 4},
                      marker={"symbol": ["circle", "arrow"], "size": [6, 18], "angleref": "previous", "color": color},
                      hovertemplate=f"{name} = (%{{x:.2f}}, %{{y:.2f}})<extra></extra>")


def _square(fig: go.Figure, lim: float, row: int | None = None, col: int | None = None) -> None:
    kw = {} if row is None else {"row": row, "col": col}
    fig.update_xaxes(range=[-lim, lim], zeroline=True, zerolinecolor="#bbb", title_text="x", **kw)
    fig.update_yaxes(range=[-lim, lim], zeroline=True, zerolinecolor="#bbb", title_text="y",
                     scaleanchor="x" if row is None else f"x{'' if col == 1 else col}", scaleratio=1, **kw)


def arrows(p: PlanePair) -> go.Figure:
    """u and v as arrows from the origin, with the shadow of v on u (|v| cos θ)."""
    fig = go.Figure()
    unit_u = p.u / p.norm_u if p.norm_u else p.u
    shadow = unit_u * p.norm_v * p.cos
    fig.add_scatter(x=[0, shadow[0]], y=[0, shadow[1]], mode="lines", line={"color": GREEN, "width": 8},
                    opacity=0.35, name="shadow of v on u: |v| cos θ", hoverinfo="skip")
    fig.add_scatter(x=[shadow[0], p.v[0]], y=[shadow[1], p.v[1]], mode="lines",
                    line={"color": GREY, "dash": "dot"}, showlegend=False, hoverinfo="skip")
    fig.add_trace(_arrow(p.u, BLUE, "u"))
    fig.add_trace(_arrow(p.v, ORANGE, "v"))
    lim = 1.15 * max(p.norm_u, p.norm_v, 0.5)
    _square(fig, lim)
    fig.update_layout(legend={"orientation": "h", "y": -0.2})
    return layout(fig, f"θ = {p.theta_deg:.0f}°:  u·v = {p.dot:+.3f}", height=470)


def turning_animation(len_u: float = 1.0, len_v: float = 1.0, step: int = 5) -> go.Figure:
    """v turns from 0° to 180° (plotly frames with a Play button, run in the browser); on the
    right, u·v and cos θ against the angle with the three cases marked."""
    angles = np.arange(0, 181, step)
    curve = np.linspace(0, 180, 181)
    fig = make_subplots(rows=1, cols=2, column_widths=[0.45, 0.55], horizontal_spacing=0.12,
                        subplot_titles=("u fixed, v turning", "u·v and cos θ against the angle"))
    p0 = plane_pair(len_u, len_v, 0)
    fig.add_trace(_arrow(p0.u, BLUE, "u"), 1, 1)  # trace 0
    fig.add_trace(_arrow(p0.v, ORANGE, "v"), 1, 1)  # trace 1 (animated)
    fig.add_scatter(x=curve, y=len_u * len_v * np.cos(np.radians(curve)), mode="lines", name="u·v",
                    line={"color": RED, "width": 3}, row=1, col=2)  # trace 2
    fig.add_scatter(x=curve, y=np.cos(np.radians(curve)), mode="lines", name="cos θ",
                    line={"color": GREY, "width": 2, "dash": "dash"}, row=1, col=2)  # trace 3
    fig.add_scatter(x=[0], y=[p0.dot], mode="markers", marker={"size": 14, "color": RED},
                    name="now", showlegend=False, row=1, col=2)  # trace 4 (animated)
    for theta, label in ((0, "same direction"), (90, "perpendicular"), (180, "opposite")):
        fig.add_vline(x=theta, line={"color": "#999", "dash": "dot"}, row=1, col=2)
        fig.add_annotation(x=theta, y=1.1 * max(1.0, len_u * len_v), text=label, showarrow=False,
                           xanchor="left" if theta == 0 else "right" if theta == 180 else "center",
                           row=1, col=2)
    frames = []
    for theta in angles:
        p = plane_pair(len_u, len_v, float(theta))
        frames.append(go.Frame(
            name=str(theta),
            data=[_arrow(p.v, ORANGE, "v"), go.Scatter(x=[theta], y=[p.dot])],
            traces=[1, 4],
            layout={"title": {"text": f"θ = {theta}°: u·v = {p.dot:+.2f}, cos θ = {p.cos:+.2f}"}},
        ))
    fig.frames = frames
    opts = {"frame": {"duration": 120, "redraw": True}, "transition": {"duration": 0}, "fromcurrent": True}
    fig.update_layout(
        updatemenus=[{"type": "buttons", "direction": "left", "x": 0.0, "y": -0.12, "xanchor": "left",
                      "buttons": [{"label": "▶ Play", "method": "animate", "args": [None, opts]},
                                  {"label": "❚❚ Pause", "method": "animate",
                                   "args": [[None], {"mode": "immediate", "frame": {"duration": 0}}]}]}],
        sliders=[{"active": 0, "x": 0.12, "len": 0.88, "y": -0.05, "currentvalue": {"prefix": "θ = ", "suffix": "°"},
                  "steps": [{"label": str(t), "method": "animate",
                             "args": [[str(t)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}]}
                            for t in angles]}],
        legend={"x": 0.585, "y": 0.04, "xanchor": "left", "yanchor": "bottom", "bgcolor": "rgba(255,255,255,0.85)"},
    )
    lim = 1.15 * max(len_u, len_v)
    _square(fig, lim, 1, 1)
    m = 1.2 * max(1.0, len_u * len_v)
    fig.update_xaxes(title_text="angle θ between u and v (degrees)", range=[-5, 185], dtick=30, row=1, col=2)
    fig.update_yaxes(title_text="value", range=[-m, m], row=1, col=2)
    layout(fig, f"θ = 0°: u·v = {p0.dot:+.2f}, cos θ = +1.00", height=520)
    fig.update_layout(margin={"b": 130, "t": 90})
    return fig


def elementwise_products(u: np.ndarray, v: np.ndarray, word_u: str, word_v: str) -> go.Figure:
    """The d products u_i v_i as bars; their sum is the dot product."""
    prod = u.astype(np.float64) * v.astype(np.float64)
    fig = go.Figure(go.Bar(x=np.arange(prod.size), y=prod, marker_color=np.where(prod >= 0, RED, BLUE),
                           marker_line_width=0, hovertemplate="dim %{x}: u·v contribution %{y:.5f}<extra></extra>"))
    fig.update_layout(bargap=0)
    return layout(fig, f"{prod.size} products u_i·v_i for “{word_u}” and “{word_v}”: they sum to u·v = {prod.sum():+.4f}",
                  x="dimension i", y="u_i × v_i", height=360)


def quiz_reveal(pairs: list[Pair], guesses: list[float]) -> go.Figure:
    labels = [p.label for p in pairs]
    fig = go.Figure()
    fig.add_bar(y=labels, x=guesses, orientation="h", name="your guess", marker_color=GREY,
                hovertemplate="%{y}: your guess %{x:.2f}<extra></extra>")
    fig.add_bar(y=labels, x=[p.cosine for p in pairs], orientation="h", name="real cosine", marker_color=RED,
                hovertemplate="%{y}: cosine %{x:.3f}<extra></extra>")
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.2})
    fig.update_yaxes(autorange="reversed")
    return layout(fig, "Your guesses against the real cosines", x="similarity (cosine)", height=120 + 60 * len(pairs))
