"""Trained vectors in 2-D and 3-D: PCA, t-SNE and UMAP, with a trust score per point and downloads."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.i18n import _
from andrea_viz.maps.choice import opens_on
from andrea_viz.maps.methods import LARGE_MAP, METHODS, MOST_POINTS, settings_for
from andrea_viz.maps.project import project_model
from andrea_viz.maps.sample import ALL, DEFAULT_SAMPLE
from andrea_viz.maps.tsne import TSNE_EXACT_MAX
from andrea_viz.maps.umap_run import EVERY_CORE_ABOVE, umap_is_warm, warm_umap
from andrea_viz.ui import projection_view as view

emb = ui.page_setup(__file__)
V = emb.vocab_size
st.title(_("Projecting vectors to 2-D and 3-D"))
st.markdown(_("Every token is a point in {d} dimensions. A projection draws a sample of them, or all of them, in 2 or 3; "
              "the trust score says how much of each point's neighbourhood survived the trip.", d=emb.d_model))
ui.offer_trained_example(emb, "proj")
MIN_SAMPLE = 50  # the smallest sample offered (a smaller table is mapped whole)
LABELS = {name: _(m.label) for name, m in METHODS.items()}
n_min = min(MIN_SAMPLE, V)
n_url = ui.url.initial("n", min(DEFAULT_SAMPLE, V), lambda raw: raw if raw == ALL else ui.url.int_in(n_min, V)(raw))
opening = opens_on(V if n_url == ALL else n_url)  # the method measurement favours at that size (maps.choice)
with st.form("projection"):
    c = st.columns([1, 0.7, 1.6, 1])  # the whole-table box's label holds the table's size in words: room for it
    method = c[0].radio(_("Method"), list(METHODS), format_func=LABELS.get, key="proj:method",
                        index=list(METHODS).index(ui.url.initial("method", opening, allowed=METHODS)),
                        help=_("PCA: the directions of largest variance, exact on all dimensions. t-SNE: keeps near "
                               "neighbours near. UMAP: likewise, and maps the whole table in seconds."))
    dims = c[1].radio(_("Dimensions"), [2, 3], horizontal=True, key="proj:dims",
                      index=[2, 3].index(ui.url.initial("dims", 2, int, allowed=(2, 3))))
    whole = c[2].checkbox(_("The whole table ({V:,} tokens)", V=V), value=n_url == ALL, key="proj:all")
    n_default = min(DEFAULT_SAMPLE, V) if n_url == ALL else n_url
    n = ui.widgets.whole_number_input(_("Tokens in the sample"), n_min, V, n_default, container=c[2], step=500,
                                      key="proj:n", disabled=False, help=_("Ignored when the whole table is chosen."))
    seed = c[3].number_input(_("Seed"), 0, 1_000_000, ui.url.initial("seed", 0, ui.url.int_in(0, 1_000_000)), key="proj:seed",
                             help=_("Fixes the random sample and the t-SNE and UMAP layouts: the same seed gives the "
                                    "same map. Above {n:,} points UMAP's epochs run on every core, so a map computed "
                                    "again differs slightly; the app keeps the first.", n=EVERY_CORE_ABOVE))
    words = st.text_input(_("Words to include (the first is highlighted with its neighbours)"),
                          ui.widgets.default_word(emb, "cat"), max_chars=ui.MAX_TEXT_CHARS,
                          help=_("Comma-separated; these are always in the sample."))
    p = st.columns(5)
    axes = tuple(int(p[j].number_input(_("PCA component on {axis}", axis=ax), 1, min(50, emb.d_model), j + 1)) - 1
                 for j, ax in enumerate("xyz"))
    perplexity = p[3].slider(_("t-SNE perplexity"), 5, 50, 30, help=_("About how many neighbours each point attends to."))
    n_iter = ui.widgets.number_slider(_("t-SNE iterations"), 250, 1000, 500, 50, ",", container=p[4], key="proj:iters")
    st.form_submit_button(_("Project"), type="primary")

size = ALL if whole else int(n)
ui.url.keep(method=method, n=size, seed=int(seed), dims=int(dims))
points = V if whole else int(n)
if points > LARGE_MAP and dims == 3:  # a 2-D map of any size is drawn by the canvas map
    st.warning(_("{n:,} points: the map may take a while to draw in the browser.", n=points), icon=":material/hourglass_empty:")
if not umap_is_warm():  # the server started it in a process of its own (or, with the disk cache off, starts it now)
    warm_umap()
    if method == "umap":
        st.caption(_("UMAP is getting ready: its numba code compiles once per machine, in the background."))
if method == "tsne" and TSNE_EXACT_MAX < points <= MOST_POINTS["tsne"]:  # above it the map is refused below
    st.info(_("t-SNE of {n:,} points is slow: above {exact:,} points it switches to approximate neighbours. UMAP maps "
              "the whole table much faster.", n=points, exact=TSNE_EXACT_MAX))
view.measured_method(points)
include = tuple(w.strip() for w in words.split(",") if w.strip())
settings = settings_for(method, n=size, include=include, seed=int(seed), dims=int(dims), axes=axes,
                        perplexity=float(perplexity), n_iter=int(n_iter))  # only what this method reads: its cache key
params = (method, *settings.items())
with ui.explain_errors():
    result = ui.cached_with_progress(emb, project_model, method, **settings, label=_("Projecting:"))
    view.projection_metrics(result, axes)
    o1, o2 = st.columns([1, 2])
    colour, shading = view.colour_choice(emb, result, params, o1)
    found = view.labelled_regions(emb, result, params, o1, int(dims))
    index, lines = view.lines_to_nearest(emb, result, params, include, o2)
    view.drawn_map(emb, result, params, dims=int(dims), points=points, colour=colour, shading=shading, found=found,
                   index=index, lines=lines, column=o1)
    view.projection_caption(emb, method, result)
    view.quality_card(emb, result, params)
    view.projection_downloads(emb, result)
