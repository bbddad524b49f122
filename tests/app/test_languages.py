"""Every page in every language the app speaks, run by AppTest: the words on screen are the catalogue's,
numbers are written the language's way, and a figure drawn in one language never shows in another."""


import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalogue, translate
from andrea_viz.registry import HOME, available_pages
from andrea_viz.ui.state import LANGUAGE, LANGUAGE_WIDGET

from .conftest import ROOT, figures, no_exception

OTHER = [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE]


def session(lang: str, model: str = "minilm-l6", page: str = HOME) -> AppTest:
    at = AppTest.from_file(str(ROOT / HOME), default_timeout=300)
    at.session_state["model"] = model
    at.session_state[LANGUAGE] = lang
    at.run()
    no_exception(at)
    if page != HOME:
        at.switch_page(page).run()
        no_exception(at)
    return at


def texts(at: AppTest) -> list[str]:
    """What a learner reads: titles, headers, text, captions, callouts, and every widget's label."""
    out = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "info", "warning", "success", "error"):
        out += [e.value for e in at.get(kind)]
    for kind in ("button", "slider", "select_slider", "selectbox", "radio", "text_input", "number_input", "toggle",
                 "checkbox", "metric", "expander", "tab"):
        out += [e.label for e in at.get(kind) if getattr(e, "label", None)]
    return out


def english_left(at: AppTest, lang: str) -> list[str]:
    """English sentences of the catalogue (ones the translation changes) that still show on screen."""
    english = [m for m, t in catalogue(lang).items() if t != m and len(m) >= 12 and "{" not in m]
    shown = "\n".join(texts(at))
    return [m for m in english if m in shown]


@pytest.fixture(scope="module")
def english_titles() -> dict[str, str]:
    at = session(DEFAULT_LANGUAGE)
    out = {}
    for p in available_pages():
        if p.path != HOME:
            at.switch_page(p.path).run()
        out[p.path] = at.title[0].value
    return out


@pytest.mark.parametrize("lang", OTHER)
def test_every_page_speaks_the_language(lang, english_titles):
    at = session(lang)
    for p in available_pages():
        if p.path != HOME:
            at.switch_page(p.path).run()
        no_exception(at)
        assert at.title[0].value == translate(english_titles[p.path], lang) != english_titles[p.path], p.path
        assert english_left(at, lang) == [], p.path
        labels = [e.label for e in at.sidebar.get("page_link")]  # the sidebar lists every page on every page
        assert labels == [translate(q.label, lang) for q in available_pages()], p.path


@pytest.mark.parametrize("lang,written", [("nl", "6.488.832"), ("pt-BR", "6.488.832"), ("zh-TW", "6,488,832"),
                                          ("en", "6,488,832")])
def test_numbers_are_written_the_languages_way(lang, written):
    at = session(lang, "andrea-120m-init", "pages/2_Sizing.py")
    shown = "\n".join(texts(at)) + "\n".join(str(m.value) for m in at.metric)
    assert written in shown  # V × d = 8,449 × 768 of the token table
    other = "6,488,832" if written == "6.488.832" else "6.488.832"
    assert other not in shown


def titles(fig: dict) -> list[str]:
    lay = fig["layout"]
    out = [lay.get("title", {}).get("text", "")]
    out += [v.get("title", {}).get("text", "") for k, v in lay.items() if k.startswith(("xaxis", "yaxis"))]
    return out + [t.get("name", "") for t in fig["data"]]


@pytest.mark.parametrize("page", ["pages/1_Lookup_table.py", "pages/2_Sizing.py", "pages/6_Positions.py"])
def test_a_figure_cached_in_dutch_is_not_shown_in_english(page):
    english = [titles(f) for f in figures(session("en", "andrea-120m-init", page))]
    at = session("nl", "andrea-120m-init", page)
    dutch = [titles(f) for f in figures(at)]
    assert dutch != english  # the Dutch figures say something else, so the check below can tell
    at.sidebar.selectbox(key=LANGUAGE_WIDGET).set_value("en").run()
    no_exception(at)
    assert [titles(f) for f in figures(at)] == english


def test_the_language_is_kept_in_the_address():
    at = session("zh-TW")
    assert at.query_params["lang"] == "zh-TW"
    at.sidebar.selectbox(key=LANGUAGE_WIDGET).set_value("en").run()
    assert "lang" not in at.query_params
    assert at.title[0].value == "ANDREA Embedding Explorer"
