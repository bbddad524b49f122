"""Trained vectors in 2-D and 3-D: PCA, t-SNE and UMAP, with a trust score per point and downloads."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.clusters import MAP_LABELS, NOISE, cluster_ids, map_labels
from andrea_viz.geometry import MAX_QUERY_CHARS
from andrea_viz.map_colours import COLOURINGS, colouring_label, shade
from andrea_viz.i18n import _, num, tr
from andrea_viz.plots.canvas_map import LEVEL_LABELS, canvas_map_payload, default_renderer, with_lines
from andrea_viz.plots.deck_map import deck_map
from andrea_viz.plots.projection import clicked_id, deck_clicked_id, projection_scatter
from andrea_viz.safe_text import md
from andrea_viz.projection import (
    ALL, DEFAULT_SAMPLE, LARGE_MAP, METHODS, TRUST_SAMPLE, TSNE_EXACT_MAX, coordinates_csv, project_model,
    projector_metadata, projector_tsv, settings_for, umap_is_warm, warm_umap,
)

emb = ui.page_setup(__file__)
V = emb.vocab_size
st.title(_("Projecting vectors to 2-D and 3-D"))
st.markdown(_("Every token is a point in {d} dimensions. A projection draws a sample of them, or all of them, in 2 or 3; "
              "the trust score says how much of each point's neighbourhood survived the trip.", d=emb.d_model))
ui.offer_trained_example(emb, "proj")
if not umap_is_warm():  # the server started it in a process of its own (or, with the disk cache off, starts it now)
    warm_umap()
    st.caption(_("UMAP is getting ready: its numba code compiles once per machine, in the background."))

MIN_SAMPLE = 50  # the smallest sample offered (a smaller table is mapped whole)
LABELS = {name: _(m.label) for name, m in METHODS.items()}
with st.form("projection"):
    c = st.columns(4)
    method = c[0].radio(_("Method"), list(METHODS), format_func=LABELS.get, key="proj:method",
                        index=list(METHODS).index(ui.url.initial("method", "pca", allowed=METHODS)),
                        help=_("PCA: the directions of largest variance, exact on all dimensions. t-SNE: keeps near "
                               "neighbours near. UMAP: likewise, and maps the whole table in seconds."))
    dims = c[1].radio(_("Dimensions"), [2, 3], horizontal=True, key="proj:dims",
                      index=[2, 3].index(ui.url.initial("dims", 2, int, allowed=(2, 3))))
    n_min = min(MIN_SAMPLE, V)
    n_url = ui.url.initial("n", min(DEFAULT_SAMPLE, V),
                           lambda raw: raw if raw == ALL else ui.url.int_in(n_min, V)(raw))
    whole = c[2].checkbox(_("The whole table ({V:,} tokens)", V=V), value=n_url == ALL, key="proj:all")
    n_default = min(DEFAULT_SAMPLE, V) if n_url == ALL else n_url
    n = c[2].number_input(_("Tokens in the sample"), n_min, V, n_default, step=500, key="proj:n", disabled=False,
                          help=_("Ignored when the whole table is chosen."))
    seed = c[3].number_input(_("Seed"), 0, 1_000_000, ui.url.initial("seed", 0, ui.url.int_in(0, 1_000_000)), key="proj:seed",
                             help=_("Fixes the random sample and the t-SNE and UMAP layouts: the same seed gives the "
                                    "same map."))
    words = st.text_input(_("Words to include (the first is highlighted with its neighbours)"),
                          ui.widgets.default_word(emb, "cat"), max_chars=ui.MAX_TEXT_CHARS,
                          help=_("Comma-separated; these are always in the sample."))
    p = st.columns(5)
    axes = tuple(int(p[j].number_input(_("PCA component on {axis}", axis=ax), 1, min(50, emb.d_model), j + 1)) - 1
                 for j, ax in enumerate("xyz"))
    perplexity = p[3].slider(_("t-SNE perplexity"), 5, 50, 30, help=_("About how many neighbours each point attends to."))
    n_iter = p[4].slider(_("t-SNE iterations"), 250, 1000, 500, 50)
    st.form_submit_button(_("Project"), type="primary")

size = ALL if whole else int(n)
ui.url.keep(method=method, n=size, seed=int(seed), dims=int(dims))
points = V if whole else int(n)
if points > LARGE_MAP and dims == 3:  # a 2-D map of any size is drawn by the canvas map
    st.warning(_("{n:,} points: the map may take a while to draw in the browser.", n=points), icon="⏳")
if method == "tsne" and points > TSNE_EXACT_MAX:
    st.info(_("t-SNE of {n:,} points is slow: above {exact:,} points it switches to approximate neighbours. UMAP maps "
              "the whole table much faster.", n=points, exact=TSNE_EXACT_MAX))
include = tuple(w.strip() for w in words.split(",") if w.strip())
settings = settings_for(method, n=size, include=include, seed=int(seed), dims=int(dims), axes=axes,
                        perplexity=float(perplexity), n_iter=int(n_iter))  # only what this method reads: its cache key
params = (method, *settings.items())
with ui.explain_errors():
    result = ui.cached_with_progress(emb, project_model, method, **settings, label=_("Projecting:"))
    proj = result.projection
    m = st.columns(4)
    m[0].metric(_("Points"), num(len(result.sample)))
    m[1].metric(_("Time"), _("{s:.2f} s", s=proj.seconds),
                help=_("computed once, then kept on the server's disk: this map was read from there")
                if result.from_cache else _("the first time; views after that come from the cache"))
    m[2].metric(_("Trust (10 nearest kept)"), num(result.trust_mean, ".1%"),
                help=_("Average share of each point's 10 nearest neighbours in the full space (by cosine) that are also "
                       "among its 10 nearest in the picture")
                + (" " + _("(scored on {n:,} of the points)", n=TRUST_SAMPLE) if len(result.sample) > TRUST_SAMPLE else ""))
    if proj.explained_variance_ratio is not None:
        m[3].metric(_("Variance shown"), num(float(proj.explained_variance_ratio.sum()), ".1%"),
                    help=", ".join(f"PC{a + 1}: {num(float(r), '.2%')}" for a, r in
                                   zip(axes, proj.explained_variance_ratio, strict=False)))
    title = tr(result.title)

    o1, o2 = st.columns([1, 2])
    colour_labels = {"groups": _("word groups"), **{c: tr(colouring_label(c)) for c in COLOURINGS}}  # in this language
    colour = o1.selectbox(_("Colour"), list(colour_labels), key="proj:colour", format_func=colour_labels.get,
                          help=_("Word groups, the trust of each point, or a score of the table itself: the Anatomy "
                                 "page's under-trained score, or how many of a token's 10 nearest neighbours a "
                                 "precision keeps (the GGUF page's Jaccard@10, computed over the whole table once)."))
    shading = None
    if colour not in ("groups", "trust"):
        shading = ui.remember(("proj:shade", emb.key, *params, colour), lambda progress: shade(
            emb, colour, result.sample.ids, progress=progress), label=_("Scoring the table:"), per_language=False)
        shading = (shading[0], shading[1], tr(shading[2]), None if shading[3] is None else tuple(map(tr, shading[3])))
    label_regions = o1.checkbox(_("Label the regions"), ui.url.initial("labels", 0, ui.url.int_in(0, 1)) == 1,
                                key="proj:labels", disabled=dims != 2,
                                help=_("Clusters found in the {d} dimensions of the table (HDBSCAN), each named by "
                                       "what its tokens share; the {n} largest are written on a 2-D map.",
                                       d=emb.d_model, n=MAP_LABELS))
    ui.url.keep(labels=1 if label_regions else None)
    regions = None
    if label_regions and dims == 2:
        found = ui.remember(("proj:clusters", emb.key, *params), lambda progress: cluster_ids(
            emb, result.sample.ids, progress=progress), label=_("Finding clusters:"), per_language=False)
        regions = map_labels(found, proj.coords)
        st.caption(_("{n:,} clusters of {N:,} tokens, found in {d} dimensions; {noise:,} tokens belong to none.",
                     n=len(found.clusters), N=found.ids.size, d=emb.d_model,
                     noise=int((found.assignment == NOISE).sum())))
    picked = st.session_state.get("proj:picked")
    chosen = o2.text_input(_("Draw lines to the true 10 nearest of"), picked or (include[0] if include else ""),
                           key=f"proj:lines:{picked}", max_chars=MAX_QUERY_CHARS,
                           help=_("Click a point of the map, or type a word that is in it."))
    index = result.position_of(chosen) if chosen else None
    if chosen and index is None:
        st.caption(_("“{word}” is not in this map.", word=md(chosen)))
    lines = ui.remember(("proj:lines", emb.key, *params, index), lambda progress: result.true_nearest(emb, index)
                        if index is not None else None, label=None)
    renderers = ["canvas", "plotly", "deck"] if dims == 2 else ["plotly"]
    drawn_by = {"canvas": _("canvas (fluid at any size)"), "plotly": "plotly", "deck": "deck.gl (WebGL)"}
    renderer = o1.radio(_("Drawn by"), renderers, horizontal=True, key="proj:renderer",
                        index=renderers.index(ui.url.initial("renderer", default_renderer(points, dims), allowed=renderers)),
                        format_func=drawn_by.get,
                        help=_("canvas draws the points once and moves that picture while you pan, so it stays fluid "
                               "with the whole table on screen; plotly draws the word groups with their names; deck.gl "
                               "draws every point in one WebGL layer on each frame."))
    ui.url.keep(renderer=None if renderer == default_renderer(points, dims) else renderer)
    if renderer == "canvas":
        base = ui.remember(("proj:canvas", emb.key, *params, colour, regions is not None), lambda progress: canvas_map_payload(
            proj, result.sample, result.tokens, result.trust, colour == "trust",
            map_labels(found, proj.coords, top=LEVEL_LABELS) if regions is not None else None,
            shade=None if shading is None else shading[0]), label=None)
        def pick() -> None:  # before the rerun a click causes: that one run draws the lines
            got = ui.map_view.canvas_clicked_id("proj:canvasmap")
            at = None if got is None else result.position_of(f"#{got}")
            if at is not None:
                st.session_state["proj:picked"] = result.tokens[at]

        clicked = ui.map_view.canvas_map(with_lines(base, index, lines), key="proj:canvasmap", on_click=pick)
    elif renderer == "deck":
        event = st.pydeck_chart(ui.remember(("proj:deck", emb.key, *params, colour, index, regions is not None),
                                            lambda progress: deck_map(proj, result.sample, result.tokens, result.trust,
                                                                      colour == "trust", regions, index, lines,
                                                                      None if shading is None else shading[0]),
                                            label=None),
                                height=700, on_select="rerun", selection_mode="single-object", key="proj:deckmap")
        clicked = deck_clicked_id(getattr(getattr(event, "selection", None), "objects", None) or {})
    else:
        fig = ui.remember(("proj:fig", emb.key, *params, colour, index, regions is not None), lambda progress: projection_scatter(
            proj, result.sample, result.tokens, result.trust, title, colour_by_trust=colour == "trust", lines_from=index,
            lines_to=lines, labels=regions, shade=shading), label=None)
        event = st.plotly_chart(fig, key="proj:map", on_select="rerun", selection_mode="points")
        clicked = clicked_id(getattr(getattr(event, "selection", None), "points", None) or [])
    if clicked is not None:
        token = result.tokens[result.position_of(f"#{clicked}")]
        if token != picked:
            st.session_state["proj:picked"] = token
            st.rerun()
    st.caption((_("PCA keeps the directions of largest variance; a token table spreads its variance over many "
                  "directions, so a few components hold little of it and few neighbourhoods survive. t-SNE and UMAP "
                  "give up global distances to keep near neighbours near.") + " " if method == "pca" else "") + tr(proj.note) + "."
               + " " + _("Hover a point for its token, id and the share of its 10 nearest neighbours kept; click it to "
                         "draw lines to its true 10 nearest in {d} dimensions, and see which ones the map tore away.",
                         d=emb.d_model))
    d1, d2, d3 = st.columns(3)  # written when a button is clicked (not on every rerun); a click reruns nothing
    s = result.sample
    d1.download_button(_("Coordinates with trust (CSV)"),
                       lambda: coordinates_csv(proj.coords, result.tokens, s.ids, s.groups, trust=result.trust),
                       "projection.csv", "text/csv", on_click="ignore")
    d2.download_button(_("vectors.tsv (Embedding Projector)"),
                       lambda: projector_tsv(emb.token_table[s.ids], result.tokens, s.ids, s.groups)[0],
                       "vectors.tsv", "text/tab-separated-values", on_click="ignore")
    d3.download_button(_("metadata.tsv (Embedding Projector)"), lambda: projector_metadata(result.tokens, s.ids, s.groups),
                       "metadata.tsv", "text/tab-separated-values", on_click="ignore")
    st.caption(_("Load both .tsv files at projector.tensorflow.org (Load → vectors, then metadata)."))
