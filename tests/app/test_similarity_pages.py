"""Dot products, Neighbours and Projection pages under AppTest, with every built-in model."""

import pytest

from andrea_viz.ui.state import MODEL_WIDGET

from .conftest import BUILTINS, button, figures, no_exception, open_page


@pytest.mark.parametrize("model", BUILTINS)
def test_dot_products_sliders_and_quiz(app, model):
    at = open_page(app(model), "3_Dot_products.py")
    figs = figures(at)
    assert any(f.get("frames") for f in figs), "the turning animation has frames"
    at.slider[2].set_value(90).run()  # θ
    no_exception(at)
    m = {x.label: x.value for x in at.metric}
    assert m["u·v"] in ("+0.000", "-0.000") and m["cos θ"] in ("+0.000", "-0.000")
    at.slider[0].set_value(2.0).run()
    at.slider[2].set_value(0).run()
    assert {x.label: x.value for x in at.metric}["u·v"] == "+2.000"

    quiz = [s for s in at.slider if s.key and s.key.startswith("quiz:")]
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
def test_projection_pca_then_tsne_then_3d(app, model):
    at = open_page(app(model), "5_Projection.py")
    assert any("PCA" in f["layout"]["title"]["text"] for f in figures(at))
    assert len(at.get("download_button")) == 3
    at.number_input[0].set_value(400)
    at.radio[0].set_value("tsne")
    at.slider[1].set_value(250)
    button(at, "Project").click().run()
    no_exception(at)
    assert any("t-SNE" in f["layout"]["title"]["text"] for f in figures(at))
    at.radio[0].set_value("pca")
    at.radio[1].set_value(3)
    button(at, "Project").click().run()
    no_exception(at)
    assert any(t.get("type") == "scatter3d" for f in figures(at) for t in f["data"])


def test_a_revealed_quiz_asks_again_when_the_model_changes(app):
    at = open_page(app("minilm-l6"), "3_Dot_products.py")
    button(at, "Reveal the cosines").click().run()
    assert any(x.label == "Score" for x in at.metric)
    at.sidebar.selectbox(key=MODEL_WIDGET).set_value("andrea-micro").run()
    no_exception(at)
    assert not any(x.label == "Score" for x in at.metric)  # the new model's cosines are not shown before a guess
    button(at, "Reveal the cosines").click().run()
    assert any(x.label == "Score" for x in at.metric)
