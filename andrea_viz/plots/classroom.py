"""The class's misconception grid: which word pairs the learners put in the wrong order, and how many."""

from __future__ import annotations

import plotly.graph_objects as go

from ..classroom.answers import Grid
from ..i18n import _
from ..safe_text import plot
from .style import layout


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
    return fig
