"""Pictures of the token table as a lookup table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..lookup import ValueStats, normal_pdf
from .style import BLUE, DIVERGING, GREY, ORANGE, RED, layout


def _symmetric_range(a: np.ndarray) -> float:
    finite = np.abs(a[np.isfinite(a)])
    return float(np.percentile(finite, 99.5)) if finite.size else 1.0


def table_overview(avg: np.ndarray, rb: int, cb: int, V: int, d: int, selected: int | None = None) -> go.Figure:
    """The whole (V, d) table, block-averaged to avg.shape cells; a line marks the selected row."""
    rows, cols = avg.shape
    y = np.arange(rows) * rb  # first id of each block
    x = np.arange(cols) * cb
    lim = _symmetric_range(avg)
    cell = f"each cell is the mean of {rb:,} row{'s' if rb > 1 else ''} × {cb} column{'s' if cb > 1 else ''}"
    fig = go.Figure(
        go.Heatmap(
            z=avg, x=x, y=y, colorscale=DIVERGING, zmin=-lim, zmax=lim, zmid=0,
            colorbar={"title": {"text": "mean value"}},
            hovertemplate="ids %{y:,}+ · dim %{x}<br>mean %{z:.4f}<extra></extra>",
        )
    )
    if selected is not None:
        fig.add_hline(y=selected, line={"color": "black", "width": 2, "dash": "dot"},
                      annotation_text=f"id {selected:,}", annotation_position="top right")
    fig.update_yaxes(autorange="reversed")
    return layout(fig, f"The whole token table, {V:,} × {d:,}, as an overview ({cell})",
                  x="dimension (column of the table)", y="token id (row)", height=520)


def table_window(window: np.ndarray, start: int, labels: Sequence[str], selected: int | None) -> go.Figure:
    """Rows start … start+n of the table at full resolution; the selected row framed."""
    n, d = window.shape
    ids = np.arange(start, start + n)
    ylabels = [f"{i:,} {t}" for i, t in zip(ids, labels, strict=True)]
    lim = _symmetric_range(window)
    fig = go.Figure(
        go.Heatmap(
            z=window, y=ylabels, x=np.arange(d), colorscale=DIVERGING, zmin=-lim, zmax=lim, zmid=0,
            colorbar={"title": {"text": "value"}},
            customdata=np.broadcast_to(ids[:, None], window.shape),
            hovertemplate="row %{customdata:,} (%{y})<br>dim %{x}: %{z:.4f}<extra></extra>",
        )
    )
    if selected is not None and start <= selected < start + n:
        k = selected - start
        fig.add_shape(type="rect", x0=-0.5, x1=d - 0.5, y0=k - 0.5, y1=k + 0.5,
                      line={"color": "black", "width": 3})
    fig.update_yaxes(autorange="reversed", type="category", tickfont={"size": 11})
    return layout(fig, f"Detail: rows {start:,}–{start + n - 1:,}, all {d} columns (the framed row is the one looked up)",
                  x="dimension", y="token id and token", height=max(360, min(900, 18 * n + 120)))


def row_bars(values: np.ndarray, token_id: int, token: str, norm: float) -> go.Figure:
    """The selected row as d bars: the vector the embedding layer hands to block 1."""
    d = values.size
    colors = np.where(values >= 0, RED, BLUE)
    fig = go.Figure(go.Bar(x=np.arange(d), y=values, marker_color=colors, marker_line_width=0,
                           hovertemplate="dim %{x}: %{y:.4f}<extra></extra>"))
    fig.update_layout(bargap=0)
    return layout(fig, f"Row {token_id:,} (“{token}”): {d} numbers, length ‖v‖ = {norm:.4f}",
                  x="dimension", y="value", height=340)


def value_histogram(stats: ValueStats, d: int, log_y: bool = True) -> go.Figure:
    """Every entry of the table as a histogram, against the N(0, 1/√d) curve of initialisation."""
    centers = (stats.edges[:-1] + stats.edges[1:]) / 2
    x = np.linspace(stats.edges[0], stats.edges[-1], 400)
    fig = go.Figure()
    fig.add_bar(x=centers, y=stats.density, name="this table", marker_color=GREY, marker_line_width=0,
                hovertemplate="value %{x:.4f}<br>density %{y:.2f}<extra></extra>")
    fig.add_scatter(x=x, y=normal_pdf(x, stats.init_std), mode="lines", line={"color": ORANGE, "width": 3},
                    name=f"N(0, 1/√{d}) = N(0, {stats.init_std:.4f}): the init")
    fig.update_layout(bargap=0, legend={"orientation": "h", "y": -0.25})
    if log_y:  # a normal curve is a parabola here, so heavy tails stand out
        fig.update_yaxes(type="log", dtick=1, exponentformat="power", range=[-3, np.log10(max(stats.density.max(), 1e-3)) + 0.3])
    return layout(fig, f"Values of every entry: std {stats.std:.4f} against the init's {stats.init_std:.4f}",
                  x="entry value", y="density" + (" (log scale)" if log_y else ""), height=400)


def norm_histogram(norms: np.ndarray, expected: float) -> go.Figure:
    """Length of every row: all close to 1 at init, spread out after training."""
    fig = go.Figure(go.Histogram(x=norms, nbinsx=100, marker_color=GREY, marker_line_width=0,
                                 hovertemplate="length %{x}<br>%{y:,} rows<extra></extra>", name="rows"))
    fig.add_vline(x=expected, line={"color": ORANGE, "width": 3},
                  annotation_text=f"init: √d · 1/√d = {expected:.2f}", annotation_position="top right")
    fig.update_layout(bargap=0, showlegend=False)
    return layout(fig, f"Length of every row: {np.percentile(norms, 1):.2f} to {np.percentile(norms, 99):.2f} "
                  "(1st to 99th percentile)", x="row length ‖v‖", y="rows", height=400)
