"""Figures of the Lesson page that no other page draws: the lesson's example ids as rows, x for a context,
and layer 0's attention of andrea-micro (scores, causal mask, softmax)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..byte_tokens import shown_token
from ..i18n import _, num
from ..lesson import attention_preview, x_matrix
from ..safe_text import plot
from .style import CHAR_PX, DIVERGING, LABEL_PITCH, PRESENT_FONT, text_width, layout
from .words import with_words

# Presenter mode's heights (px, the chart with its collapsed words: andrea_viz.ui.lesson.draw takes WORDS_PX off):
ROWS_PRESENT = 300  # step 1's three rows: each tall enough for its label at 18 px (at 210 plotly kept one of three)
ATTENTION_PRESENT = 450  # step 6's three grids at most: every one of 13 rows named at 18 px, each grid about square
PRESENT_WIDTH = 1230.0  # px: a chart across presenter mode's 1,280 px screen, less the page's padding
NORMAL_WIDTH = 1100.0  # px: about the same chart on the wide page beside the sidebar


def rows_heatmap(emb, ids: tuple[int, ...], height: int = 240) -> go.Figure:
    """The rows that ids select, one heatmap row each: the lookup, drawn."""
    rows = emb.token_table[list(ids)]
    lim = float(np.abs(rows).max()) or 1.0
    # ids written as the title lists them, without a thousands mark (in a list of ids one would read as a comma)
    names = [_("row {id}", id=i) for i in ids]
    fig = go.Figure(go.Heatmap(z=rows, y=names, colorscale=DIVERGING, zmin=-lim,
                               zmax=lim, showscale=False, hovertemplate=_("%{y} · dim %{x}: %{z:.4f}") + "<extra></extra>"))
    layout(fig, _("ids {ids} → {n} rows of the ({V}, {d}) table", ids=list(ids), n=len(ids), V=emb.vocab_size,
                  d=emb.d_model), x=_("dimension"), height=height)
    # every row named: at a projector's 18 px plotly's own ticks kept one of three
    fig.update_layout(yaxis={"autorange": "reversed", "type": "category", "tickmode": "array", "tickvals": names},
                      margin={"t": 50, "b": 45})
    lengths = np.linalg.norm(rows.astype(np.float64), axis=1)
    return with_words(fig, _("The ids {ids} pick {n} rows of the ({V}, {d}) table, one heatmap row each: {d} numbers per "
                             "row, from {lo:.4f} to {hi:.4f}.", ids=", ".join(str(i) for i in ids), n=len(ids),
                             V=emb.vocab_size, d=emb.d_model, lo=float(rows.min()), hi=float(rows.max())),
                      {"id": [str(i) for i in ids], _("token"): [shown_token(emb.token(i)) for i in ids],
                       _("row length ‖v‖"): [num(float(v), ".4f") for v in lengths]})


def x_heatmap(emb, ids: tuple[int, ...], t: int | None = None, height: int = 330) -> go.Figure:
    """x, (T, d): one row per position, token row + position row; the row at t outlined."""
    x = x_matrix(emb, ids)
    labels = [f"{k}: {plot(shown_token(emb.token(i)))}" for k, i in enumerate(ids)]
    lim = float(np.percentile(np.abs(x), 99.5)) or 1.0
    fig = go.Figure(go.Heatmap(z=x, y=labels, colorscale=DIVERGING, zmin=-lim, zmax=lim, showscale=False,
                               hovertemplate=_("%{y} · dim %{x}: %{z:.3f}") + "<extra></extra>"))
    layout(fig, _("x = token rows + position rows"), x=_("dimension"), height=height,  # the shape on a line of its
           subtitle=_("a ({T}, {d}) matrix into block 1", T=len(ids), d=emb.d_model))  # own: a half-width column
    fig.update_layout(yaxis={"autorange": "reversed", "type": "category", "dtick": 1, "tickfont": {"size": 10}},
                      margin={"l": 90, "t": 70, "b": 45})
    if t is not None:
        fig.add_shape(type="rect", x0=-0.5, x1=emb.d_model - 0.5, y0=t - 0.5, y1=t + 0.5, line={"width": 2})
    said = _("x as a heatmap: one row per position, {T} rows of {d} numbers, each the token's row plus the position's "
             "row; values from {lo:.3f} to {hi:.3f}.", T=len(ids), d=emb.d_model, lo=float(x.min()), hi=float(x.max()))
    if t is not None:
        said += " " + _("The outlined row is position {t}, “{token}”.", t=t, token=shown_token(emb.token(ids[t])))
    lengths = np.linalg.norm(np.asarray(x, np.float64), axis=1)
    return with_words(fig, said, {_("position"): [num(k) for k in range(len(ids))],
                                  _("token"): [shown_token(emb.token(i)) for i in ids],
                                  _("row length ‖v‖"): [num(float(v), ".3f") for v in lengths]})


def _attention_panels(full: list[str], short: list[str], size: float, width: float) -> tuple[float, tuple]:
    """The left margin and the three panels' x domains of ``attention_of`` at ``size`` px text on a picture ``width``
    px wide: the first panel's rows named whole at its left, the other two by their short labels in the gap before
    each, so that every panel's rows are named (the mask and the softmax had none)."""
    char = CHAR_PX * size / 11
    left = max(text_width(t, char) for t in full) + 20
    plot_px = max(width - left - 10, 1.0)
    gap = min(0.2, (max(text_width(t, char) for t in short) + 24) / plot_px)
    panel = (1 - 2 * gap) / 3
    return left, tuple([round(k * (panel + gap), 6), min(1.0, round(k * (panel + gap) + panel, 6))] for k in range(3))


ATTENTION_EDGE = int(PRESENT_FONT * LABEL_PITCH) + 8  # px above the grids (their titles) and under them (columns)
ATTENTION_LEAST = 350  # px: a short sentence's grids too are about square


def attention_height(T: int, most: int) -> int:
    """The height (px) of ``attention_of(…, present=True)`` for ``T`` positions: each row the height of its label at
    18 px (andrea_viz.plots.style.for_projector keeps every label it has that room for), at least ATTENTION_LEAST
    and at most ``most``."""
    return min(most, max(ATTENTION_LEAST, 2 * ATTENTION_EDGE + int(np.ceil(T * PRESENT_FONT * LABEL_PITCH)) + 2))


def attention_of(emb, ids: tuple[int, ...], head: int, height: int = 330, present: bool = False) -> go.Figure:
    """Three heatmaps side by side: q·k/√d_head, the causal mask, and the softmax of the allowed scores, each row
    named. ``present``: laid out for presenter mode's 1,280 px screen and 18 px text (ATTENTION_PRESENT): the columns
    numbered (the rows name their tokens), no title over the panels' own (the step's heading says it; the chart's
    words keep it), each panel as tall as it is wide or near it."""
    a = attention_preview(emb, ids, head)
    labels = [f"{k}: {plot(shown_token(emb.token(i)))}" for k, i in enumerate(ids)]
    short = [f"{k}: {plot(shown_token(emb.token(i), short=True))}" for k, i in enumerate(ids)]  # the turned x labels
    size = PRESENT_FONT if present else 10
    left, panels = _attention_panels(labels, short, size, PRESENT_WIDTH if present else NORMAL_WIDTH)
    columns = [str(k) for k in range(len(ids))] if present else short
    lim = float(np.abs(a.scores).max()) or 1.0
    z = (a.scores, a.mask.astype(float), a.weights)
    scales = (DIVERGING, [[0, "#ffffff"], [1, "#555555"]], "Blues")
    ranges = ((-lim, lim), (0, 1), (0, 1))
    hover = ("q·k/√d: %{z:.2f}", _("allowed: %{z}"), _("weight: %{z:.2f}"))
    titles = (_("scores: q·k / √d_head"), _("causal mask (j ≤ i)"), _("softmax: attention weights"))
    data, axes, notes = [], {}, []
    for k in range(3):
        s = "" if k == 0 else str(k + 1)
        data.append(go.Heatmap(z=z[k], x=columns, y=labels if k == 0 else short, colorscale=scales[k],
                               zmin=ranges[k][0], zmax=ranges[k][1], showscale=False, xaxis="x" + s, yaxis="y" + s,
                               customdata=[[[labels[i], labels[j]] for j in range(len(ids))] for i in range(len(ids))],
                               hovertemplate="%{customdata[0]} → %{customdata[1]}<br>" + hover[k] + "<extra></extra>"))
        axes["xaxis" + s] = {"domain": panels[k], "anchor": "y" + s, "type": "category",
                             "tickangle": 0 if present else -60, "tickfont": {"size": size}}
        axes["yaxis" + s] = {"domain": [0, 1], "anchor": "x" + s, "type": "category", "autorange": "reversed",
                             "tickfont": {"size": size}}
        notes.append({"text": titles[k], "x": sum(panels[k]) / 2, "y": 1.0, "xref": "paper", "yref": "paper",
                      "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": 13}})
    fig = go.Figure(data, go.Layout(annotations=notes, **axes))
    layout(fig, _("Layer 1, head {h} of {n}: where each position looks", h=head + 1, n=a.heads), height=height)
    fig.update_layout(margin={"l": left, "r": 10, "t": 70, "b": 80})
    if present:  # the panels' titles at the top, the column numbers under them: the rest of the height is the rows'
        fig.update_layout(margin={"t": ATTENTION_EDGE, "b": ATTENTION_EDGE})
    T = len(ids)
    top = [int(np.argmax(a.weights[i])) for i in range(T)]
    last = shown_token(emb.token(ids[top[-1]]))
    said = with_words(fig, _("Head {h} of {n} on {T} positions, in three grids: the scores q·k / √d_head (from {lo:+.2f} to "
                             "{hi:+.2f}); the causal mask, which lets each position look at itself and those before it "
                             "({kept:,} of {all:,} pairs); and the softmax, whose weights in each row sum to 1. The last "
                             "position gives its largest weight, {w:.2f}, to position {j}, “{token}”.", h=head + 1,
                             n=a.heads, T=T, lo=float(a.scores.min()), hi=float(a.scores.max()), kept=int(a.mask.sum()),
                             all=T * T, w=float(a.weights[-1, top[-1]]), j=top[-1], token=last),
                      {_("position"): [f"{k}: {shown_token(emb.token(i))}" for k, i in enumerate(ids)],
                       _("looks most at"): [f"{j}: {shown_token(emb.token(ids[j]))}" for j in top],
                       _("weight"): [num(float(a.weights[i, j]), ".2f") for i, j in enumerate(top)]})
    if present:  # the step's heading and its head picker say what the title said; the chart's words keep it
        said.update_layout(title={"text": None})
    return said
