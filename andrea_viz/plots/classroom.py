"""The class's misconception grid: which word pairs the learners put in the wrong order, and how many."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..classroom.answers import Grid
from ..i18n import _, num
from ..safe_text import plot
from .style import layout
from .words import with_words


def grid_heatmap(grid: Grid, labels: list[str]) -> go.Figure:
    """Rows: the pair put too high; columns: the pair put too low; a cell: learners who did so. ``labels`` are
    the pairs as the teacher reads them (untrusted words made inert here)."""
    names = [plot(label) for label in labels]
    fig = go.Figure(go.Heatmap(z=grid.wrong, x=names, y=names, colorscale="Reds", zmin=0,
                               zmax=max(1, grid.learners), texttemplate="%{z}", showscale=False,
                               hovertemplate=_("%{z} learners put %{y} above %{x}") + "<extra></extra>"))
    layout(fig, _("Misconception grid: pairs put in the wrong order ({n} learners)", n=grid.learners),
           x=_("put too low"), y=_("put too high"), height=160 + 60 * len(names))
    fig.update_yaxes(autorange="reversed")
    cells = [(int(grid.wrong[i, j]), i, j) for i in range(len(labels)) for j in range(len(labels)) if grid.wrong[i, j]]
    cells.sort(key=lambda c: (-c[0], c[1], c[2]))
    said = _("{n} learners ordered {k} word pairs; {w:,} times a pair was put above one whose cosine is higher.",
             n=grid.learners, k=len(labels), w=int(np.asarray(grid.wrong).sum()))
    if cells:
        c, i, j = cells[0]
        said += " " + _("The most common: {high} above {low}, by {c} learners.", high=labels[i], low=labels[j], c=c)
    return with_words(fig, said, {_("put too high"): [labels[i] for _c, i, _j in cells[:30]],
                                  _("put too low"): [labels[j] for _c, _i, j in cells[:30]],
                                  _("learners"): [num(c) for c, _i, _j in cells[:30]]} if cells else None)
