"""Figures of the Lesson page that no other page draws: the lesson's example ids as rows, x for a context,
and layer 0's attention of andrea-micro (scores, causal mask, softmax)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..byte_tokens import shown_token
from ..i18n import _, num
from ..lesson import attention_preview, x_matrix
from ..safe_text import plot
from .style import DIVERGING, layout
from .words import with_words

PANELS = ([0.0, 0.3], [0.35, 0.65], [0.7, 1.0])  # three heatmaps side by side


def rows_heatmap(emb, ids: tuple[int, ...], height: int = 240) -> go.Figure:
    """The rows that ids select, one heatmap row each: the lookup, drawn."""
    rows = emb.token_table[list(ids)]
    lim = float(np.abs(rows).max()) or 1.0
    # ids written as the title lists them, without a thousands mark (in a list of ids one would read as a comma)
    names = [_("row {id}", id=i) for i in ids]
    fig = go.Figure(go.Heatmap(z=rows, y=names, colorscale=DIVERGING, zmin=-lim,
                               zmax=lim, showscale=False, hovertemplate=_("%{y} · dim %{x}: %{z:.4f}") + "<extra></extra>"))
    layout(fig, _("ids {ids} → {n} rows of the ({V:,}, {d}) table", ids=list(ids), n=len(ids), V=emb.vocab_size,
                  d=emb.d_model), x=_("dimension"), height=height)
    # every row named: at a projector's 18 px plotly's own ticks kept one of three
    fig.update_layout(yaxis={"autorange": "reversed", "type": "category", "tickmode": "array", "tickvals": names},
                      margin={"t": 50, "b": 45})
    lengths = np.linalg.norm(rows.astype(np.float64), axis=1)
    return with_words(fig, _("The ids {ids} pick {n} rows of the ({V:,}, {d}) table, one heatmap row each: {d} numbers per "
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


def attention_of(emb, ids: tuple[int, ...], head: int, height: int = 330) -> go.Figure:
    """Three small heatmaps: q·k/√d_head, the causal mask, and the softmax of the allowed scores."""
    a = attention_preview(emb, ids, head)
    labels = [f"{k}: {plot(shown_token(emb.token(i)))}" for k, i in enumerate(ids)]
    short = [f"{k}: {plot(shown_token(emb.token(i), short=True))}" for k, i in enumerate(ids)]  # the turned x labels
    lim = float(np.abs(a.scores).max()) or 1.0
    z = (a.scores, a.mask.astype(float), a.weights)
    scales = (DIVERGING, [[0, "#ffffff"], [1, "#555555"]], "Blues")
    ranges = ((-lim, lim), (0, 1), (0, 1))
    hover = ("q·k/√d: %{z:.2f}", _("allowed: %{z}"), _("weight: %{z:.2f}"))
    titles = (_("scores: q·k / √d_head"), _("causal mask (j ≤ i)"), _("softmax: attention weights"))
    data, axes, notes = [], {}, []
    for k in range(3):
        s = "" if k == 0 else str(k + 1)
        data.append(go.Heatmap(z=z[k], x=short, y=labels, colorscale=scales[k], zmin=ranges[k][0], zmax=ranges[k][1],
                               showscale=False, xaxis="x" + s, yaxis="y" + s,
                               hovertemplate="%{y} → %{x}<br>" + hover[k] + "<extra></extra>"))
        axes["xaxis" + s] = {"domain": PANELS[k], "anchor": "y" + s, "type": "category", "tickangle": -60,
                             "tickfont": {"size": 10}}
        axes["yaxis" + s] = {"domain": [0, 1], "anchor": "x" + s, "type": "category", "autorange": "reversed",
                             "showticklabels": k == 0, "tickfont": {"size": 10}}
        notes.append({"text": titles[k], "x": sum(PANELS[k]) / 2, "y": 1.0, "xref": "paper", "yref": "paper",
                      "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": 13}})
    fig = go.Figure(data, go.Layout(annotations=notes, **axes))
    layout(fig, _("Layer 1, head {h} of {n}: where each position looks", h=head + 1, n=a.heads), height=height)
    fig.update_layout(margin={"l": 80, "r": 10, "t": 70, "b": 80})
    T = len(ids)
    top = [int(np.argmax(a.weights[i])) for i in range(T)]
    last = shown_token(emb.token(ids[top[-1]]))
    return with_words(fig, _("Head {h} of {n} on {T} positions, in three grids: the scores q·k / √d_head (from {lo:+.2f} to "
                             "{hi:+.2f}); the causal mask, which lets each position look at itself and those before it "
                             "({kept:,} of {all:,} pairs); and the softmax, whose weights in each row sum to 1. The last "
                             "position gives its largest weight, {w:.2f}, to position {j}, “{token}”.", h=head + 1,
                             n=a.heads, T=T, lo=float(a.scores.min()), hi=float(a.scores.max()), kept=int(a.mask.sum()),
                             all=T * T, w=float(a.weights[-1, top[-1]]), j=top[-1], token=last),
                      {_("position"): [f"{k}: {shown_token(emb.token(i))}" for k, i in enumerate(ids)],
                       _("looks most at"): [f"{j}: {shown_token(emb.token(ids[j]))}" for j in top],
                       _("weight"): [num(float(a.weights[i, j]), ".2f") for i, j in enumerate(top)]})
