"""Pictures of a table changing over training steps: the loss, pair cosines, the class map."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..i18n import _
from ..safe_text import plot
from .style import GREY, PALETTE, RED, TEXT, layout


def loss_curve(losses: Sequence[float], steps: int, snapshot_steps: Sequence[int] = ()) -> go.Figure:
    """Training loss per step; the snapshots marked."""
    x = np.arange(1, len(losses) + 1)
    fig = go.Figure(go.Scatter(x=x, y=list(losses), mode="lines", line={"color": RED, "width": 2}, name=_("loss"),
                               hovertemplate=_("step %{x}: loss %{y:.3f}") + "<extra></extra>"))
    for s in snapshot_steps:
        if 0 < s <= len(losses):
            fig.add_vline(x=s, line={"color": GREY, "dash": "dot", "width": 1})
    fig.update_xaxes(range=[0, steps])
    return layout(fig, _("Training loss (cross-entropy of the next token); dotted: snapshots"), x=_("step"),
                  y=_("loss"), height=300)


def pair_series(steps: Sequence[int], series: dict[tuple[str, str], list[float]], chosen: int) -> go.Figure:
    """cos(a, b) at every snapshot, one line per pair; the chosen step marked."""
    fig = go.Figure()
    for (a, b), values in series.items():
        name = f"cos({plot(a)}, {plot(b)})"  # the pair as data, never as part of the template
        fig.add_scatter(x=list(steps), y=values, mode="lines+markers", name=name, customdata=[name] * len(values),
                        hovertemplate="%{customdata}" + _(" at step %{x}: %{y:+.3f}") + "<extra></extra>")
    fig.add_vline(x=chosen, line={"color": "black", "dash": "dot"})
    fig.add_hline(y=0, line={"color": "#bbb"})
    fig.update_yaxes(range=[-1, 1])
    fig.update_layout(legend={"orientation": "h", "y": -0.3})
    return layout(fig, _("Cosine of word pairs at each snapshot"), x=_("training step"), y=_("cosine"), height=380)


def class_map(coords: np.ndarray, steps: Sequence[int], tokens: Sequence[str], groups: Sequence[str],
              ratio: np.ndarray, chosen: int) -> go.Figure:
    """The class words in one 2-D frame at every snapshot, played as an animation over the steps.

    ``coords`` is (S, n, 2): the same PCA axes at every step, so the picture shows the table move.
    """
    names = sorted(set(groups))
    colors = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(names)}
    groups = np.array(groups)
    start = list(steps).index(chosen)

    def traces(k: int) -> list[go.Scatter]:
        out = []
        for g in names:
            m = groups == g
            out.append(go.Scatter(x=coords[k, m, 0], y=coords[k, m, 1], mode="markers+text", name=plot(g),
                                  text=[plot(t) for t, keep in zip(tokens, m, strict=True) if keep], textposition="top center",
                                  textfont={"size": 11, "color": TEXT}, marker={"size": 9, "color": colors[g]},
                                  hovertemplate="%{text}<extra>" + plot(g) + "</extra>"))
        return out

    fig = go.Figure(traces(start), frames=[go.Frame(name=str(s), data=traces(k)) for k, s in enumerate(steps)])
    lim = float(np.abs(coords).max()) * 1.1 or 1.0
    fig.update_xaxes(range=[-lim, lim])
    fig.update_yaxes(range=[-lim, lim], scaleanchor="x")
    opts = {"frame": {"duration": 600, "redraw": True}, "transition": {"duration": 300}, "fromcurrent": True}
    fig.update_layout(
        updatemenus=[{"type": "buttons", "direction": "left", "x": 0.0, "y": -0.1, "xanchor": "left",
                      "buttons": [{"label": _("▶ Play"), "method": "animate", "args": [None, opts]},
                                  {"label": _("❚❚ Pause"), "method": "animate",
                                   "args": [[None], {"mode": "immediate", "frame": {"duration": 0}}]}]}],
        sliders=[{"active": start, "x": 0.22, "len": 0.78, "y": -0.03,
                  "currentvalue": {"prefix": _("step") + " "},
                  "steps": [{"label": str(s), "method": "animate",
                             "args": [[str(s)], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}]}
                            for s in steps]}],
        legend={"title": {"text": _("class")}},
    )
    layout(fig, _("The class words on the final snapshot's two principal axes ({a:.0%} and {b:.0%} of its variance), "
                  "at every step", a=float(ratio[0]), b=float(ratio[1])), x="PC1", y="PC2", height=620)
    fig.update_layout(margin={"b": 120})
    return fig
