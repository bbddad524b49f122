"""Hostile tokens, words, folder names and addresses on every page: nothing of them becomes markup.

Every markdown body the page sends is rendered with CommonMark (markdown-it) and must hold no link, image,
raw HTML, emphasis or code span that the hostile strings brought; every plotly figure must hold no raw tag
of theirs (plotly renders <a>, <b>, <br> and more in text). A mutation check: dropping the escaping of a
token in ``ui.token_chips`` or of a word in ``plots.neighbours`` makes these tests fail.
"""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt

from andrea_viz.registry import available_pages
from andrea_viz.ui import url
from tests.checkpoint_files.hostile import EVIL, HOSTILE, hostile_folder
from tests.unit.test_safe_inputs import hostile_markup

from .conftest import ROOT, no_exception, start_app

MD = MarkdownIt("commonmark")
MARKDOWN_ELEMENTS = ("markdown", "caption", "title", "header", "subheader", "error", "warning", "info", "success")
RAW_TAGS = ("<a ", "<img", "<iframe", "<object", "<script", "<b>", "<br>")


def bodies(at) -> list[str]:
    out = []
    for kind in MARKDOWN_ELEMENTS:
        out += [e.value if isinstance(e.value, str) else e.proto.body for e in at.get(kind)]
    out += [m.label for m in at.get("metric")] + [b.label for b in at.button]
    return out


def assert_inert(at) -> None:
    for body in bodies(at):
        assert not hostile_markup(body), (hostile_markup(body), body)  # no autolink literal, link, HTML or math
        html = MD.render(body)
        assert EVIL not in "".join(a for a in html.split('"') if a.startswith("http")), body  # no link or image target
        for tag in ("<a ", "<img", "<iframe", "<object", "<script"):
            assert tag not in html, (tag, body)
        for h in HOSTILE:  # what a hostile token would have become had it not been escaped
            if "**strong**" in h:
                assert "<strong>strong</strong>" not in html, body
    for c in at.get("plotly_chart"):
        spec = json.loads(c.proto.spec)
        text = json.dumps(spec, ensure_ascii=False)
        for tag in RAW_TAGS[:5]:
            assert tag not in text, (tag, text[:300])
        for h in ("<b>bold</b>", "<a href"):
            assert h not in text


@pytest.fixture
def hostile_app(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    _path, rel = hostile_folder(tmp_path)
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(tmp_path))

    def start(word: str | None = None) -> AppTest:
        return start_app(query={"model": f"folder:{rel}", **({"word": word} if word is not None else {})})

    return start


PAGES = [p.path for p in available_pages()]


@pytest.mark.parametrize("page", PAGES)
def test_hostile_tokens_and_folder_name_stay_text_on_every_page(hostile_app, page):
    at = hostile_app()
    assert "evil" in at.session_state["model"] or at.session_state["model"].startswith("file:")
    if page != "home.py":
        at.switch_page(page).run()
        no_exception(at)
    assert_inert(at)


@pytest.mark.parametrize("word", ["#20", "#5", "<a href=https://evil.invalid/x>x</a>", "[x](https://evil.invalid)"])
@pytest.mark.parametrize("page", ["pages/1_Lookup_table.py", "pages/4_Neighbours.py", "pages/6_Positions.py"])
def test_hostile_word_in_the_address_stays_text(hostile_app, page, word):
    at = hostile_app(word)
    at.switch_page(page).run()
    no_exception(at)
    assert_inert(at)


def test_typed_hostile_words_stay_text_on_dot_products(hostile_app):
    at = hostile_app()
    at.switch_page("pages/3_Dot_products.py").run()
    boxes = [t for t in at.text_input if t.key and t.key.startswith(("dot:u", "dot:v"))]
    assert len(boxes) == 2
    boxes[0].input("#15").run()  # the token with backticks that would close a code span
    boxes = [t for t in at.text_input if t.key and t.key.startswith(("dot:u", "dot:v"))]
    boxes[1].input("#19").run()  # the [click](…) token
    no_exception(at)
    assert any("click" in c.value for c in at.caption), [c.value for c in at.caption]  # the token is shown, as text
    assert_inert(at)


@pytest.mark.parametrize("query", ["seed=-1", "seed=2000000", "n=²", "n=1e3", "method=<b>x</b>", "dims=9"])
def test_bad_address_values_on_projection_are_refused_with_a_sentence(app, query):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=300)
    at.session_state["model"] = "andrea-micro"
    name, value = query.split("=", 1)
    at.query_params[name] = value
    at.run()
    at.switch_page("pages/5_Projection.py").run()
    no_exception(at)
    assert any("cannot use" in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_huge_word_or_id_in_the_address_is_refused_quickly(app):
    from streamlit.testing.v1 import AppTest

    for word in ["#" + "9" * 50_000, "a" * 100_000]:
        at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=60)
        at.session_state["model"] = "andrea-120m-init"
        at.query_params["word"] = word
        at.run()
        at.switch_page("pages/4_Neighbours.py").run()
        no_exception(at)
        assert any("cannot use" in w.value for w in at.warning)


# every address value the fuzz tries: NUL, a 300-character name, a path of three 250-character folder names, empty,
# an unknown keyword, a URL, a bare www. host, an e-mail address, math, a link, HTML
FUZZ = ["\x00", "n" * 300, "/".join(["f" * 250] * 3), "", "bogus", "https://evil.invalid/x", "www.evil.invalid",
        "a@evil.invalid", "$\\color{red}{RED}$", "[x](https://evil.invalid)", "<b>x</b>"]
EVERY_PAGE = ("model", "tables", "lang")  # read by page_setup on every page
READS = {"pages/0_Lesson.py": ("step", "present"), "pages/1_Lookup_table.py": ("word",),
         "pages/4_Neighbours.py": ("word",), "pages/6_Positions.py": ("word",), "pages/11_Anatomy.py": ("word",),
         "pages/5_Projection.py": ("method", "dims", "n", "seed", "labels", "renderer"),
         "pages/9_Grow.py": ("grow_run",), "pages/12_Class.py": ("code",)}


@pytest.fixture
def reads(monkeypatch) -> set:
    """The address names the pages ask for (every read goes through url.read, initial's too)."""
    seen: set[str] = set()
    real = url.read

    def recording(name, *args, **kwargs):
        seen.add(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(url, "read", recording)
    return seen


def fuzz_run(page: str, query: dict[str, str]) -> list[str]:
    """A fresh session opened at ``query`` (on the home page, which reads model and lang), then on ``page``: no
    exception, nothing live in any markdown body. Returns the warnings and errors both runs showed."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=300)
    for name, value in query.items():
        at.query_params[name] = value
    said = []
    for run in (at.run, lambda: at.switch_page(page).run()) if page != "home.py" else (at.run,):
        run()
        no_exception(at)
        assert_inert(at)
        said += [e.value for e in (*at.warning, *at.error)]
    return said


def test_no_address_code_reads_the_query_string_but_url():
    """Every read of the address goes through url.read's one rule (writes may go to st.query_params)."""
    import re

    readers = [f"{p.relative_to(ROOT)}:{i}" for p in [*(ROOT / "pages").glob("*.py"), ROOT / "home.py",
                                                      *(ROOT / "andrea_viz").rglob("*.py")]
               if p.name != "url.py" for i, line in enumerate(p.read_text().splitlines(), 1)
               if re.search(r"query_params\.get\(|query_params\[[^]]+\](?!\s*=)|query_params\.to_dict", line)]
    assert readers == [], readers


@pytest.mark.parametrize("i, page", list(enumerate(PAGES)))
def test_every_address_parameter_of_every_page_fuzzed_at_once(i, page, reads):
    """One session per page with every parameter it reads set to a hostile value at once (each parameter a
    different one, rotated by page): no exception, nothing live in any markdown body, a sentence for what was
    refused, and no name read that the fuzz did not set."""
    names = EVERY_PAGE + READS.get(page, ())
    query = {n: FUZZ[(i + j) % len(FUZZ)] for j, n in enumerate(names)}
    query["model"] = "folder:" + query["model"]
    said = fuzz_run(page, query)
    assert reads <= set(names), reads - set(names)
    assert len(said) >= len(names) - 1, said  # each refused with a sentence (a word may be shown as text instead)


@pytest.mark.parametrize("value", FUZZ)
@pytest.mark.parametrize("page, query", [("home.py", {"model": "folder:{}", "lang": "{}"}),
                                         ("pages/0_Lesson.py", {"model": "{}", "step": "{}", "present": "{}"}),
                                         ("pages/4_Neighbours.py", {"word": "{}"})])
def test_each_hostile_value_in_the_address_is_refused_or_shown_as_text(page, query, value):
    """Every fuzz value in turn in a page's own parameters (``model`` as ``folder:<value>`` and as itself): no
    exception, nothing live; a value the page cannot use is refused with a sentence."""
    said = fuzz_run(page, {name: pattern.replace("{}", value) for name, pattern in query.items()})
    if page != "pages/4_Neighbours.py":  # a word is a word: Neighbours shows it (as text) or says it is unknown
        assert len(said) >= len(query), said  # one sentence for each value refused
