"""Compare on two models of different vocabularies, under AppTest: the Dutch grown model's table rotated onto the
English one (andrea-micro-nl onto andrea-micro), kat landing beside cat; a pair with nothing to align on gets one
sentence."""

import numpy as np

import andrea_viz
from andrea_viz.alignment import align

from .conftest import figures, no_exception, open_page, values


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_the_dutch_model_rotated_onto_the_english_one(app):
    at = open_page(app("minilm-l6"), "10_Compare.py")
    at.selectbox(key="cmp:A:have").set_value("andrea-micro-nl").run()
    at.selectbox(key="cmp:B:have").set_value("andrea-micro").run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    al = align(andrea_viz.load("andrea-micro-nl"), andrea_viz.load("andrea-micro"))
    n = len(al.anchors)
    m = metrics(at)
    assert m["Anchors"] == f"{n:,}" and "Unmoved rows" not in m
    # the headline drift is that of the anchors the map was not fitted on, beside the note's held-out cosine (over
    # every anchor, the 80% it was fitted on pulled it to ~0.003 beside a held-out median cosine of 0.92)
    assert "Median drift" not in m and m["Median drift, held-out anchors"] == f"{al.held_out_drift:.4f}"
    assert abs(al.held_out_drift - (1 - al.median_cosine)) < 1e-6 and al.held_out_drift > 0.01
    assert "Largest drift, all anchors" in m
    note = next(i.value for i in at.info if "anchors" in i.value)
    assert "A (563 × 64) and B (557 × 64) have different vocabularies" in note
    assert f"{n:,} anchors" in note and f"{al.anchors.count('lexicon')} of the lesson's words" in note
    assert f"median cosine with its true row in B is {al.median_cosine:.3f}" in note
    assert f"{al.median_baseline:.3f} for the nearest-anchor baseline" in note
    most, least = at.dataframe[0].value, at.dataframe[1].value
    assert list(most["drift"]) == sorted(most["drift"], reverse=True) and len(most) == 15
    # the histogram and both lists are of the held-out anchors: those the map was fitted on sat at drift ~0 and
    # filled "moved least"; each listed drift is a held-out anchor's 1 − cos, worked out from the alignment here
    held = {int(al.anchors.b[i]): 1 - float(c) for i, c in zip(al.held_out, al.held_out_cosine, strict=True)}
    for table in (most, least):
        for _k, row in table.iterrows():
            assert abs(row["drift"] - held[row["id"]]) < 1e-3, row
    assert min(least["drift"]) == round(min(held.values()), 4)
    (hist,) = [f for f in figures(at) if f["layout"]["title"]["text"].startswith("Drift of each anchor")]
    assert hist["layout"]["title"]["text"] == ("Drift of each anchor held out of the map's fit: 1 − cos(A, B), A mapped "
                                               "onto B")  # not "every token": only the held-out anchors are drawn
    assert len(values(hist["data"][0]["x"])) == int(np.isfinite(1 - al.held_out_cosine).sum())
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert any("From A (open circle) to B" in t for t in titles)
    # the word is A's (kat, the Dutch model's cat); B's column: the English tokens nearest to kat mapped into B
    assert at.text_input(key="cmp:vword").value == "kat"
    a_side, b_side = at.dataframe[2].value, at.dataframe[3].value
    assert "kat" not in list(a_side["token"])  # A's neighbours of kat: Dutch words (not kat itself)
    assert b_side["token"].iloc[0] == "cat" and b_side["cosine"].iloc[0] > 0.5
    at.text_input(key="cmp:vword").set_value("hond").run()
    assert at.dataframe[3].value["token"].iloc[0] == "dog"


def test_a_pair_with_nothing_in_common_is_one_sentence(app, tmp_path):
    import io

    buf = io.BytesIO()
    np.savez(buf, token_table=np.random.default_rng(0).normal(size=(40, 64)).astype(np.float32))
    at = open_page(app("minilm-l6"), "10_Compare.py")
    at.radio(key="cmp:A:source").set_value("upload").run()
    uploader = [u for u in at.get("file_uploader") if u.key == "cmp:A:file"][0]
    uploader.upload("table.npz", buf.getvalue(), "application/octet-stream").run()
    at.selectbox(key="cmp:B:have").set_value("andrea-micro").run()
    no_exception(at)
    errors = [e.value for e in at.error]
    assert any("expected two models whose vocabularies share at least 10 tokens" in e and "share 0" in e
               for e in errors), errors
    assert not at.metric  # nothing drawn on a pair that has nothing to align on
