"""Every page in every language the app speaks, run by AppTest: the words on screen are the catalogue's,
numbers are written the language's way, and a figure drawn in one language never shows in another."""

import json
import re
from functools import cache

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz import lexicon
from andrea_viz.catalogs import extract
from andrea_viz.lesson import STEPS
from andrea_viz.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalogue, read_number, translate
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


WORD = re.compile(r"[^\W\d_]+")  # a run of letters, accented ones included
PLACEHOLDER = re.compile(r"%?\{[^{}]*\}")
# What is not the app's own sentence, so not held to the language: a code span (a token, a file, a tensor, a
# variable: `cat`, `checkpoints`), a typed word or token in quotes (“cat”), a LaTeX command (\times), a plotly
# template field (%{value}), an HTML tag the app writes into Markdown (<span style="…">, the key's colour boxes).
NOT_PROSE = re.compile(r"`[^`]*`|“[^”]*”|「[^」]*」|\\[A-Za-z]+|%\{[^{}]*\}|:[a-z]+\[|Press & Wolf|</?[a-z]+(\s[^<>]*)?>")
# plotly keys holding the app's words: titles, trace names (the legend), annotations, button labels, templates.
# Not data[].text or hovertext: those hold the model's own token strings, one per point.
PLOTLY_WORDS = ("text", "name", "label", "prefix", "hovertemplate", "texttemplate", "ticktext")


def _words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}


@cache
def english_words(lang: str) -> frozenset[str]:
    """Every word of the English msgids, less the words that the language's own translations write too: loanwords
    and names a translator kept (token, model, ANDREA, PCA in Dutch; d_model, GPT, RoPE in Chinese) are that
    language's. "Press ▶ Play" kept in a translation would hide Play: such a sentence takes the button's own
    label as a parameter instead (see Dot products, the Grow timeline)."""
    english = set().union(*(_words(m) for m in extract()))
    kept = set().union(*(_words(t) for t in catalogue(lang).values()))
    return frozenset(english - kept)


def _strings_under(node, key: str = "") -> list[str]:
    if isinstance(node, dict):
        return [s for k, v in node.items() for s in _strings_under(v, k)]
    if isinstance(node, list):
        return [s for v in node for s in _strings_under(v, key)]
    return [node] if isinstance(node, str) and key in PLOTLY_WORDS else []


def plotly_strings(fig: dict) -> list[str]:
    """The app's words in a figure: its layout, its frames' layouts, and each trace but its per-point data."""
    traces = [{k: v for k, v in t.items() if k not in ("text", "hovertext", "customdata")}
              for t in [*fig.get("data", []), *(t for f in fig.get("frames", []) for t in f.get("data", []))]]
    return _strings_under(traces) + _strings_under(fig.get("layout", {})) + _strings_under(
        [f.get("layout", {}) for f in fig.get("frames", [])])


def tables(at: AppTest) -> list:
    """Every table on the page: the grids (``st.dataframe``) and the static tables (``st.table``)."""
    return [*at.get("dataframe"), *at.get("table")]


def table_display(el) -> list[list[str]]:
    """A dataframe's cells as the browser shows them: a Styler's display values when the app sent them."""
    arrow = el.proto.arrow_data
    if arrow.styler.display_values:
        df = pa.ipc.open_stream(arrow.styler.display_values).read_pandas()
    else:
        df = el.value
    return [[str(v) for v in row] for row in df.itertuples(index=False)]


def everything_shown(at: AppTest) -> list[str]:
    """Every string the app puts on the page: texts, widget labels, options, help and placeholders, metric
    labels, tables' column names, plotly titles, legends, annotations and buttons. The language picker is
    left out: it is written in all four languages on purpose (Language · 語言 · Taal · Idioma)."""
    picker = at.sidebar.selectbox(key=LANGUAGE_WIDGET).label
    out = [s for s in texts(at) if s != picker]
    for kind in ("selectbox", "multiselect", "radio", "select_slider"):
        out += [str(o) for e in at.get(kind) if e.key != LANGUAGE_WIDGET for o in (e.options or [])]
    for kind in ("button", "slider", "select_slider", "selectbox", "multiselect", "radio", "text_input", "number_input",
                 "toggle", "checkbox", "metric", "download_button", "text_area", "page_link"):
        for e in at.get(kind):
            if getattr(e, "key", None) == LANGUAGE_WIDGET:
                continue
            proto = getattr(e, "proto", None)
            for attr in ("label", "help", "placeholder"):
                value = getattr(proto, attr, None) or getattr(e, attr, None)
                if isinstance(value, str):
                    out.append(value)
    out += [str(c) for d in tables(at) for c in d.value.columns]
    out += [s for c in at.get("plotly_chart") for s in plotly_strings(json.loads(c.proto.spec))]
    return [s for s in out if s]


def untranslated_shown(at: AppTest, lang: str) -> list[str]:
    """Strings on screen that are, whole, a msgid the language translates otherwise ("Train", "Seed", "Backend"):
    short ones too, which english_left leaves to this."""
    cat = catalogue(lang)
    return sorted({s for s in everything_shown(at) if cat.get(s, s) != s})


def english_words_shown(at: AppTest, lang: str) -> dict[str, str]:
    """English words (of any length) on a page in another language, each with the first string it is in."""
    english = english_words(lang)
    found = {}
    for s in everything_shown(at):
        for w in _words(NOT_PROSE.sub(" ", s)) & english:
            found.setdefault(w, s[:120])
    return found


def decimal_comma(lang: str) -> bool:
    from andrea_viz.i18n import separators

    return separators(lang)[1] == ","


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
        assert untranslated_shown(at, lang) == [], p.path
        assert english_words_shown(at, lang) == {}, p.path
        if decimal_comma(lang):  # no 0.137 beside 0,0361 (196.608, grouped the Dutch way, is a Dutch number)
            english_decimals = [c for d in tables(at) for row in table_display(d) for c in row
                                if re.fullmatch(r"[-+]?\d+\.\d+", c) and read_number(c, lang) is None]
            assert english_decimals == [], (p.path, english_decimals[:5])
        labels = [e.label for e in at.sidebar.get("page_link")]  # the sidebar lists every page on every page
        assert labels == [translate(q.label, lang) for q in available_pages()], p.path


def assert_speaks(at: AppTest, lang: str, where: str) -> None:
    no_exception(at)
    assert english_left(at, lang) == [], where
    assert untranslated_shown(at, lang) == [], where
    assert english_words_shown(at, lang) == {}, where


@pytest.mark.parametrize("lang", OTHER)
def test_every_page_and_lesson_step_on_the_languages_grown_model_speaks_it(lang):
    """A default start (no model chosen): every page on the language's own grown model, and every Lesson step."""
    at = AppTest.from_file(str(ROOT / HOME), default_timeout=300)
    at.query_params["lang"] = lang
    at.run()
    assert at.session_state["model"] == lexicon.model_of(lang)
    for p in available_pages():
        if p.path != HOME:
            at.switch_page(p.path).run()
        assert_speaks(at, lang, p.path)
    at.switch_page("pages/0_Lesson.py").run()
    for n in range(1, len(STEPS) + 1):
        at.session_state["lesson:step"] = n
        at.run()
        assert_speaks(at, lang, f"Lesson step {n}")


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
