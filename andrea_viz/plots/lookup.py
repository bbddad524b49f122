"""Pictures of the token table as a lookup table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..anatomy.report import undertrained_of
from ..safe_text import plot
from ..i18n import _, num, sentences
from ..lookup import block_average, expected_init_norm, value_stats
from ..lookup import ValueStats, normal_pdf
from .style import BLUE, DIVERGING, GREY, ORANGE, RED, layout, log_axis, marked_line
from .words import with_words


def _symmetric_range(a: np.ndarray) -> float:
    finite = np.abs(a[np.isfinite(a)])
    return float(np.percentile(finite, 99.5)) if finite.size else 1.0


def table_overview(avg: np.ndarray, rb: int, cb: int, V: int, d: int, selected: int | None = None,
                   marked: tuple[np.ndarray, list[str], np.ndarray] | None = None) -> go.Figure:
    """The whole (V, d) table, block-averaged to avg.shape cells; a line marks the selected row; ``marked`` =
    (ids, tokens, scores) puts a tick beside each of those rows, right of the last column."""
    rows, cols = avg.shape
    lim = _symmetric_range(avg)
    cell = (_("one cell per entry") if rb == 1 and cb == 1 else  # no "1 columns" in any language
            _("each cell is the mean of {r:,} rows of one column", r=rb) if cb == 1 else
            _("each cell is the mean of {c} columns of one row", c=cb) if rb == 1 else
            _("each cell is the mean of {r:,} rows × {c} columns", r=rb, c=cb))
    fig = go.Figure(go.Heatmap(
        z=avg, x=np.arange(cols) * cb, y=np.arange(rows) * rb, colorscale=DIVERGING, zmin=-lim, zmax=lim, zmid=0,
        colorbar={"title": {"text": _("mean value")}},
        hovertemplate=_("ids %{y}+ · dim %{x}<br>mean %{z:.4f}") + "<extra></extra>"))
    if selected is not None:
        fig.add_hline(y=selected, line={"color": "black", "width": 2, "dash": "dot"},
                      annotation_text=_("id {id}", id=selected), annotation_position="top left",
                      annotation={"bgcolor": "rgba(255, 255, 255, 0.9)", "font": {"color": "#222"}})  # over the cells
    if marked is not None:
        ids, tokens, scores = marked
        fig.add_scatter(x=np.full(ids.size, cols * cb + 0.02 * d), y=ids, mode="markers", name=_("under-trained rows"),
                        marker={"symbol": "line-ew", "size": 14, "line": {"color": ORANGE, "width": 2}},
                        customdata=np.stack([ids, scores], axis=1), text=[plot(t) for t in tokens],
                        hovertemplate=_("id %{customdata[0]} (%{text})<br>under-trained score %{customdata[1]:.3f}")
                        + "<extra></extra>")
    layout(fig, _("The whole token table, {V:,} × {d:,}, as an overview ({cell})", V=V, d=d, cell=cell),
           x=_("dimension (column of the table)"), y=_("token id (row)"), height=520)
    fig.update_layout(yaxis_autorange="reversed")
    if marked is not None:
        fig.update_layout(showlegend=True, legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"},
                          margin={"b": 85})
    said = [_("The whole token table, {V:,} rows by {d:,} columns, drawn as {rows:,} × {cols:,} cells: the cells' means "
              "run from {lo:.4f} to {hi:.4f}.", V=V, d=d, rows=rows, cols=cols, lo=float(np.nanmin(avg)),
              hi=float(np.nanmax(avg)))]
    if selected is not None:
        said.append(_("A dotted line marks row {id}, the one looked up.", id=selected))
    if marked is not None:
        said.append(_("{n:,} under-trained rows are ticked on the right.", n=int(marked[0].size)))
    return with_words(fig, sentences(said))


def table_window(window: np.ndarray, start: int, labels: Sequence[str], selected: int | None) -> go.Figure:
    """Rows start … start+n of the table at full resolution; the selected row framed."""
    n, d = window.shape
    ids = np.arange(start, start + n)
    lim = _symmetric_range(window)
    fig = go.Figure(go.Heatmap(
        z=window, y=[f"{i} {plot(t)}" for i, t in zip(ids, labels, strict=True)], x=np.arange(d), colorscale=DIVERGING,
        zmin=-lim, zmax=lim, zmid=0, colorbar={"title": {"text": _("value")}},
        customdata=np.broadcast_to(ids[:, None], window.shape),
        hovertemplate=_("row %{customdata} (%{y})<br>dim %{x}: %{z:.4f}") + "<extra></extra>"))
    if selected is not None and start <= selected < start + n:
        k = selected - start
        fig.add_shape(type="rect", x0=-0.5, x1=d - 0.5, y0=k - 0.5, y1=k + 0.5, line={"color": "black", "width": 3})
    layout(fig, _("Detail: rows {a}–{b}, all {d} columns (the framed row is the one looked up)", a=start,
                  b=start + n - 1, d=d), x=_("dimension"), y=_("token id and token"), height=max(360, min(900, 18 * n + 120)))
    fig.update_layout(yaxis={"autorange": "reversed", "type": "category", "tickfont": {"size": 11}})
    said = _("Rows {a} to {b} of the table, each with all its {d:,} numbers: values from {lo:.4f} to {hi:.4f}.",
             a=start, b=start + n - 1, d=d, lo=float(window.min()), hi=float(window.max()))
    if selected is not None and start <= selected < start + n:
        said = sentences([said, _("The framed row is {id} (“{token}”), the one looked up.", id=selected,
                                  token=labels[selected - start])])
    lengths = np.linalg.norm(window.astype(np.float64), axis=1)
    return with_words(fig, said, {"id": [str(int(i)) for i in ids], _("token"): list(labels),
                                  _("row length ‖v‖"): [num(float(v), ".4f") for v in lengths]})


def row_bars(values: np.ndarray, token_id: int, token: str, norm: float) -> go.Figure:
    """The selected row as d bars: the vector the embedding layer hands to block 1."""
    d = values.size
    fig = go.Figure(go.Bar(x=np.arange(d), y=values, marker={"color": np.where(values >= 0, RED, BLUE), "line": {"width": 0}},
                           hovertemplate=_("dim %{x}: %{y:.4f}") + "<extra></extra>"))
    layout(fig, _("Row {id} (“{token}”): {d} numbers, length ‖v‖ = {norm:.4f}", id=token_id, token=plot(token), d=d, norm=norm),
           x=_("dimension"), y=_("value"), height=340)
    fig.update_layout(bargap=0)
    lo, hi = int(np.argmin(values)), int(np.argmax(values))
    return with_words(fig, _("Row {id} (“{token}”) as {d:,} bars, one per dimension: from {lo:.4f} at dimension {i} to "
                             "{hi:.4f} at dimension {j}; {pos:,} values are positive; its length is {norm:.4f}.",
                             id=token_id, token=token, d=d, lo=float(values[lo]), i=lo, hi=float(values[hi]), j=hi,
                             pos=int((values > 0).sum()), norm=norm))


def value_histogram(stats: ValueStats, d: int, log_y: bool = True) -> go.Figure:
    """Every entry of the table as a histogram, against the curve of its family's initialisation when known."""
    centers = (stats.edges[:-1] + stats.edges[1:]) / 2
    fig = go.Figure(go.Bar(x=centers, y=stats.density, name=_("this table"), marker={"color": GREY, "line": {"width": 0}},
                           hovertemplate=_("value %{x:.4f}<br>density %{y:.2f}") + "<extra></extra>"))
    top = max(float(stats.density.max()), 1e-3)  # the y range's top: the histogram's and the curve's peaks
    if stats.init_std is not None:
        x = np.linspace(stats.edges[0], stats.edges[-1], 400)
        curve = normal_pdf(x, stats.init_std)
        top = max(top, float(curve.max()))  # a table wider than its init: the curve stands above its bars
        fig.add_scatter(x=x, y=curve, mode="lines", line={"color": ORANGE, "width": 3}, name=_("the init's normal curve"))
        spread = _("standard deviation {std:.4f}, the init's {init:.4f}", std=stats.std, init=stats.init_std)
    else:
        spread = _("standard deviation {std:.4f} (this family's init is not known)", std=stats.std)
    layout(fig, _("Values of every entry"), y=_("density"), height=400, subtitle=spread)  # ticks 10⁻³ … 10: log
    # the title says what x is, so the legend takes the axis title's place, placed in pixels (a fraction of a short
    # chart lands on the tick labels)
    fig.update_layout(bargap=0, margin={"t": 65, "b": 55},
                      legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom"})
    if log_y:  # a normal curve is a parabola here, so heavy tails stand out
        fig.update_layout(yaxis={**log_axis(1e-3, top * 2), "range": [-3, np.log10(top) + 0.3]})
    said = _("The table's entries between {lo:.4f} and {hi:.4f}, {n:,} values, as a histogram; over every entry the "
             "mean is {mean:+.4f} and the standard deviation {std:.4f}.", n=int(stats.counts.sum()), lo=float(stats.edges[0]),
             hi=float(stats.edges[-1]), mean=stats.mean, std=stats.std)
    said += " " + (_("A normal curve of the init's standard deviation, {init:.4f}, is drawn over it.", init=stats.init_std)
                   if stats.init_std is not None else _("This family's init is not known."))
    return with_words(fig, said)


def norm_histogram(norms: np.ndarray, expected: float | None) -> go.Figure:
    """Length of every row: all close to 1 at an ANDREA init, spread out after training."""
    fig = go.Figure(go.Histogram(x=norms, nbinsx=100, marker={"color": GREY, "line": {"width": 0}}, name=_("rows"),
                                 hovertemplate=_("length %{x}<br>%{y:,} rows") + "<extra></extra>"))
    # the range on its own line, as the values' histogram beside it has its spread
    layout(fig, _("Length of every row"), x=_("row length ‖v‖"), y=_("rows"), height=400, subtitle=_(
        "{a:.2f} to {b:.2f} (1st to 99th percentile)", a=float(np.percentile(norms, 1)),
        b=float(np.percentile(norms, 99))))
    fig.update_layout(bargap=0, showlegend=False)
    if expected is not None:
        marked_line(fig, expected, _("at init: {value:.2f}", value=expected), colour=ORANGE, dash="solid", width=3)
    said = _("The length of each of the {n:,} rows as a histogram: median {m:.3f}, from {lo:.3f} to {hi:.3f}.", n=norms.size,
             m=float(np.median(norms)), lo=float(norms.min()), hi=float(norms.max()))
    if expected is not None:
        said += " " + _("At init every row would have a length near {value:.2f}.", value=expected)
    return with_words(fig, said)


# --- figures of a model, built from hashable arguments (so the app caches them per model and language) ---
OVERVIEW_CELLS = (256, 192)  # rows × columns of the block-averaged overview


def overview_of(emb, selected: int, undertrained: bool = False) -> go.Figure:
    """The overview; ``undertrained``: with the rows the Anatomy page flags (Magikarp's score at or above its
    threshold) ticked beside the table."""
    avg, rb, cb = emb.memo(("block_average", *OVERVIEW_CELLS), lambda: block_average(emb.token_table, *OVERVIEW_CELLS))
    marked = None
    if undertrained:
        r = undertrained_of(emb).ranked
        ids = r.flagged
        marked = (ids, [emb.token(int(i)) for i in ids], r.scores[ids])
    return table_overview(avg, rb, cb, emb.vocab_size, emb.d_model, selected, marked)


def window_of(emb, start: int, n_rows: int, selected: int) -> go.Figure:
    stop = min(start + n_rows, emb.vocab_size)
    return table_window(emb.token_table[start:stop], start, [emb.token(i) for i in range(start, stop)], selected)


def row_of(emb, token_id: int) -> go.Figure:
    return row_bars(emb.token_table[token_id], token_id, emb.token(token_id), float(emb.row_norms[token_id]))


def values_of(emb, log_y: bool) -> go.Figure:
    stats = emb.memo(("value_stats",), lambda: value_stats(emb.token_table, emb.card.init_std))
    return value_histogram(stats, emb.d_model, log_y)


def norms_of(emb) -> go.Figure:
    return norm_histogram(emb.row_norms, expected_init_norm(emb.d_model, emb.card.init_std))
