"""The Projection page's region labels and its deck.gl renderer, under AppTest."""

import json

import numpy as np

from andrea_viz.geometry import nearest

from .conftest import figures, no_exception, open_page


def _deck(at) -> tuple[dict, dict]:
    """The deck's JSON and its tooltip, as Streamlit sends them."""
    (chart,) = at.get("deck_gl_json_chart")
    return json.loads(chart.proto.json), json.loads(chart.proto.tooltip)


def test_regions_are_labelled_on_the_map_in_the_readers_language(app):
    at = open_page(app("andrea-micro", {"method": "pca"}), "5_Projection.py")
    at.checkbox(key="proj:labels").check().run()
    no_exception(at)
    (fig,) = [f for f in figures(at) if "PCA" in f["layout"]["title"]["text"]]
    notes = [a["text"] for a in fig["layout"].get("annotations", [])]
    assert any(n.startswith("word class: animals · ") for n in notes) and len(notes) <= 25


def test_the_deck_renderer_draws_every_point_with_a_tooltip_and_the_true_nearest(app, load_model):
    micro = load_model("andrea-micro")
    at = open_page(app("andrea-micro", {"method": "pca"}), "5_Projection.py")
    at.radio(key="proj:renderer").set_value("deck").run()
    no_exception(at)
    deck, tooltip = _deck(at)
    layers = {layer["id"]: layer for layer in deck["layers"]}
    points = layers["points"]["data"] + layers["marked"]["data"]  # the grey ones, and those with a colour
    assert all("c" not in p for p in layers["points"]["data"]) and all("c" in p for p in layers["marked"]["data"])
    assert len(points) == micro.vocab_size and deck["views"][0]["@@type"] == "OrthographicView"
    assert "{t} #{i}" in tooltip["text"] and "html" not in tooltip  # text: set with innerText, never markup
    ids = np.array([p["i"] for p in points])
    assert sorted(ids.tolist()) == list(range(micro.vocab_size))
    assert {p["t"] for p in points if p["i"] == ids[0]} == {micro.token(int(ids[0]))}
    # the lines: from the query "cat" to its true 10 nearest among the points, by cosine in 64 dimensions
    cat = next(k for k, p in enumerate(points) if p["t"] == "cat")
    want = set(ids[nearest(micro.token_table[ids], 10, np.array([cat]))[0]].tolist())
    ends = {(round(line["e"][0], 3), round(line["e"][1], 3)) for line in layers["nearest"]["data"]}
    got = {p["i"] for p in points if (round(p["x"], 3), round(p["y"], 3)) in ends}
    assert len(layers["nearest"]["data"]) == 10 and want <= got


def test_points_coloured_by_the_under_trained_score_and_by_what_q4_0_keeps(app, load_model):
    """The colour picker's table scores: every point's colour is its own token's score (ranked for the under-trained
    score, the Jaccard@10 itself for a precision), on both renderers, and the hover says the score."""
    from andrea_viz.anatomy.report import undertrained_of
    from andrea_viz.precision import measure

    from .conftest import values

    micro = load_model("andrea-micro")
    at = open_page(app("andrea-micro", {"method": "pca"}), "5_Projection.py")
    at.selectbox(key="proj:colour").set_value("undertrained").run()
    no_exception(at)
    (fig,) = [f for f in figures(at) if "PCA" in f["layout"]["title"]["text"]]
    (trace,) = [t for t in fig["data"] if t.get("mode") == "markers"]
    ids = values(trace["customdata"]).astype(int)
    scores = undertrained_of(micro).ranked.scores
    colour = values(trace["marker"]["color"])
    assert trace["marker"]["colorbar"]["title"]["text"] == "under-trained score"
    worst, best = ids[np.argmax(scores[ids])], ids[np.argmin(scores[ids])]
    assert colour[list(ids).index(worst)] < 0.01 and colour[list(ids).index(best)] == 1.0  # red = least trained
    assert np.all(np.diff(colour[np.argsort(scores[ids], kind="stable")]) <= 1e-12)  # the colour follows the score
    assert f"under-trained score: {scores[worst]:.3f}" in values(trace["hovertext"])[list(ids).index(worst)]
    at.selectbox(key="proj:colour").set_value("kept:q4_0").run()
    at.radio(key="proj:renderer").set_value("deck").run()
    no_exception(at)
    deck, _tooltip = _deck(at)
    kept = measure(micro, "q4_0").jaccard
    marked = {layer["id"]: layer for layer in deck["layers"]}["marked"]["data"]
    assert len(marked) == micro.vocab_size  # every point has its own colour
    for p in marked[:50]:
        s = kept[p["i"]]
        assert p["c"][:2] == [int(255 * (1 - s)), int(200 * s)], p


def test_the_maps_caption_joins_its_sentences_as_chinese_does(app):
    at = open_page(app(query={"lang": "zh-TW", "method": "pca"}), "5_Projection.py")  # three sentences under the map
    (caption,) = [c.value for c in at.caption if "把滑鼠" in c.value]
    assert "靠近。scikit-learn" in caption and "特徵向量。把滑鼠" in caption  # 。 and no space, never ". "
    assert ". " not in caption and "。 " not in caption
