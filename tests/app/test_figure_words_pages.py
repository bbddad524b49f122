"""No chart of the app is left with the generic words (plots/words.py ``words_of`` read from the figure's data, whose
summary starts "Chart: …" or "A chart."): on every page, on the default model and on andrea-micro, on every step of
the Lesson (in presenter mode too, where the words stay under each chart) and on the Grow page after a short run,
each chart has its words, and they are its builder's own."""

import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz.builtin import DEFAULT_MODEL, MICRO
from andrea_viz.lesson import STEPS

from .conftest import ROOT, figures, no_exception, plain
from .test_grow_page import train

GENERIC = ("Chart: ", "A chart.")  # how words_of's fallback begins, in English
PAGES = ["1_Lookup_table.py", "2_Sizing.py", "3_Dot_products.py", "4_Neighbours.py", "5_Projection.py", "6_Positions.py",
         "7_Forward_pass.py", "10_Compare.py", "11_Anatomy.py"]


def chart_words(at: AppTest) -> list[tuple[str, str]]:
    """(label, summary as the reader sees it) of every chart's words on the page."""
    return [(e.label, plain(e.markdown[0].value)) for e in at.expander
            if e.label.startswith("In words") or e.label == "This chart in words"]


def assert_every_chart_has_its_own_words(at: AppTest, least: int = 1) -> None:
    no_exception(at)
    said = chart_words(at)
    assert len(figures(at)) >= least and len(said) == len(figures(at)), (len(figures(at)), said)
    generic = [(label, summary) for label, summary in said if summary.startswith(GENERIC)]
    assert generic == []


def page_at(page: str, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=300)
    for k, v in query.items():
        at.query_params[k] = v
    at.switch_page(f"pages/{page}").run()
    return at


@pytest.mark.parametrize("model", [DEFAULT_MODEL, MICRO])
@pytest.mark.parametrize("page", PAGES)
def test_no_chart_on_a_page_falls_back_to_the_generic_words(page, model):
    assert_every_chart_has_its_own_words(page_at(page, {"model": model}))


@pytest.mark.parametrize("present", [False, True])
def test_no_chart_of_any_lesson_step_falls_back_and_presenter_mode_keeps_the_words(present):
    charts = 0
    for k in range(1, len(STEPS) + 1):
        at = page_at("0_Lesson.py", {"step": str(k), **({"present": "1"} if present else {})})
        assert_every_chart_has_its_own_words(at, least=0)
        charts += len(figures(at))
    assert charts >= 10  # the steps' pictures: the rows, the values, the arrows, the attention, the treemap, …


def test_the_grow_pages_charts_say_their_own_words(app):
    at = page_at("9_Grow.py", {"model": "andrea-12m-init"})
    train(at, steps=20)
    assert_every_chart_has_its_own_words(at, least=3)  # the loss, the pairs, the class map and the values
    said = dict(chart_words(at))
    loss = [s for label, s in said.items() if "Training loss" in label]
    assert len(loss) == 1 and loss[0].startswith("The training loss at each of 20 steps of 20 planned")


@pytest.mark.parametrize("renderer", ["canvas", "deck"])
def test_the_map_drawn_without_plotly_has_the_same_words(renderer):
    """The canvas and deck.gl maps are no plotly chart: the Projection page says them in the same words as the plotly
    map (plots.projection.map_words), under them."""
    at = page_at("5_Projection.py", {"model": MICRO, "renderer": renderer})
    no_exception(at)
    assert figures(at) == []  # the map is not a plotly chart here
    said = chart_words(at)
    assert len(said) == 1, said
    label, summary = said[0]
    plotly = chart_words(page_at("5_Projection.py", {"model": MICRO, "renderer": "plotly"}))
    assert [(label, summary)] == plotly and " tokens in 2 dimensions; on average " in summary
