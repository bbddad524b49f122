"""A hostile model, word and address in real Chromium, on every page: no dialog opens, no frame, object, link or
image of theirs appears. And the files of a session are gone from the server's disk after it ends."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import quote

import pytest

from andrea_viz.registry import available_pages
from tests.checkpoint_files.hostile import BREAKOUT, EVIL, hostile_folder

from .conftest import exceptions, open_page, serve, sidebar_model, wait_idle

FOUND_MARKUP = """() => {
  const main = document.querySelector('[data-testid=stAppViewContainer]') || document.body;
  const bad = [];
  for (const el of main.querySelectorAll('iframe, object, embed, script:not([src]), img, a[href], [srcdoc]')) {
    const target = el.getAttribute('href') || el.getAttribute('src') || el.getAttribute('data') || el.getAttribute('srcdoc') || '';
    // the app's own frames (the Lesson's keys script, the Positions sum) are Streamlit elements, never inside a
    // markdown body; their source holds the tokens as escaped JSON data, so what counts is the frame's own page
    const own = el.matches('iframe[data-testid=stIFrame], iframe[data-testid=stCustomComponentV1]:is([title="andrea_viz.ui.map_view.canvas_map"], [title="andrea_viz.ui.map_view.canvas_map_lines"])')
      && !el.closest('[data-testid=stMarkdownContainer]');  // and the canvas map's component frames (map, lines)
    if (own) {
      const doc = el.contentDocument;
      if (!doc) { bad.push('unreadable frame: ' + el.outerHTML.slice(0, 200)); continue; }
      for (const inner of doc.querySelectorAll('iframe, object, embed, img, a[href], [srcdoc], [style*=color]'))
        bad.push('in a frame: ' + inner.outerHTML.slice(0, 200));
      for (const inner of doc.querySelectorAll('*'))
        for (const at of inner.attributes)
          if (at.value.includes('EVIL') || at.value.startsWith('javascript:')) bad.push('in a frame: ' + inner.outerHTML.slice(0, 200));
      continue;
    }
    if (el.matches('iframe, object, embed, [srcdoc]') || target.includes('EVIL') || target.startsWith('javascript:'))
      bad.push(el.outerHTML.slice(0, 200));
  }
  for (const el of main.querySelectorAll('.js-plotly-plot a, .js-plotly-plot text b'))
    bad.push('plotly: ' + el.outerHTML.slice(0, 200));
  for (const el of main.querySelectorAll('[data-testid=stMarkdownContainer] span[style*=color]'))
    if (el.textContent.includes('RED')) bad.push('colour: ' + el.outerHTML.slice(0, 200));
  return bad;
}""".replace("EVIL", EVIL)


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckpts")
    _path, rel = hostile_folder(root)
    with serve({"ANDREA_VIZ_CHECKPOINT_DIR": str(root)}) as (url, _pid):
        yield url, rel


PAGES = [p.url_path for p in available_pages()]


@pytest.fixture
def watched(page):
    """A page of its own, and the dialogs it opened (none, or the test fails)."""
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    return page, dialogs


@pytest.mark.parametrize("path", PAGES)
def test_no_markup_of_a_hostile_model_reaches_the_page(watched, hostile_app, path):
    (url, rel), (page, dialogs) = hostile_app, watched
    open_page(page, f"{url}/{path}?model={quote('folder:' + rel)}&word={quote('#15')}")
    assert "evil.npz" in sidebar_model(page)  # the hostile model is the one on screen
    assert exceptions(page) == []
    assert page.evaluate(FOUND_MARKUP) == []
    assert dialogs == []


def test_the_canvas_map_of_a_hostile_model_shows_its_tokens_as_text(watched, hostile_app):
    (url, rel), (page, dialogs) = hostile_app, watched
    open_page(page, f"{url}/Projection?model={quote('folder:' + rel)}&renderer=canvas&labels=1")
    frame = page.frame_locator("iframe[title='andrea_viz.ui.map_view.canvas_map']")
    frame.locator("body[data-ready]").wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    box = frame.locator("canvas#map").bounding_box()
    for k in range(40):  # sweep the pointer over the map: tooltips of whatever tokens lie under it
        page.mouse.move(box["x"] + box["width"] * (0.05 + 0.9 * (k % 8) / 7), box["y"] + box["height"] * (0.1 + 0.8 * (k // 8) / 4))
    assert exceptions(page) == []
    assert page.evaluate(FOUND_MARKUP) == []
    assert dialogs == []


def test_a_typed_hostile_word_stays_text(watched, hostile_app):
    (url, rel), (page, dialogs) = hostile_app, watched
    open_page(page, f"{url}/Forward_pass?model={quote('folder:' + rel)}")
    box = page.get_by_role("textbox", name="A sentence")
    box.fill(f"cat {BREAKOUT} [click](https://evil.invalid/x) <b>x</b> dog")
    box.press("Enter")
    page.locator("[data-testid=stMarkdownContainer]", has_text="click").first.wait_for(timeout=60_000)
    wait_idle(page)
    assert page.evaluate(FOUND_MARKUP) == [] and dialogs == [] and exceptions(page) == []


def test_a_sessions_upload_is_deleted_from_disk_when_the_session_ends(browser, tmp_path):
    import numpy as np

    from andrea_viz.ui.session_files import BASE

    np.savez(tmp_path / "mine.npz", wte=np.ones((30, 4), np.float32))
    env = {"STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL": "1", "ANDREA_VIZ_SWEEP_SECONDS": "1"}
    with serve(env) as (url, pid):
        context = browser.new_context()
        page = context.new_page()
        open_page(page, f"{url}/Checkpoint")
        page.locator("[data-testid=stFileUploaderDropzoneInput]").first.set_input_files(str(tmp_path / "mine.npz"))
        page.get_by_role("button", name="Read the upload").wait_for()
        page.locator("button:not([disabled])", has_text="Read the upload").click()
        page.get_by_text("What mine.npz holds").wait_for(timeout=60_000)
        homes = list((BASE / str(pid)).iterdir())
        assert len(homes) == 1 and list(homes[0].rglob("mine.npz"))
        context.close()  # the session ends: its websocket closes, and the server forgets it after the TTL
        deadline = time.monotonic() + 60
        while homes[0].exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not homes[0].exists()
    assert not Path(BASE / str(pid)).exists() or not any((BASE / str(pid)).iterdir())


OFF_SITE_LINKS = """() => [...document.querySelectorAll('a[href]')].map(a => a.href)
  .filter(h => new URL(h, location.href).host !== location.host && h.includes('EVIL'))""".replace("EVIL", EVIL)


@pytest.mark.parametrize("word", ["https://evil.invalid/x", "www.evil.invalid", "a@evil.invalid"])
def test_an_address_word_that_looks_like_a_link_is_shown_as_text_on_neighbours(page, app_url, word):
    """remark-gfm makes autolink literals of the text after escapes are undone: the note that repeats the word must
    show it, readable, and no <a> may point off-site."""
    open_page(page, f"{app_url}/Neighbours?word={quote(word, safe='')}")
    note = page.locator("[data-testid=stCaptionContainer]", has_text="evil")  # the note that repeats the word
    note.first.wait_for(timeout=60_000)
    wait_idle(page)
    assert word in note.first.inner_text().replace("\u2060", "")  # the word as typed (the joiners are invisible)
    assert note.first.locator("a").count() == 0
    assert page.evaluate(OFF_SITE_LINKS) == []
    assert exceptions(page) == []


def test_math_in_a_folder_name_in_the_address_is_shown_as_typed_not_as_katex(page, app_url):
    """The folder messages said {rel!r}, which doubled md()'s backslashes and let $…$ through to KaTeX."""
    name = "$\\color{red}{RED}$"
    open_page(page, f"{app_url}/?model={quote('folder:' + name, safe='')}")
    box = page.locator("[data-testid=stAlertContainer]", has_text="could not be opened")
    box.first.wait_for(timeout=60_000)
    assert name in box.first.inner_text()
    assert box.first.locator(".katex, span[style*=color]").count() == 0
    assert exceptions(page) == []
