"""Trained vectors in 2-D and 3-D: PCA and t-SNE, with a trust score and downloads."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.plots.projection import projection_scatter
from andrea_viz.projection import coordinates_csv, project_model, projector_metadata, projector_tsv

emb = ui.page_setup(__file__)
V = emb.vocab_size
st.title("Projecting vectors to 2-D and 3-D")
st.markdown(f"Every token is a point in {emb.d_model} dimensions. A projection draws a sample of them in 2 or 3; "
            "the trust score says how much of each point's neighbourhood survived the trip.")
ui.offer_trained_example(emb, "proj")

with st.form("projection"):
    c = st.columns(4)
    method = c[0].radio("Method", ["pca", "tsne"], format_func={"pca": "PCA (exact)", "tsne": "t-SNE"}.get,
                        help="PCA: the directions of largest variance, exact on all dimensions. "
                        "t-SNE: keeps near neighbours near; slower.")
    dims = c[1].radio("Dimensions", [2, 3], horizontal=True)
    n = c[2].number_input("Tokens in the sample", 50, V, min(5000, V), step=500,
                          help=f"Up to all {V:,} for PCA; at most 20,000 for t-SNE.")
    seed = c[3].number_input("Seed", 0, 1_000_000, 0, help="Fixes the random sample and the t-SNE layout.")
    words = st.text_input("Words to include (the first is highlighted with its neighbours)",
                          ui.widgets.default_word(emb, "cat"), help="Comma-separated; these are always in the sample.")
    p = st.columns(5)
    axes = tuple(int(p[j].number_input(f"PCA component on {ax}", 1, min(50, emb.d_model), j + 1)) - 1
                 for j, ax in enumerate("xyz"))
    perplexity = p[3].slider("t-SNE perplexity", 5, 50, 30, help="About how many neighbours each point attends to.")
    n_iter = p[4].slider("t-SNE iterations", 250, 1000, 500, 50)
    st.form_submit_button("Project", type="primary")

include = tuple(w.strip() for w in words.split(",") if w.strip())
with ui.explain_errors():
    result = ui.cached_with_progress(
        emb, project_model, method, int(n), include, int(seed), int(dims), axes[:dims], float(perplexity), int(n_iter),
        label="t-SNE:" if method == "tsne" else "PCA:",
    )
    proj = result.projection
    m = st.columns(4)
    m[0].metric("Points", f"{len(result.sample):,}")
    m[1].metric("Time", f"{proj.seconds:.2f} s", help="the first time; views after that come from the cache")
    m[2].metric("Trust (10 nearest kept)", f"{result.trust_mean:.1%}",
                help="Average share of each point's 10 nearest neighbours in the full space that are also among "
                "its 10 nearest in the picture" + (" (scored on 5,000 of the points)" if len(result.sample) > 5000 else ""))
    if proj.explained_variance_ratio is not None:
        m[3].metric("Variance shown", f"{proj.explained_variance_ratio.sum():.1%}",
                    help=", ".join(f"PC{a + 1}: {r:.2%}" for a, r in zip(axes, proj.explained_variance_ratio, strict=False)))
    title = ("PCA: " + ", ".join(f"PC{a + 1} ({r:.1%} of variance)" for a, r in zip(axes, proj.explained_variance_ratio, strict=False))
             if method == "pca" else f"t-SNE, perplexity {perplexity}, {n_iter} iterations, seed {seed}")
    st.plotly_chart(projection_scatter(proj, result.sample, result.tokens, result.trust, title))
    st.caption(("PCA keeps the directions of largest variance; a token table spreads its variance over many "
                "directions, so a few components hold little of it and few neighbourhoods survive. t-SNE gives up "
                "global distances to keep near neighbours near. " if method == "pca" else proj.note + ". ")
               + "Hover a point for its token, id and the share of its 10 nearest neighbours kept.")
    d1, d2, d3 = st.columns(3)  # written when a button is clicked (not on every rerun); a click reruns nothing
    s = result.sample
    d1.download_button("Coordinates (CSV)", lambda: coordinates_csv(proj.coords, result.tokens, s.ids, s.groups),
                       "projection.csv", "text/csv", on_click="ignore")
    d2.download_button("vectors.tsv (Embedding Projector)",
                       lambda: projector_tsv(emb.token_table[s.ids], result.tokens, s.ids, s.groups)[0],
                       "vectors.tsv", "text/tab-separated-values", on_click="ignore")
    d3.download_button("metadata.tsv (Embedding Projector)", lambda: projector_metadata(result.tokens, s.ids, s.groups),
                       "metadata.tsv", "text/tab-separated-values", on_click="ignore")
    st.caption("Load both .tsv files at projector.tensorflow.org (Load → vectors, then metadata).")
