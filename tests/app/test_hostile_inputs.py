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
from tests.checkpoint_files.hostile import EVIL, HOSTILE, hostile_folder

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
    if page != "streamlit_app.py":
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

    at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
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
        at = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=60)
        at.session_state["model"] = "andrea-120m-init"
        at.query_params["word"] = word
        at.run()
        at.switch_page("pages/4_Neighbours.py").run()
        no_exception(at)
        assert any("cannot use" in w.value for w in at.warning)
