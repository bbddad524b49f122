"""The app in Chromium against another origin: every response says only the app may frame it, so a page of another
site gets a blocked frame; a page of another site that opened the app and posts render messages to the canvas map's
frame changes nothing there; a render message with absurd arrays, even from the app's own page, is refused before
anything is allocated; and neither map renderer, while it loads, asks any host but the app's own for anything (every
page on a walk through the app: test_browser.py::test_every_page_in_each_language)."""

from __future__ import annotations

import contextlib
import http.server
import re
import threading
import urllib.request
from urllib.parse import urlsplit

import pytest


from .conftest import VIEWPORT, exceptions, open_page, record_requests, requests_elsewhere, serve, wait_idle

MAP = "iframe[title='andrea_viz.ui.map_view.canvas_map']"
PROJECTION = "Projection?model=andrea-micro&method=pca&renderer=canvas&labels=1"
EVIL = "login expired: visit evil.invalid"

# A render message shaped as canvas_map.py writes it, one point, its hint and labels the attacker's
EVIL_ARGS = """() => {
  const f32 = new Float32Array([0, 0]), i32 = new Int32Array([7]), off = new Int32Array([0, 4]);
  return {n: 1, points: "evil", height: 640, xy: new Uint8Array(f32.buffer), ids: new Uint8Array(i32.buffer),
          colour: new Uint8Array([0]), kept: new Uint8Array([50]), offsets: new Uint8Array(off.buffer),
          tokens: new TextEncoder().encode("EVIL"), palette: [{rgb: [255, 0, 0], size: 40, name: "EVIL"}],
          labels: [{x: 0, y: 0, text: "EVIL", level: 0}], lines: null,
          text: {kept: "EVIL", unscored: "EVIL", hint: "HINT", reset: "EVIL"}};
}""".replace("HINT", EVIL)


@contextlib.contextmanager
def foreign_site(pages: dict[str, str]):
    """Another origin (localhost on a port of its own, where the app is 127.0.0.1 on another): a tiny http.server
    answering ``pages`` (path -> HTML); yields its base URL."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = pages.get(self.path.split("?")[0], "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://localhost:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _map_state(frame) -> dict:
    """What a render message could change in the map's frame: its points, hint, button, labels, refusals."""
    return frame.locator("body").evaluate("""b => ({
        ready: b.dataset.ready, hint: document.getElementById('hint').textContent,
        reset: document.getElementById('reset').textContent,
        labels: [...document.querySelectorAll('.label')].map(l => l.textContent), n: window.__map.n,
        refused: b.dataset.refused || '0', why: b.dataset.refusedWhy || ''})""")


def _open_map(page, url: str):
    open_page(page, f"{url}/{PROJECTION}")
    frame = page.frame_locator(MAP)
    frame.locator("body[data-ready]").wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    return frame


def test_a_fresh_servers_very_first_answer_says_that_only_the_app_may_frame_it():
    """Before any page has run (streamlit_app.py installs the guards as the server starts, not at a first page)."""
    with serve() as (url, _pid):
        for path in ("/", "/Projection", "/_stcore/health"):
            with urllib.request.urlopen(url + path, timeout=30) as r:
                assert r.headers["Content-Security-Policy"] == "frame-ancestors 'self'", path
                assert r.headers["X-Frame-Options"] == "SAMEORIGIN", path


def test_every_response_says_that_only_the_app_may_frame_it(page, browser, app_url):
    _open_map(page, app_url)
    seen: list = []
    context = browser.new_context(viewport=VIEWPORT)  # its own cache: every file asked again
    fresh = context.new_page()
    fresh.on("response", lambda r: seen.append(r))
    _open_map(fresh, app_url)  # the document, its scripts and styles, the map's component frames
    own = [(r.url, r.all_headers()) for r in seen if urlsplit(r.url).netloc == urlsplit(app_url).netloc]
    context.close()
    assert any("map_frame" in u or "canvas_map" in u for u, _h in own)  # the component's own files were among them
    missing = [u for u, h in own if h.get("content-security-policy") != "frame-ancestors 'self'"
               or h.get("x-frame-options") != "SAMEORIGIN"]
    assert len(own) > 5 and missing == []
    for path in ("/", "/Projection", "/_stcore/health"):  # and what a plain client gets
        with urllib.request.urlopen(app_url + path, timeout=30) as r:
            assert r.headers["Content-Security-Policy"] == "frame-ancestors 'self'", path
            assert r.headers["X-Frame-Options"] == "SAMEORIGIN", path


def test_a_page_of_another_origin_gets_a_blocked_frame(page, app_url):
    _open_map(page, app_url)  # the guard is installed
    html = (f"<!doctype html><body><iframe id=app width=800 height=600 src='{app_url}/Projection'"
            " onload=\"document.body.dataset.loaded = '1'\"></iframe></body>")
    with foreign_site({"/frame.html": html}) as site:
        page.goto(f"{site}/frame.html")
        page.locator("body[data-loaded]").wait_for(state="attached", timeout=60_000)  # the frame's load event
        child = page.frame_locator("#app")
        inner = [f for f in page.frames if f.parent_frame == page.main_frame]
        assert len(inner) == 1
        # Chromium puts its error page where a frame-ancestors policy refused the document (awaited on the frame's own
        # address: a whole-suite run once read it still empty right after the load event)
        inner[0].wait_for_url(re.compile(r"^chrome-error://"), timeout=30_000)
        assert child.locator("[data-testid='stApp']").count() == 0


def test_a_page_of_another_origin_that_opened_the_app_cannot_redraw_its_map(page, app_url):
    with foreign_site({"/opener.html": "<!doctype html><body>a site of another origin</body>"}) as site:
        page.goto(f"{site}/opener.html")
        with page.context.expect_page() as opened:
            page.evaluate("u => { window.app = window.open(u); }", f"{app_url}/{PROJECTION}")
        app = opened.value
        app.wait_for_selector("[data-testid='stApp']", timeout=90_000)
        frame = app.frame_locator(MAP)
        frame.locator("body[data-ready]").wait_for(state="attached", timeout=90_000)
        wait_idle(app)
        before = _map_state(frame)
        assert before["n"] > 500 and before["refused"] == "0" and before["hint"] != EVIL
        # the foreign page posts a render message to every frame of the window it opened, the map's among them
        posted = page.evaluate(f"""() => {{
            const args = ({EVIL_ARGS})();
            for (let k = 0; k < window.app.length; k++)
              window.app[k].postMessage({{isStreamlitMessage: true, type: "streamlit:render", args}}, "*");
            return window.app.length;
        }}""")
        assert posted >= 2  # the map's frame and its lines' frame at least
        # wait on the map frame itself: its refusal, or (were it obeyed) the attacker's hint
        app.wait_for_function(f"""() => {{
            const doc = document.querySelector("{MAP}").contentDocument;
            return doc.body.dataset.refused || doc.getElementById('hint').textContent === {EVIL!r};
        }}""", timeout=30_000)
        after = _map_state(frame)
        assert after == {**before, "refused": "1", "why": "source"}
        assert exceptions(app) == []


BAD_ARGS = {  # a reason the frame gives -> what to change in a sound one-point message (EVIL_ARGS' shape)
    "n": "a.n = 3e7; a.xy = new Uint8Array(8);",  # a message claiming 3e7 points: refused before a byte is copied
    "arrays": "a.n = 5;",  # arrays of one point
    "tokens": "a.offsets = new Uint8Array(4);",
    "offsets": "a.offsets = new Uint8Array(new Int32Array([0, 99]).buffer);",  # past the end of the blob
    "colour": "a.colour = new Uint8Array([9]);",  # no such palette entry
    "palette": "a.palette = new Array(300).fill(a.palette[0]);",
    "labels": "a.labels = [{x: 0, y: 0, text: {}, level: 0}];",
    "text": "a.text = null;",
}


def test_the_map_frame_refuses_absurd_render_messages_from_its_own_page(page, app_url):
    frame = _open_map(page, app_url)
    before = _map_state(frame)
    for count, (why, change) in enumerate(BAD_ARGS.items(), 1):
        page.evaluate(f"""() => {{
            const a = ({EVIL_ARGS})();
            {change}
            document.querySelector("{MAP}").contentWindow.postMessage(
              {{isStreamlitMessage: true, type: "streamlit:render", args: a}}, "*");
        }}""")
        frame.locator(f"body[data-refused='{count}']").wait_for(state="attached", timeout=30_000)
        assert _map_state(frame) == {**before, "refused": str(count), "why": why}
    # lines handed over by a frame of the app's own origin are checked too: positions outside the points
    page.evaluate(f"""() => document.querySelector("{MAP}").contentWindow.andreaMap.setLines({{from: 0, to: [1e9]}})""")
    frame.locator(f"body[data-refused='{len(BAD_ARGS) + 1}']").wait_for(state="attached", timeout=30_000)
    assert _map_state(frame)["why"] == "lines"
    assert exceptions(page) == []


# every page on a walk through the app is checked in test_browser.py::test_every_page_in_each_language; here the two
# map renderers that a page's default does not draw
RENDERER_URLS = ["Projection?renderer=deck", "Projection?renderer=canvas"]


@pytest.mark.parametrize("path", RENDERER_URLS)
def test_a_map_renderer_loads_with_no_request_to_another_host(page, app_url, path):
    asked = record_requests(page)
    open_page(page, f"{app_url}/{path}", timeout=300_000)
    if "renderer=deck" in path:
        page.locator("[data-testid='stDeckGlJsonChart'] canvas").first.wait_for(timeout=60_000)
    if "renderer=canvas" in path:
        page.frame_locator(MAP).locator("body[data-ready]").wait_for(state="attached", timeout=60_000)
    wait_idle(page, 300_000)
    assert len(asked) > 5 and requests_elsewhere(asked, app_url) == []
    assert exceptions(page) == []
