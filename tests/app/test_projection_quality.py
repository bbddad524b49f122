"""The Projection page's quality card, under AppTest: the card's figures are those of ``map_quality`` on the very
map the page drew, written the reader's way."""

import re

from streamlit.testing.v1 import AppTest

from andrea_viz.maps import quality as map_quality
from andrea_viz.i18n import format_number
from andrea_viz.maps.project import project_model
from andrea_viz.ui.state import LANGUAGE

from .conftest import ROOT, no_exception, open_page


def _card_table(at) -> list[list[str]]:
    (text,) = [m.value for m in at.markdown if m.value.startswith("| ") and "T@10" in m.value]
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()]


def _expected(load_model):
    micro = load_model("andrea-micro")
    r = project_model(micro, "pca", n=micro.vocab_size, include=("cat",), seed=0, dims=2, axes=(0, 1))
    return micro, map_quality.card(micro.token_table[r.sample.ids], r.projection.coords)


def test_the_card_shows_the_maps_own_figures(app, load_model):
    at = open_page(app("andrea-micro", {"method": "pca"}), "5_Projection.py")
    micro, card = _expected(load_model)
    rows = _card_table(at)
    assert rows[0] == ["Map quality", f"every point ({micro.vocab_size:,})"]  # 557 points: no sample beside
    got = {row[0]: row[1] for row in rows[2:]}
    assert got == {"Trustworthiness T@10": f"{card.full.trustworthiness:.3f}",
                   "Continuity C@10": f"{card.full.continuity:.3f}",
                   "Triplet accuracy (100,000 triplets)": f"{card.full.triplets:.1%}",
                   "10 nearest kept": f"{card.full.kept:.1%}"}
    assert 0.5 < card.full.trustworthiness < 1


def test_the_card_in_dutch_writes_numbers_the_dutch_way(load_model):
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=300)
    at.session_state["model"] = "andrea-micro"
    at.session_state[LANGUAGE] = "nl"
    at.query_params["method"] = "pca"
    at.run()
    at = open_page(at, "5_Projection.py")
    no_exception(at)
    _, card = _expected(load_model)
    rows = _card_table(at)
    assert rows[0][0] == "Kwaliteit van de kaart"
    got = {row[0]: row[1] for row in rows[2:]}
    assert got["Betrouwbaarheid T@10"] == format_number(card.full.trustworthiness, ".3f", "nl")
    assert "," in got["Betrouwbaarheid T@10"] and "." not in got["Betrouwbaarheid T@10"]


def test_the_page_says_which_method_measurement_favours_and_why(app):
    from andrea_viz.maps.choice import default_for

    at = open_page(app("andrea-micro"), "5_Projection.py")
    chosen = default_for(557)
    (text,) = [c.value for c in at.caption if c.value.startswith("Measurement favours")]
    assert text.startswith(f"Measurement favours UMAP for a map of 557 points. It was measured once on "
                           f"{chosen.table}, a reference table, not this map (this map's own figures are in the card "
                           f"under it):") and chosen.method == "umap"
    # at 557 points no method the app offers came within 0.02 of the best on both: the page says which came closest
    assert not chosen.close and "none of the app's methods was within 0.02 of the best on both" in text
    assert f"this one came closest ({chosen.trustworthiness:.3f} and {chosen.continuity:.3f};" in text
    assert "bench-map" not in text  # a learner's page names no command


def test_a_larger_map_shows_the_estimate_and_measures_every_point_on_asking(app, load_model):
    """6,000 points: the seeded 5,000-point estimate at once, every point after the button, side by side."""
    at = open_page(app("minilm-l6", {"method": "pca", "n": "6000"}), "5_Projection.py")
    rows = _card_table(at)
    assert rows[0] == ["Map quality", "every point (6,000)", "seeded sample (5,000)"]
    (took,) = [m.value for m in at.metric if m.label == "Time"]  # a PCA of 6,000 rows, well under 0.1 s:
    assert re.fullmatch(r"[\d.]+ (ms|µs)", took), took  # in ms or µs ("0.00 s" read as a failure)
    assert rows[2][1] == "not measured yet"
    emb = load_model("minilm-l6")
    r = project_model(emb, "pca", n=6000, include=("cat",), seed=0, dims=2, axes=(0, 1))
    X = emb.token_table[r.sample.ids]
    card = map_quality.card(X, r.projection.coords, full=True)
    assert rows[2][2] == f"{card.sample.trustworthiness:.3f}" and rows[3][2] == f"{card.sample.continuity:.3f}"
    at.button(key="proj:quality-button").click().run()
    no_exception(at)
    rows = _card_table(at)
    assert rows[2][1:] == [f"{card.full.trustworthiness:.3f}", f"{card.sample.trustworthiness:.3f}"]
    assert rows[5][1] == f"{card.full.kept:.1%}"
    assert not [b for b in at.button if b.key == "proj:quality-button"]  # measured: no button any more
