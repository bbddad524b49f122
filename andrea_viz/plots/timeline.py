"""Pictures of a table changing over training steps: the loss, pair cosines, the class map."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ..i18n import _, num
from ..safe_text import plot
from .style import GREY, RED, TEXT, WORD_PX, group_style, kept_apart, layout, play_controls, shared_colour, words_on_top
from .words import with_words


def loss_curve(losses: Sequence[float], steps: int, snapshot_steps: Sequence[int] = ()) -> go.Figure:
    """Training loss per step; the snapshots marked."""
    x = np.arange(1, len(losses) + 1)
    fig = go.Figure(go.Scatter(x=x, y=list(losses), mode="lines", line={"color": RED, "width": 2}, name=_("loss"),
                               hovertemplate=_("step %{x}: loss %{y:.3f}") + "<extra></extra>"))
    for s in snapshot_steps:
        if 0 < s <= len(losses):
            fig.add_vline(x=s, line={"color": GREY, "dash": "dot", "width": 1})
    fig.update_xaxes(range=[0, steps])
    layout(fig, _("Training loss (cross-entropy of the next token); dotted: snapshots"), x=_("step"),
           y=_("loss"), height=300)
    if not len(losses):
        return with_words(fig, _("No step has run yet, of {steps:,} planned.", steps=steps))
    y = np.asarray(losses, np.float64)
    low = int(np.nanargmin(y))
    said = _("The training loss at each of {n:,} steps of {steps:,} planned: {first:.3f} at step 1, {last:.3f} at step "
             "{n:,}; the lowest, {lo:.3f}, at step {at:,}.", n=len(y), steps=steps, first=float(y[0]), last=float(y[-1]),
             lo=float(y[low]), at=low + 1)
    marked = [s for s in snapshot_steps if 0 < s <= len(losses)]
    if marked:
        said += " " + _("Snapshots, marked with dotted lines: {k}.", k=len(marked))
    return with_words(fig, said)


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
    layout(fig, _("Cosine of word pairs at each snapshot"), x=_("training step"), y=_("cosine"), height=380)
    steps = list(steps)
    if not series or not steps:
        return fig
    k = steps.index(chosen) if chosen in steps else len(steps) - 1
    pairs = list(series.items())
    return with_words(fig, _("The cosine of each word pair (pairs: {n}) at each snapshot (snapshots: {s}), from step {a:,} to "
                             "step {b:,}; the dotted line marks step {c:,}.", n=len(pairs), s=len(steps), a=steps[0], b=steps[-1],
                             c=chosen),
                      {_("pair"): [f"{a}, {b}" for (a, b), _v in pairs],
                       _("at step {s:,}", s=steps[0]): [num(float(v[0]), "+.3f") for _p, v in pairs],
                       _("at step {s:,}", s=chosen): [num(float(v[k]), "+.3f") for _p, v in pairs],
                       _("at step {s:,}", s=steps[-1]): [num(float(v[-1]), "+.3f") for _p, v in pairs]})


CLASS_MARKER_PX = 9
CLASS_MAP_AREA = (440.0, 440.0)  # px of the class map's square plotting area (620 high, less its margins)


def class_map(coords: np.ndarray, steps: Sequence[int], tokens: Sequence[str], groups: Sequence[str],
              ratio: np.ndarray, chosen: int, slots: dict[str, int] | None = None) -> go.Figure:
    """The class words in one 2-D frame at every snapshot, played as an animation over the steps.

    ``coords`` is (S, n, 2): the same PCA axes at every step, so the picture shows the table move. ``slots``: each
    class's place in the palette (``maps.sample.colour_slots``: the colour its words have on every map); without it,
    the classes in name order.
    """
    names = sorted(set(groups))
    places = [slots[g] if slots else j for j, g in enumerate(names)]
    styles = {g: group_style(j) for j, g in zip(places, names, strict=True)}
    named = [names[j] for j in shared_colour(places)]  # colours seen twice: the class's name where it is
    groups = np.array(groups)
    start = list(steps).index(chosen)

    lim = float(np.abs(coords).max()) * 1.1 or 1.0
    corners = np.array([[-lim, -lim], [lim, lim]])  # the axes' ranges, one scale on both (scaleanchor)

    def traces(k: int) -> list[go.Scatter]:
        # at each step only the labels that overlap none already placed (in the words' order): the others clumped
        # into one unreadable blot; every word stays in its point's hover and in the chart's words
        kept = set(kept_apart([(float(x), float(y), str(t)) for (x, y), t in zip(coords[k], tokens, strict=True)],
                              corners, CLASS_MAP_AREA, font=WORD_PX, equal=True))
        out = []
        for g in names:
            at = np.flatnonzero(groups == g)
            out.append(go.Scatter(x=coords[k, at, 0], y=coords[k, at, 1], mode="markers", name=plot(g),
                                  customdata=[plot(tokens[i]) for i in at],
                                  marker={"size": CLASS_MARKER_PX, "color": styles[g][0], "symbol": styles[g][1]},
                                  hovertemplate="%{customdata}<extra>" + plot(g) + "</extra>"))
        shown = sorted(kept)  # the words over every class's markers, one trace in every frame
        out.append(words_on_top(coords[k, shown, 0], coords[k, shown, 1], [plot(tokens[i]) for i in shown],
                                [CLASS_MARKER_PX] * len(shown), WORD_PX, TEXT))
        for g in named:  # one trace per frame as well, so that the name moves with its class
            c = coords[k, groups == g].mean(axis=0)
            out.append(go.Scatter(x=[c[0]], y=[c[1]], mode="text", text=[f"<b>{plot(g)}</b>"], showlegend=False,
                                  textfont={"size": 13, "color": TEXT}, hoverinfo="skip"))
        return out

    fig = go.Figure(traces(start), frames=[go.Frame(name=str(s), data=traces(k)) for k, s in enumerate(steps)])
    fig.update_xaxes(range=[-lim, lim])
    fig.update_yaxes(range=[-lim, lim], scaleanchor="x")
    opts = {"frame": {"duration": 600, "redraw": True}, "transition": {"duration": 300}, "fromcurrent": True}
    fig.update_layout(
        **play_controls([str(s) for s in steps], start, opts, _("step") + " "),
        legend={"title": {"text": _("class")}},
    )
    layout(fig, _("The class words on the final snapshot's two principal axes ({a:.0%} and {b:.0%} of its variance), "
                  "at every step", a=float(ratio[0]), b=float(ratio[1])), x="PC1", y="PC2", height=620)
    fig.update_layout(margin={"b": 120})
    counts = ", ".join(_("{name}: {n} words", name=g, n=int((groups == g).sum())) for g in names)
    shown = min(len(tokens), 30)
    return with_words(fig, _("{n} class words ({counts}) on two principal axes, at {s} snapshots played in order; shown "
                             "at step {step:,}.", n=len(tokens), counts=counts, s=len(steps), step=chosen),
                      {_("token"): list(tokens[:shown]), _("class"): [str(g) for g in groups[:shown]],
                       "PC1": [num(float(v), ".2f") for v in coords[start, :shown, 0]],
                       "PC2": [num(float(v), ".2f") for v in coords[start, :shown, 1]]})
