"""Pictures of the table's anatomy: every row's under-trained score, each dimension's part of the cosine."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..i18n import _, num, sentences
from .style import BLUE, GREY, ORANGE, RED, layout, marked_line
from .words import with_words
from ..anatomy.dims import stats_of
from ..anatomy.report import undertrained_of as compute
from .lookup import overview_of


def scores_histogram(scores: np.ndarray, threshold: float, marked: np.ndarray | None, marked_label: str,
                     rest_label: str, title: str) -> go.Figure:
    """Every row's score as a histogram, the ``marked`` rows (a boolean mask) stacked in their own colour."""
    bins = {"start": float(scores.min()), "end": float(scores.max()) + 1e-9,
            "size": max(float(scores.max() - scores.min()) / 80, 1e-9)}
    fig = go.Figure()
    groups = [(np.ones(scores.size, bool) if marked is None else ~marked, rest_label, BLUE)]
    if marked is not None:
        groups.append((marked, marked_label, RED))
    for mask, name, colour in groups:
        fig.add_trace(go.Histogram(x=scores[mask], xbins=bins, name=name, marker={"color": colour, "line": {"width": 0}},
                                   hovertemplate=_("score %{x}<br>%{y:,} rows") + "<extra></extra>"))
    fig.update_layout(barmode="stack", legend={"orientation": "h", "y": -0.25})
    layout(fig, title, x=_("score (higher: more under-trained)"), y=_("rows"), height=380)
    marked_line(fig, threshold, _("threshold {t:.3f}", t=threshold), colour=ORANGE, side="left")
    said = [_("The under-trained score of each of {n:,} rows, as a histogram: from {lo:.3f} to {hi:.3f}; {above:,} rows are "
              "at or above the threshold {t:.3f}.", n=scores.size, lo=float(scores.min()), hi=float(scores.max()),
              above=int((scores >= threshold).sum()), t=threshold)]
    if marked is not None:
        said.append(_("{label}: {m:,} rows, {up:,} of them at or above it.", label=marked_label, m=int(marked.sum()),
                      up=int((scores[marked] >= threshold).sum())))
    return with_words(fig, sentences(said))


def undertrained_figure(emb, reference_text: str | None) -> go.Figure:
    u = compute(emb, reference_text)
    r = u.ranked
    if u.truth is not None:
        marked, label = u.truth.never_in_batch, _("never in a batch (the run's record)")
    else:
        marked = np.zeros(r.scores.size, bool)
        marked[list(r.reference.ids)] = True
        label = _("reference rows")
    return scores_histogram(r.scores, r.threshold, marked if marked.any() else None, label, _("other rows"),
                            _("Every row's score"))


def dimension_parts(contribution: np.ndarray, top: tuple[int, ...], title: str) -> go.Figure:
    colours = np.full(contribution.size, GREY, dtype=object)
    colours[list(top)] = RED
    fig = go.Figure(go.Bar(x=np.arange(contribution.size), y=contribution, marker={"color": colours, "line": {"width": 0}},
                           hovertemplate=_("dimension %{x}: %{y:+.5f}") + "<extra></extra>"))
    fig.update_yaxes(exponentformat="none")  # 0.0003, not plotly's SI "300µ"
    layout(fig, title, x=_("dimension"), y=_("part of the average cosine"), height=340)
    top = list(top)
    said = _("{d:,} bars, one per dimension: their parts sum to the average cosine {c:+.4f}; the largest part is {hi:+.5f}, "
             "of dimension {i}.", d=contribution.size, c=float(contribution.sum()), hi=float(contribution.max()),
             i=int(np.argmax(contribution)))
    if top:
        said += " " + _("The top {k} in red give {share:.0%} of it.", k=len(top),
                        share=float(contribution[top].sum() / contribution.sum()) if contribution.sum() else 0.0)
    return with_words(fig, said, {_("dimension"): [num(i) for i in top],
                                  _("part of the average cosine"): [num(float(contribution[i]), "+.5f") for i in top]}
                      if top else None)


def dimension_parts_of(emb, remove: int) -> go.Figure:
    st = stats_of(emb)
    return dimension_parts(st.contribution, st.top(remove),
                           _("Each dimension's part of the average cosine {c:+.4f} (the top {k} in red)",
                             c=st.avg_cosine, k=remove))




def marked_overview_of(emb, reference_text: str | None, remove: int) -> go.Figure:
    """The Lookup page's overview of the whole table, with the rows at or above the threshold marked in a strip at
    its left and the top ``remove`` dimensions of the average cosine marked along its top."""
    fig = go.Figure(overview_of(emb, 0))
    fig.layout.shapes, fig.layout.annotations = (), ()  # no looked-up row here
    flagged = compute(emb, reference_text).ranked.flagged
    x_strip = -max(1.0, emb.d_model / 60)
    fig.add_scatter(x=np.full(flagged.size, x_strip), y=flagged, mode="markers", name=_("at or above the threshold"),
                    marker={"color": RED, "symbol": "line-ew-open", "size": 9, "line": {"width": 2, "color": RED}},
                    hovertemplate="#%{y}<extra></extra>")
    top = stats_of(emb).top(remove)
    if top:
        fig.add_scatter(x=list(top), y=np.full(len(top), -emb.vocab_size / 60), mode="markers",
                        name=_("the top {k} dimensions", k=remove),  # the triangles mark them (not the table less them)
                        marker={"color": ORANGE, "symbol": "triangle-down", "size": 11},
                        hovertemplate="%{x}<extra></extra>")
    fig.update_layout(title={"text": _("The whole table: rows at or above the threshold (left) and the top {k} "
                                       "dimensions (top)", k=remove)},
                      legend={"orientation": "h", "y": -0.15}, showlegend=True)
    said = _("The whole {V:,} × {d:,} token table as an overview: {n:,} rows at or above the under-trained threshold are "
             "marked at its left.", V=emb.vocab_size, d=emb.d_model, n=int(flagged.size))
    if top:
        said += " " + _("The top {k} dimensions of the average cosine are marked along its top: {dims}.", k=len(top),
                        dims=", ".join(num(int(i)) for i in top))
    return with_words(fig, said)
