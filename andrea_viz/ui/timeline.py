"""One view of a timeline of snapshots, scrubbed by step: used by the Grow page for a run made in the
app and by the Checkpoint page for the snapshots a real run left in a folder."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import streamlit as st

from ..compare import aligned_map, pair_cosines
from ..errors import QueryError
from ..geometry import neighbours, resolve_ids
from ..i18n import _, num, tr
from ..lookup import unchanged_rows, value_stats
from ..plots import lookup as lookup_plots
from ..plots import timeline as plots
from ..safe_text import md
from ..timeline import Timeline
from ..model_words import class_words, default_pairs, tracked_word
from ..maps.sample import colour_slots
from .errors import show_error
from .tables import dataframe
from .charts import chart

MAP_CLASSES = 6  # classes drawn at first; more crowd the picture


def _pairs_from_text(text: str) -> list[tuple[str, str]]:
    """'king queen, red blue' -> [('king', 'queen'), ('red', 'blue')]"""
    out = []
    for part in text.split(","):
        words = part.split()
        if len(words) == 2:
            out.append((words[0], words[1]))
    return out


def timeline_view(tl: Timeline, key: str, classes: dict[str, list[str]], class_labels: dict[str, str],
                  unseen_tracked: list[int] | None = None, losses: list[float] | None = None,
                  explore: Callable[[int], None] | None = None) -> None:
    """The scrubber and everything drawn at the chosen step."""
    steps = tl.steps
    step = st.select_slider(_("Training step"), options=steps, value=steps[-1], key=f"{key}:step", format_func=num,
                            help=_("Every snapshot of the run; the pictures below show the table at this step."))
    i = steps.index(step)
    emb, first = tl.model(i), tl.first
    V = emb.vocab_size

    same_tok = tl.memo(("unchanged", "token", step), lambda: unchanged_rows(first.token_table, emb.token_table))
    m = st.columns(4)
    m[0].metric(_("Step"), num(step), help=_("{n} snapshots from step {a:,} to {b:,}", n=len(steps), a=steps[0],
                                                b=steps[-1]))
    if losses and 0 < step <= len(losses):
        m[1].metric(_("Loss at this step"), num(losses[step - 1], ".3f"))
    m[2].metric(_("Unchanged token rows"), f"{num(same_tok.size)} / {num(V)}",
                help=_("Rows equal to those of step {first:,}, compared bit for bit with the first snapshot, not "
                       "assumed.", first=steps[0]))
    if emb.output_table is not None and first.output_table is not None:
        same_out = tl.memo(("unchanged", "output", step), lambda: unchanged_rows(first.output_table, emb.output_table))
        m[3].metric(_("Output rows unchanged"), f"{num(same_out.size)} / {num(V)}",
                    help=_("The softmax gives every logit a gradient, so every output row moves at every step."))
    if step != steps[0] and unseen_tracked is not None:
        exact = sorted(unseen_tracked) == same_tok.tolist() if step == steps[-1] else None
        st.markdown(_(
            "**{n:,} token ids were never an input of any batch.** Their gradient is exactly zero, so Adam's moments "
            "stay zero and their update is zero: with no weight decay on the tables, those rows are still the step-0 "
            "rows, bit for bit.", n=len(unseen_tracked))
            + (" " + (_("At the last step the unchanged rows are exactly those ids.") if exact else
                      _("At the last step the unchanged rows are not exactly those ids.")) if exact is not None else ""))
        if same_tok.size:
            st.caption(_("Unchanged rows: {tokens}", tokens=", ".join(md(emb.token(t)) for t in same_tok[:40])
                         + (" …" if same_tok.size > 40 else "")))

    c1, c2 = st.columns(2)
    stats = tl.memo(("stats", step), lambda: value_stats(emb.token_table, emb.card.init_std))
    chart(lookup_plots.value_histogram(stats, emb.d_model, log_y=True), where=c1, key=f"{key}:hist")

    with c2:
        pairs_text = st.text_input(_("Word pairs to follow (two words each, separated by commas)"),
                                   ", ".join(f"{a} {b}" for a, b in default_pairs(tl.last)), key=f"{key}:pairs")
        pairs = _pairs_from_text(pairs_text)
        if pairs:
            series = tl.memo(("pairs", tuple(pairs)),
                             lambda: pair_cosines([tl.model(k) for k in range(len(steps))], pairs))
            chart(plots.pair_series(steps, series, step), key=f"{key}:pairs-chart")
            if any(np.isnan(v).all() for v in series.values()):
                st.caption(_("A pair that this model cannot look up is left out of the picture."))

    word = st.text_input(_("Neighbours of a word at this step"), tracked_word(tl.last) or f"#{V - 2}",
                         key=f"{key}:word")
    try:
        query, found = neighbours(emb, word, k=10)
        dataframe([{_("rank"): r, _("token"): n.token, "id": n.id, _("cosine"): round(n.score, 4)}
                      for r, n in enumerate(found, 1)], width="content")
    except QueryError as exc:
        show_error(exc)

    words, groups = class_words(tl.last, classes)
    names = list(dict.fromkeys(groups))
    if len(names) > 1:
        shown = st.multiselect(_("Classes on the map"), names, default=names[:MAP_CLASSES], key=f"{key}:classes",
                               format_func={g: tr(class_labels.get(g, g)) for g in names}.__getitem__)
        keep = [g in shown for g in groups]
        words = [w for w, k in zip(words, keep, strict=True) if k]
        groups = [g for g, k in zip(groups, keep, strict=True) if k]
    if len(words) >= 3:
        ids = np.array([resolve_ids(tl.last, w)[1][0] for w in words])
        coords, ratio = tl.memo(("map", tuple(words)), lambda: aligned_map(
            [tl.model(k).token_table for k in range(len(steps))], ids, align="none"))
        labels = [tr(class_labels.get(g, g)) for g in groups]
        keys = list(dict.fromkeys(groups))  # each class in the colour its words have on every map
        slots = {tr(class_labels.get(g, g)): s for g, s in zip(keys, colour_slots(keys), strict=True)}
        chart(plots.class_map(coords, steps, words, labels, ratio, step, slots), key=f"{key}:map")
        st.caption(_("One PCA, fitted on the last snapshot, draws every snapshot on the same axes: snapshots of one "
                     "run share their coordinates, so nothing is rotated. Press {play} to watch the classes form.",
                     play=_("▶ Play")))  # the button's own label
    if explore is not None:
        st.button(_("Explore step {step:,} on every page", step=step), type="primary", key=f"{key}:explore",
                  on_click=explore, args=(step,),
                  help=_("Makes this snapshot the model of every page (it stays until you explore another)."))

