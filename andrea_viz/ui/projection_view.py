"""The Projection page's panels: the map's figures, its colouring and labelled regions, the map itself drawn by the
chosen renderer (a click picks the token whose true neighbours get lines), and the downloads.

Every cached piece is keyed by the model, the method's own parameters (``params``: the per-method cache key) and
what the piece itself reads, so a setting of another method recomputes nothing.
"""

from __future__ import annotations

import streamlit as st

from ..maps.clusters import MAP_LABELS, NOISE, cluster_ids, map_labels, zoom_labels
from ..geometry import MAX_QUERY_CHARS, ready_to_search
from ..maps import quality as map_quality
from ..maps.choice import default_for
from ..i18n import Msg, _, num, short_duration, tr
from ..maps.colours import COLOURINGS, colouring_label, shade
from ..model import Embeddings
from ..maps.scene import build_scene
from ..plots.canvas_map import default_renderer, scene_payload, with_lines
from ..plots.deck_map import deck_legend, scene_deck
from ..plots.projection import clicked_id, deck_clicked_id, map_words, scene_scatter
from ..plots.words import Words
from ..maps.export import coordinates_csv, projector_metadata, projector_tsv
from ..maps.methods import METHODS
from ..maps.trust import TRUST_SAMPLE
from ..safe_text import md
from . import map_view, url
from .cache import remember
from .charts import chart, words_box
from .widgets import metric_columns

RENDERERS_2D = ("canvas", "plotly", "deck")
PICKED = "proj:picked"  # the token whose true 10 nearest get lines (typed, or clicked on the map)


def projection_metrics(result, axes: tuple[int, ...]) -> None:
    """Points, time (computed or read from the disk cache), mean trust, and PCA's variance shown."""
    proj = result.projection
    m = metric_columns(4)
    m[0].metric(_("Points"), num(len(result.sample)))
    m[1].metric(_("Time"), short_duration(proj.seconds),
                help=_("computed once, then kept on the server's disk: this map was read from there")
                if result.from_cache else _("the first time; views after that come from the cache"))
    m[2].metric(_("{k} nearest kept", k=10), num(result.trust_mean, ".1%"),  # the card's name for the same figure
                help=_("Average share of each point's 10 nearest neighbours in the full space (by cosine) that are also "
                       "among its 10 nearest in the picture")
                + (" " + _("(scored on {n:,} of the points)", n=TRUST_SAMPLE) if len(result.sample) > TRUST_SAMPLE else ""))
    if proj.explained_variance_ratio is not None:
        m[3].metric(_("Variance shown"), num(float(proj.explained_variance_ratio.sum()), ".1%"),
                    help=", ".join(f"PC{a + 1}: {num(float(r), '.2%')}" for a, r in
                                   zip(axes, proj.explained_variance_ratio, strict=False)))


def measured_method(points: int) -> None:
    """Which of the app's methods measurement favours for a map of this many points, and why (``map_choice``: the
    figures of bench-map --methods at the nearest measured size)."""
    chosen = default_for(points)
    if chosen is not None:
        st.caption(_("Measurement favours {method} for a map of {n:,} points. {why}", n=points,
                     method=tr(METHODS[chosen.method].label), why=tr(chosen.why)))


QUALITY_FULL = "proj:quality-full"  # the map (its params) whose card was asked for over every point


def quality_card(emb: Embeddings, result, params: tuple) -> None:
    """The map's quality card (``map_quality``): T@10, C@10, triplet accuracy and the share of the 10 nearest kept.
    A map of at most 5,000 points is measured whole; a larger one shows the seeded 5,000-point estimate, and a
    button measures every point (when ``full_affordable``) and shows that beside it. Computed once per map, with a
    bar; drawn below the map, so that the map never waits for it."""
    n = len(result.sample)
    whole = st.session_state.get(QUALITY_FULL) == params
    card = remember(("proj:quality", emb.key, *params, whole), lambda progress: map_quality.card(
        emb.token_table[result.sample.ids], result.projection.coords, seed=int(result.settings.get("seed", 0)),
        full=whole,
        progress=lambda f: progress(f, Msg("T@10, C@10 and triplets"))), label=_("Measuring the map:"),
        per_language=False)
    affordable = map_quality.full_affordable(n, emb.d_model, result.projection.coords.shape[1])
    columns = [(_("every point ({n:,})", n=n), card.full)]
    if card.sample is not None:
        columns.append((_("seeded sample ({n:,})", n=card.sample.points), card.sample))
    rows = [(_("Trustworthiness T@{k}", k=card.k), "trustworthiness", ".3f"),
            (_("Continuity C@{k}", k=card.k), "continuity", ".3f"),
            (_("Triplet accuracy ({n:,} triplets)", n=map_quality.TRIPLETS), "triplets", ".1%"),
            (_("{k} nearest kept", k=card.k), "kept", ".1%")]
    missing = _("not measured yet") if affordable else _("too costly here")
    head = "| " + _("Map quality") + " | " + " | ".join(name for name, _s in columns) + " |"
    lines = [head, "|" + "---|" * (len(columns) + 1)]
    for label, field, spec in rows:
        cells = [num(getattr(sc, field), spec) if sc is not None else missing for _n, sc in columns]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    with st.container(key="proj-quality"):
        st.markdown("\n".join(lines))
        if card.full is None and affordable and st.button(_("Measure every point"), key="proj:quality-button"):
            st.session_state[QUALITY_FULL] = params
            st.rerun()
        st.caption(_("T: of each point's {k} nearest on the map, how near they are in {d} dimensions (cosine); C: of "
                     "its {k} nearest in {d} dimensions, how near they stay on the map; triplets: how often the map "
                     "agrees on which of two random tokens is nearer to a third. 1 is perfect.", k=card.k,
                     d=emb.d_model))


def colour_choice(emb: Embeddings, result, params: tuple, column) -> tuple[str, tuple | None]:
    """The colour picker, and for a score of the table (under-trained, kept at a precision) its shading, computed
    once per model and sample with a progress bar, its texts in this language."""
    labels = {"groups": _("word groups"), **{c: tr(colouring_label(c)) for c in COLOURINGS}}  # in this language
    colour = column.selectbox(_("Colour"), list(labels), key="proj:colour", format_func=labels.get,
                              help=_("Word groups, the trust of each point, or a score of the table itself: the Anatomy "
                                     "page's under-trained score, or how many of a token's 10 nearest neighbours a "
                                     "precision keeps (the Neighbours page's Jaccard@10 at a lower precision, computed over the whole table "
                                     "once)."))
    if colour in ("groups", "trust"):
        return colour, None
    shading = remember(("proj:shade", emb.key, *params, colour), lambda progress: shade(
        emb, colour, result.sample.ids, progress=progress), label=_("Scoring the table:"), per_language=False)
    return colour, (shading[0], shading[1], tr(shading[2]), None if shading[3] is None else tuple(map(tr, shading[3])))


def labelled_regions(emb: Embeddings, result, params: tuple, column, dims: int):
    """The "Label the regions" box (kept in the URL); when ticked on a 2-D map, the clusters found in d dimensions
    (``None`` otherwise) and a caption counting them."""
    ticked = column.checkbox(_("Label the regions"), url.initial("labels", 0, url.int_in(0, 1)) == 1,
                             key="proj:labels", disabled=dims != 2,
                             help=_("Clusters found in the {d} dimensions of the table (HDBSCAN), each named by "
                                    "what its tokens share. On a 2-D map plotly and deck.gl write the {n} largest; "
                                    "the canvas writes 8 groups of them on the whole map, then 16, 32 and 64 as you "
                                    "zoom in.",
                                    d=emb.d_model, n=MAP_LABELS))
    url.keep(labels=1 if ticked else None)
    if not (ticked and dims == 2):
        return None
    found = remember(("proj:clusters", emb.key, *params), lambda progress: cluster_ids(
        emb, result.sample.ids, progress=progress, near=result.graph_ids(emb)), label=_("Finding clusters:"), per_language=False)
    st.caption(_("{n:,} clusters of {N:,} tokens, found in {d} dimensions; {noise:,} tokens belong to none.",
                 n=len(found.clusters), N=found.ids.size, d=emb.d_model, noise=int((found.assignment == NOISE).sum())))
    return found


def lines_to_nearest(emb: Embeddings, result, params: tuple, include: tuple[str, ...], column):
    """The word whose true 10 nearest in d dimensions get lines (a click on the map sets it): its place in the map
    and those neighbours, or ``(None, None)``."""
    picked = st.session_state.get(PICKED)
    chosen = column.text_input(_("Draw lines to the true 10 nearest of"), picked or (include[0] if include else ""),
                               key=f"proj:lines:{picked}", max_chars=MAX_QUERY_CHARS,
                               help=_("Click a point of the map, or type a word that is in it."))
    index = result.position_of(chosen) if chosen else None
    if chosen and index is None:
        st.caption(_("“{word}” is not in this map.", word=md(chosen)))
    ready_to_search(emb, result.sample.ids)  # once per model: a first click as quick as the next
    lines = remember(("proj:lines", emb.key, *params, index), lambda progress: result.true_nearest(emb, index)
                     if index is not None else None, label=None)
    return index, lines


def _pick_canvas_click(result) -> None:
    """The canvas map's on_change, before the rerun a click causes: that one run draws the lines."""
    got = map_view.canvas_clicked_id("proj:canvasmap")
    at = None if got is None else result.position_of(f"#{got}")
    if at is not None:
        st.session_state[PICKED] = result.tokens[at]


def drawn_map(emb: Embeddings, result, params: tuple, *, dims: int, points: int, colour: str, shading, found,
              index, lines, column) -> None:
    """The "Drawn by" choice (canvas above the size where plotly stops being fluid, plotly for 3-D) and the map it
    draws; a click on a point makes it the one whose true neighbours get lines."""
    proj = result.projection
    renderers = list(RENDERERS_2D) if dims == 2 else ["plotly"]
    drawn_by = {"canvas": _("canvas (fluid at any size)"), "plotly": "plotly", "deck": "deck.gl (WebGL)"}
    default = default_renderer(points, dims)
    renderer = column.radio(_("Drawn by"), renderers, horizontal=True, key="proj:renderer",
                            index=renderers.index(url.initial("renderer", default, allowed=renderers)),
                            format_func=drawn_by.get,
                            help=_("canvas draws the points once and moves that picture while you pan, so it stays "
                                   "fluid with the whole table on screen; plotly draws the word groups with their "
                                   "names; deck.gl draws every point in one WebGL layer on each frame."))
    url.keep(renderer=None if renderer == default else renderer)
    values, scores, scale, ends = (None, None, None, None) if shading is None else shading
    scene = build_scene(proj, result.sample, result.tokens, result.trust, colour_by_trust=colour == "trust",
                        shade=values, scores=scores, scale=scale, ends=ends, lines_from=index, lines_to=lines,
                        labels=None if found is None else map_labels(found, proj.coords, top=MAP_LABELS),
                        zoom_labels=None if found is None else zoom_labels(found, proj.coords))
    title = tr(result.title)
    if renderer == "canvas":
        base = remember(("proj:canvas", emb.key, *params, colour, found is not None),
                        lambda progress: scene_payload(scene), label=None)
        clicked = map_view.canvas_map(with_lines(base, index, lines), key="proj:canvasmap",
                                      on_click=lambda: _pick_canvas_click(result))
    elif renderer == "deck":
        event = st.pydeck_chart(remember(("proj:deck", emb.key, *params, colour, index, found is not None),
                                         lambda progress: scene_deck(scene), label=None),
                                height=700, on_select="rerun", selection_mode="single-object", key="proj:deckmap")
        clicked = deck_clicked_id(getattr(getattr(event, "selection", None), "objects", None) or {})
        st.html(deck_legend(scene))  # deck.gl draws no key of its own
    else:
        fig = remember(("proj:fig", emb.key, *params, colour, index, found is not None),
                       lambda progress: scene_scatter(scene, title), label=None)
        event = chart(fig, key="proj:map", on_select="rerun", selection_mode="points")
        clicked = clicked_id(getattr(getattr(event, "selection", None), "points", None) or [])
    if renderer != "plotly":  # the plotly map's words come with it (chart); the same words under the other two
        words_box(Words(*map_words(scene, title), title=title), key=f"proj:{renderer}map")
    if clicked is not None:
        token = result.tokens[result.position_of(f"#{clicked}")]
        if token != st.session_state.get(PICKED):
            st.session_state[PICKED] = token
            st.rerun()


def projection_caption(emb: Embeddings, method: str, result) -> None:
    text = _("{note}. {hint}", note=tr(result.projection.note),  # the note is a phrase; Chinese ends it with 。
             hint=_("Hover a point for its token, id and the share of its 10 nearest neighbours kept; click it to "
                    "draw lines to its true 10 nearest in {d} dimensions, and see which ones the map tore away.",
                    d=emb.d_model))
    if method == "pca":
        text = _("{first} {then}", then=text,  # two sentences: Chinese puts no space between them
                 first=_("PCA keeps the directions of largest variance; a token table spreads its variance over many "
                         "directions, so a few components hold little of it and few neighbourhoods survive. t-SNE and "
                         "UMAP give up global distances to keep near neighbours near."))
    st.caption(text)


def projection_downloads(emb: Embeddings, result) -> None:
    """CSV with trust, and the Embedding Projector's two .tsv files; written when a button is clicked (not on
    every rerun), and a click reruns nothing."""
    row = st.container(horizontal=True)  # each button as wide as its words (a third of the page cut the Dutch one)
    s, coords = result.sample, result.projection.coords
    row.download_button(_("Coordinates with trust (CSV)"),
                        lambda: coordinates_csv(coords, result.tokens, s.ids, s.groups, trust=result.trust),
                        "projection.csv", "text/csv", on_click="ignore")
    row.download_button(_("vectors.tsv (Embedding Projector)"),
                        lambda: projector_tsv(emb.token_table[s.ids], result.tokens, s.ids, s.groups)[0],
                        "vectors.tsv", "text/tab-separated-values", on_click="ignore")
    row.download_button(_("metadata.tsv (Embedding Projector)"), lambda: projector_metadata(result.tokens, s.ids, s.groups),
                        "metadata.tsv", "text/tab-separated-values", on_click="ignore")
    st.caption(_("Load both .tsv files at projector.tensorflow.org (Load → vectors, then metadata)."))
