"""Pictures of nearest neighbours and of the input versus output tables."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..geometry import Neighbour
from ..geometry import analogy, input_output_cosines, neighbours
from ..safe_text import plot
from ..i18n import N_, _, num, tr
from .style import PURPLE, RED, layout, marked_line
from .words import number, plain, with_words

METRIC_AXIS = {"cosine": N_("cosine similarity (higher is closer)"), "dot": N_("dot product (higher is closer)"),
               "euclidean": N_("euclidean distance (lower is closer)")}


def neighbour_bars(found: list[Neighbour], query: str, metric: str, title: str | None = None,
                   color: str = RED) -> go.Figure:
    labels = [plot(n.token) if n.token == f"#{n.id}" else f"{plot(n.token)}  #{n.id}" for n in found]
    fig = go.Figure(go.Bar(y=labels, x=[n.score for n in found], orientation="h", marker_color=color,
                           text=[num(n.score, ".3f") for n in found], textposition="auto",
                           hovertemplate="%{y}: %{x:.4f}<extra></extra>"))
    layout(fig, title or _("The {n} nearest tokens to “{query}”", n=len(found), query=plot(query)), x=tr(METRIC_AXIS[metric]),
           height=140 + 28 * len(found))
    fig.update_layout(yaxis={"autorange": "reversed", "type": "category"})
    if not found:
        return fig
    axis = tr(METRIC_AXIS[metric])
    return with_words(fig, _("{title}, nearest first, by {metric}: from {first} at {best} to {last} at {worst}.",
                             title=plain(fig.layout.title.text), metric=axis, first=found[0].token,
                             best=number(found[0].score), last=found[-1].token, worst=number(found[-1].score)),
                      {_("token"): [n.token for n in found], "id": [str(n.id) for n in found],
                       axis: [number(n.score) for n in found]})


def input_output_histogram(cos: np.ndarray) -> go.Figure:
    fig = go.Figure(go.Histogram(x=cos, nbinsx=100, marker={"color": PURPLE, "line": {"width": 0}},
                                 hovertemplate=_("cos %{x}<br>%{y:,} tokens") + "<extra></extra>"))
    layout(fig, _("cos(input row i, output row i) over the whole vocabulary"),
           x=_("cosine between a token's input and output vectors"), y=_("tokens"), height=380)
    marked_line(fig, float(np.median(cos)), _("median {m:+.3f}", m=float(np.median(cos))))
    return with_words(fig, _("The cosine between each token's input row and its output row, over {n:,} tokens, as a "
                             "histogram: median {m:+.3f}, from {lo:+.3f} to {hi:+.3f}; {pos:,} tokens are above 0.",
                             n=int(cos.size), m=float(np.median(cos)), lo=float(cos.min()), hi=float(cos.max()),
                             pos=int((cos > 0).sum())))


# --- figures from hashable arguments (cached by the app per model and language) ---
def neighbours_of(emb, word: str, k: int, metric: str, centered: bool) -> go.Figure:
    query, found = neighbours(emb, word, k=k, metric=metric, centered=centered)
    return neighbour_bars(found, query.text, metric)


def analogy_of(emb, a: str, b: str, c: str, k: int) -> go.Figure:
    _inputs, answers = analogy(emb, a, b, c, k=k)
    return neighbour_bars(answers, f"{a} − {b} + {c}", "cosine",
                          title=_("{a} − {b} + {c} ≈ ? (the three inputs excluded)", a=plot(a), b=plot(b), c=plot(c)))


def spaces_of(emb, word: str, k: int, space: str) -> go.Figure:
    _q, found = neighbours(emb, word, k=k, metric="cosine", space=space)
    title = (_("Input table: nearest to “{word}”", word=plot(word)) if space == "input" else
             _("Output table: nearest to “{word}”", word=plot(word)))
    return neighbour_bars(found, word, "cosine", title=title, color=RED if space == "input" else PURPLE)


def input_output_of(emb) -> go.Figure:
    return input_output_histogram(emb.memo(("input_output_cosines",), lambda: input_output_cosines(emb)))
