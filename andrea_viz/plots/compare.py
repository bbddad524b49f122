"""Pictures of two tables of one vocabulary: how far tokens moved, and where."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..colour_vision import text_shade
from ..i18n import _, num
from ..safe_text import plot
from .style import BLUE, ORANGE, PURPLE, WORD_PX, kept_apart, layout, log_axis, marked_line, words_on_top
from .words import with_words


def drift_histogram(drift: np.ndarray, aligned: str) -> go.Figure:
    d = drift[np.isfinite(drift)]
    fig = go.Figure(go.Histogram(x=d, nbinsx=80, marker_color=PURPLE, marker_line_width=0,
                                 hovertemplate=_("drift %{x}<br>%{y:,} tokens") + "<extra></extra>"))
    fig.update_yaxes(log_axis(1, max(len(d), 10)))  # counts of tokens: 1 to all of them, labelled the language's way
    how = {"procrustes": _("after a Procrustes rotation of A onto B"),
           "anchors": _("over the anchors held out of the map's fit, A mapped onto B")}.get(aligned) \
        or _("in place (no rotation)")
    title = (_("Drift of each anchor held out of the map's fit: 1 − cos(A, B), A mapped onto B") if aligned == "anchors"
             else _("Drift of every token: 1 − cos(A, B), {how}", how=how))  # two vocabularies: not every token
    layout(fig, title, x=_("drift"), y=_("tokens (log scale)"), height=360)
    if not d.size:
        return fig
    marked_line(fig, float(np.median(d)), _("median {m:.3f}", m=float(np.median(d))))
    return with_words(fig, _("How far each of {n:,} tokens moved from A to B, as 1 − cos, {how}: median {m:.3f}, the largest "
                             "{hi:.3f}, the smallest {lo:.3f}; tokens that moved more than 0.5: {far:,}.", n=d.size, how=how,
                             m=float(np.median(d)), hi=float(d.max()), lo=float(d.min()), far=int((d > 0.5).sum())))


def heading(a, b) -> float:
    """The compass angle in degrees (0 up, clockwise, as plotly turns a marker with angleref "up") of the arrow from
    ``a`` to ``b`` on axes of one scale; 0 for an arrow of no length."""
    dx, dy = float(b[0]) - float(a[0]), float(b[1]) - float(a[1])
    return float(np.degrees(np.arctan2(dx, dy))) if dx or dy else 0.0


HEAD_PX = 8  # an arrow's head, or a still token's dot: its word sits just above it
STILL = 1e-9  # an arrow shorter than this share of the map's extent is no arrow: its token did not move (drift 0)


def arrows_map(a_xy: np.ndarray, b_xy: np.ndarray, tokens: Sequence[str], groups: Sequence[str], ratio: np.ndarray) -> go.Figure:
    """Each token as an arrow from where it is in A (an open circle) to where it is in B (an arrowhead), on one PCA
    frame (fitted on B); a token that did not move is a dot, not a head pointing nowhere. The words are drawn last,
    over every marker (the tokens that hardly moved sit in one knot, where markers drawn after them hid them)."""
    fig = go.Figure()
    colors = {"most": ORANGE, "least": BLUE}
    names = {"most": _("moved most"), "least": _("moved least")}
    a2, b2 = np.asarray(a_xy, np.float64)[:, :2], np.asarray(b_xy, np.float64)[:, :2]
    both = np.vstack([a2, b2])
    length = np.linalg.norm(b2 - a2, axis=1)
    still = length <= STILL * max(float(np.ptp(both)) if both.size else 0.0, 1e-300)
    # the words written at the arrows' heads, those that moved most first: only those that fit apart (the tokens
    # that hardly moved sit in one knot at the middle); every one stays in the hover
    heads = [i for g in ("most", "least") for i, x in enumerate(groups) if x == g]
    written = [heads[k] for k in kept_apart([(b2[i, 0], b2[i, 1], tokens[i]) for i in heads], both,
                                            area=(700.0, 440.0), font=WORD_PX, equal=True)]
    for g in ("most", "least"):
        idx = [i for i, x in enumerate(groups) if x == g]
        if not idx:
            continue
        xs, ys = [], []
        for i in idx:
            if not still[i]:
                xs += [float(a2[i, 0]), float(b2[i, 0]), None]
                ys += [float(a2[i, 1]), float(b2[i, 1]), None]
        fig.add_scatter(x=xs, y=ys, mode="lines", line={"color": colors[g], "width": 1}, opacity=0.6, hoverinfo="skip",
                        showlegend=False)
        fig.add_scatter(x=a2[idx, 0], y=a2[idx, 1], mode="markers", marker={"color": colors[g], "size": 5,
                        "symbol": "circle-open"}, showlegend=False, hoverinfo="skip")
        fig.add_scatter(x=b2[idx, 0], y=b2[idx, 1], mode="markers", name=names[g], customdata=[plot(tokens[i]) for i in idx],
                        # each head turned along its own arrow (plotly's angleref "previous" turns it toward the
                        # point before it in the trace: the first, the token that moved most, had none and no head)
                        marker={"color": colors[g], "size": HEAD_PX,
                                "symbol": ["circle" if still[i] else "arrow" for i in idx],
                                "angleref": "up", "angle": [heading(a2[i], b2[i]) for i in idx]},
                        hovertemplate="%{customdata}<extra>" + names[g] + "</extra>")
    shades = [text_shade(colors[groups[i]]) for i in written]  # each word in its arrows' colour, dark enough to read
    fig.add_trace(words_on_top(b2[written, 0], b2[written, 1], [plot(tokens[i]) for i in written],
                               [HEAD_PX] * len(written), WORD_PX, shades))  # last: on top
    fig.update_yaxes(scaleanchor="x")
    layout(fig, _("From A (open circle) to B (arrowhead), on B's two principal axes ({a:.0%} and {b:.0%} of its "
                  "variance)", a=float(ratio[0]), b=float(ratio[1])), x="PC1", y="PC2", height=560,
           subtitle=_("A dot: a token that did not move ({n:,} of those drawn).", n=int(still.sum())) if still.any()
           else "")
    if not length.size:
        return fig
    far = int(np.argmax(length))
    order = np.argsort(-length, kind="stable")[:30]
    return with_words(fig, _("{n:,} tokens, each an arrow from its place in A to its place in B: {most:,} that moved most and "
                             "{least:,} that moved least; the longest arrow, {len:.2f}, is that of “{token}”.", n=length.size,
                             most=sum(g == "most" for g in groups), least=sum(g == "least" for g in groups),
                             len=float(length[far]), token=tokens[far]),
                      {_("token"): [tokens[i] for i in order], _("group"): [names.get(groups[i], groups[i]) for i in order],
                       _("arrow length"): [num(float(length[i]), ".3f") for i in order]})
