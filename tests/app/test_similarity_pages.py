"""Dot products, Neighbours and Projection pages under AppTest, with every built-in model."""


import numpy as np
import pytest

import andrea_viz
from andrea_viz.ui.state import MODEL_WIDGET

from .conftest import BUILTINS, button, figures, no_exception, open_page, values


def test_dot_products_sliders(app):
    """The two arrows' sliders, once: u and v are the page's own vectors, the same for every model."""
    at = open_page(app("andrea-micro"), "3_Dot_products.py")
    figs = figures(at)
    assert any(f.get("frames") for f in figs), "the turning animation has frames"
    at.slider[0].set_value(90).run()  # θ: the page's one Streamlit number slider (the lengths are select sliders)
    no_exception(at)
    m = {x.label: x.value for x in at.metric}
    assert m["u·v"] in ("+0.000", "-0.000") and m["cos θ"] in ("+0.000", "-0.000")
    at.select_slider[0].set_value(2.0).run()  # |u|, its values written by the formatter
    at.slider[0].set_value(0).run()
    assert {x.label: x.value for x in at.metric}["u·v"] == "+2.000"


@pytest.mark.parametrize("model", BUILTINS)
def test_dot_products_quiz(app, model):
    """The quiz's cosines are each model's own: placed, revealed and asked again with every model."""
    at = open_page(app(model), "3_Dot_products.py")
    quiz = [s for s in at.select_slider if s.key and s.key.startswith("quiz:")]
    assert len(quiz) == 5
    for i, s in enumerate(quiz):
        s.set_value(round(0.2 * i, 2))
    at.run()
    button(at, "Reveal the cosines").click().run()
    no_exception(at)
    assert any(x.label == "Score" for x in at.metric)
    button(at, "New round").click().run()
    no_exception(at)
    assert at.session_state["quiz:round"] == 1
    assert not any(x.label == "Score" for x in at.metric)


def test_dot_products_real_vectors_of_cat_and_dog(app):
    at = open_page(app("minilm-l6"), "3_Dot_products.py")
    m = {x.label: x.value for x in at.metric}
    assert float(m["cosine"]) > 0.3 and float(m["dot product"]) > 0  # cat and dog
    assert set(m) >= {"|cat|", "|dog|", "angle"}
    assert "they sum to u·v" in figures(at)[2]["layout"]["title"]["text"]


@pytest.mark.parametrize("model", BUILTINS)
def test_neighbours_metrics_centring_and_analogy(app, model):
    at = open_page(app(model), "4_Neighbours.py")
    for metric in ("dot", "euclidean", "cosine"):
        at.radio[0].set_value(metric).run()
        no_exception(at)
        scores = list(at.dataframe[0].value[metric])
        assert scores == sorted(scores, reverse=metric != "euclidean"), metric  # nearest first
    raw = list(at.dataframe[0].value["cosine"])
    at.toggle[0].set_value(True).run()
    no_exception(at)
    assert list(at.dataframe[0].value["cosine"]) != raw  # mean-centred cosines are other numbers
    at.slider[0].set_value(20).run()
    no_exception(at)
    assert len(at.dataframe[0].value) == 20
    if model.startswith("andrea"):
        assert any("Jaccard" in x.label for x in at.metric)
    else:
        assert any("no output head" in i.value for i in at.info)


def test_neighbours_of_cat_and_the_analogy_on_the_trained_model(app):
    at = open_page(app("minilm-l6"), "4_Neighbours.py")
    assert {"dog", "kitten"} <= set(at.dataframe[0].value["token"])
    analogy = [f for f in figures(at) if "king − man + woman" in f["layout"]["title"]["text"]][0]
    assert any("queen" in y for y in analogy["data"][0]["y"])
    at.text_input[1].set_value("zzqqxx").run()  # a made-up word: WordPiece splits it into pieces
    no_exception(at)
    assert any("zzqqxx − man + woman" in f["layout"]["title"]["text"] for f in figures(at))


@pytest.mark.parametrize("model", BUILTINS)
def test_projection_opens_on_the_method_measurement_favours_for_each_model(app, load_model, model):
    """No method in the address: the page opens on the measured choice for its default sample (``choice.opens_on``:
    UMAP at every measured size), and draws it."""
    from andrea_viz.maps.choice import opens_on
    from andrea_viz.maps.sample import DEFAULT_SAMPLE

    at = open_page(app(model), "5_Projection.py")
    method = opens_on(min(DEFAULT_SAMPLE, load_model(model).vocab_size))
    assert at.radio(key="proj:method").value == method
    name = {"pca": "PCA", "umap": "UMAP", "tsne": "t-SNE"}[method]
    assert any(name in f["layout"]["title"]["text"] for f in figures(at))
    assert len(at.get("download_button")) == 3


def test_projection_pca_then_tsne_then_3d(app):
    """The method and dimension widgets, once: they drive the same code for every table (the maps of each model are
    opened above)."""
    at = open_page(app("andrea-micro"), "5_Projection.py")
    at.number_input[0].set_value(400)
    at.radio[0].set_value("tsne")
    at.select_slider(key="proj:iters").set_value(250)
    button(at, "Project").click().run()
    no_exception(at)
    assert any("t-SNE" in f["layout"]["title"]["text"] for f in figures(at))
    at.radio[0].set_value("pca")
    at.radio[1].set_value(3)
    button(at, "Project").click().run()
    no_exception(at)
    assert any(t.get("type") == "scatter3d" for f in figures(at) for t in f["data"])


def place_all(at, but: int = 0) -> None:
    """Move every quiz slider but the last ``but`` to a value of its own."""
    quiz = [s for s in at.select_slider if s.key and s.key.startswith("quiz:")]
    for i, s in enumerate(quiz[: len(quiz) - but]):
        s.set_value(round(0.05 + 0.2 * i, 2))  # never the 0.5 it starts at
    at.run()


def test_a_revealed_quiz_asks_again_when_the_model_changes(app):
    at = open_page(app("minilm-l6"), "3_Dot_products.py")
    assert button(at, "Reveal the cosines").disabled  # nothing placed yet
    place_all(at, but=1)
    assert button(at, "Reveal the cosines").disabled and any("1 of 5 still at the start" in c.value for c in at.caption)
    place_all(at)
    button(at, "Reveal the cosines").click().run()
    assert any(x.label == "Score" for x in at.metric)
    at.sidebar.selectbox(key=MODEL_WIDGET).set_value("andrea-micro").run()
    no_exception(at)
    assert not any(x.label == "Score" for x in at.metric)  # the new model's cosines are not shown before a guess
    assert button(at, "Reveal the cosines").disabled
    place_all(at)
    button(at, "Reveal the cosines").click().run()
    assert any(x.label == "Score" for x in at.metric)


def test_projection_draws_lines_to_a_words_true_nearest(app, load_model):
    at = open_page(app("minilm-l6", {"method": "pca"}), "5_Projection.py")
    fig = next(f for f in figures(at) if "PCA" in f["layout"]["title"]["text"])
    where = {}  # a point's position on the map -> its token id
    for t in fig["data"]:
        if t.get("mode") != "lines" and "customdata" in t:  # the points (the words' own trace has no ids)
            for x, y, i in zip(values(t["x"]), values(t["y"]), values(t["customdata"]), strict=True):
                where[(np.float32(x), np.float32(y))] = int(i)
    lines = next(t for t in fig["data"] if t.get("mode") == "lines")
    assert lines["name"] == "true 10 nearest of “cat”"
    # drawn first, under the star of cat and the words beside the points; listed last in the legend
    assert fig["data"][0] is lines and all(t.get("legendrank", 1000) < lines["legendrank"] for t in fig["data"][1:])
    xs, ys = lines["x"], lines["y"]
    segments = [(k, k + 1) for k in range(0, len(xs), 3)]  # start, end, None
    assert len(segments) == 10
    assert {where[(np.float32(xs[a]), np.float32(ys[a]))] for a, _b in segments} == {4937}  # all from cat
    drawn = {where[(np.float32(xs[b]), np.float32(ys[b]))] for _a, b in segments}
    # slowly: cosine with cat over every token of the map, in all 384 dimensions
    emb = load_model("minilm-l6")
    ids = sorted(set(where.values()) - {4937})
    cat = emb.token_table[4937].astype(np.float64)
    cos = {i: float(emb.token_table[i] @ cat / np.linalg.norm(emb.token_table[i]) / np.linalg.norm(cat)) for i in ids}
    assert drawn == set(sorted(ids, key=lambda i: -cos[i])[:10])
    assert {4937, 6077} <= set(where.values())  # cat and its neighbour dogs are in the sample


def test_the_quiz_on_an_untrained_byte_table_says_what_its_cosines_measure(app, load_model):
    at = open_page(app("andrea-120m-init"), "3_Dot_products.py")
    assert any("the letters its two words share, not their meaning" in c.value for c in at.caption)
    place_all(at)
    button(at, "Reveal the cosines").click().run()
    no_exception(at)
    reveal = next(f for f in figures(at) if f["layout"]["title"]["text"] == "Your guesses against the real cosines")
    real = dict(zip(reveal["data"][1]["y"], values(reveal["data"][1]["x"]), strict=True))
    # slowly: each word is the mean of its bytes' rows (ids 0-255 are the bytes), then the cosine
    table = load_model("andrea-120m-init").token_table.astype(np.float64)

    def word(w: str) -> np.ndarray:
        return table[list(w.encode())].mean(axis=0)

    def cos(u, v):
        return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))

    assert real["cat / tuesday"] == pytest.approx(cos(word("cat"), word("tuesday")), abs=1e-6)
    assert real["cat / dog"] == pytest.approx(cos(word("cat"), word("dog")), abs=1e-6)
    assert real["cat / tuesday"] > 0.4 > real["cat / dog"]  # shared letters, not meaning: the lesson's order reversed


def test_a_t_sne_setting_does_not_recompute_a_umap_map_but_its_seed_does(app, monkeypatch):
    import dataclasses

    from andrea_viz.maps import compile as umap_compile, layout, methods

    calls = {"umap": 0, "tsne": 0}

    def counted(name):
        real = methods.METHODS[name]

        def run(X, dims, seed, progress, **params):
            calls[name] += 1
            return layout.Projection(np.asarray(X[:, :dims], np.float32), name, None, 0.0)  # a map, made fast

        monkeypatch.setitem(methods.METHODS, name, dataclasses.replace(real, run=run))

    counted("umap")
    counted("tsne")
    monkeypatch.setitem(umap_compile._state, "compiled", True)  # no numba compile in the background
    at = open_page(app("andrea-micro"), "5_Projection.py")
    calls.update(umap=0, tsne=0)  # the page opens on its measured default, UMAP at seed 0 (made here unless a test
    # before this one in the same process made it): counted from the asked-for map on
    at.number_input(key="proj:seed").set_value(4242)  # a map no other test has cached
    at.radio(key="proj:method").set_value("umap")
    button(at, "Project").click().run()
    no_exception(at)
    assert calls == {"umap": 1, "tsne": 0}
    assert any(f["layout"]["title"]["text"] == "UMAP, seed 4242" for f in figures(at))
    at.slider[0].set_value(20)  # t-SNE's perplexity
    at.select_slider(key="proj:iters").set_value(300)  # t-SNE's iterations
    button(at, "Project").click().run()
    no_exception(at)
    assert calls == {"umap": 1, "tsne": 0}  # the same UMAP map, from the cache
    at.radio(key="proj:method").set_value("tsne")
    button(at, "Project").click().run()
    at.slider[0].set_value(25)
    button(at, "Project").click().run()
    no_exception(at)
    assert calls == {"umap": 1, "tsne": 2}  # a t-SNE setting does make a new t-SNE map
    at.radio(key="proj:method").set_value("umap")
    at.number_input(key="proj:seed").set_value(4243)
    button(at, "Project").click().run()
    no_exception(at)
    assert calls == {"umap": 2, "tsne": 2}


@pytest.mark.parametrize("model,share", [("minilm-l6", "86%"), ("andrea-micro", None)])
def test_the_neighbours_page_says_how_much_of_the_anisotropy_the_mean_row_carries(app, model, share):
    """Computed for the model on screen: MiniLM's mean row carries most of its anisotropy, a grown micro table's
    little (its exact figures here, from geometry.anisotropy)."""
    from andrea_viz.geometry import anisotropy

    emb = andrea_viz.load(model)
    raw, centred = anisotropy(emb), anisotropy(emb, centered=True)
    at = open_page(app(model), "4_Neighbours.py")
    caption = next(c.value for c in at.caption if c.value.startswith("Anisotropy"))
    want = f"takes away {1 - centred / raw:.0%} of it."
    assert f"{raw:+.4f} raw, {centred:+.4f} mean-centred" in caption and caption.endswith(want), caption
    if share is not None:
        assert want == f"takes away {share} of it."
