"""The real app, served by `streamlit run`, driven by Debian's Chromium through Playwright."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from andrea_viz import testing_harness
from andrea_viz.testing_harness import CHROMIUM_FLAGS, VIEWPORT, chromium_exe  # one list of flags and one window, shared with the benchmarks
from andrea_viz.ui.state import MODEL_WIDGET

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
LOGS = ROOT / "artifacts" / "logs"


def serve(extra_env: dict[str, str] | None = None, script: str = "streamlit_app.py"):
    """The real app in its own ``streamlit run`` process (andrea_viz.testing_harness, the benchmarks' launcher), its
    output under artifacts/logs/: yields (url, pid) once /_stcore/health answers. ``script``: home.py serves the same
    pages without ``streamlit_app.py``'s ``st.App`` (no class route)."""
    return testing_harness.serve(extra_env, log_dir=LOGS, script=script)


@pytest.fixture(scope="session")
def app_url():
    with serve() as (url, _pid):
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_exe(), args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def shared_context(browser):
    """The browser context of the tests that take ``page`` (one per worker), which keeps the app's scripts Chromium
    has already fetched and compiled (a context per test cost about half a second of CPU more per test on 2 cores).
    What a context holds between tests is cleared after each: its other pages, its cookies, and what the app's origin
    kept in the page's storage (Streamlit's theme choice)."""
    context = browser.new_context(viewport=VIEWPORT)
    yield context
    context.close()


# a predicate, so that the page's answer is awaited with a timeout: a test that failed on a hung page must not hang its
# teardown (page.evaluate would wait for ever)
CLEAR_STORAGE = "() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} return true; }"


@pytest.fixture(scope="session")
def _kept():
    return {}  # the worker's one page, while it is open


@pytest.fixture
def page(shared_context, _kept):
    """The worker's page, a Streamlit session of the test's own: the test's first navigation starts one, and it ends
    when the page leaves for about:blank after the test (as a closed page's would). One page for every test, because
    a new page costs Chromium a window and a renderer of its own: 1.48 CPU-seconds a page load against 0.72 on the
    same page, left for about:blank in between (six pages alternating, four rounds, on 2 cores). After each test the
    listeners it added are removed, its other pages closed, storage and cookies cleared, the window's size and media
    set back; a page that cannot leave (hung, crashed) is closed, and the next test gets a new one."""
    p = _kept.get("page")
    if p is None or p.is_closed():
        p = _kept["page"] = shared_context.new_page()
    added: list[tuple[str, object]] = []

    def on(event, f):  # the page's own listeners, recorded so that they can be removed
        added.append((event, f))
        type(p).on(p, event, f)

    def once(event, f):
        added.append((event, f))
        type(p).once(p, event, f)

    p.on, p.once = on, once
    try:
        yield p
    finally:
        del p.on, p.once
        for event, f in added:
            with contextlib.suppress(Exception):  # (a once-listener that has run is gone already)
                p.remove_listener(event, f)
        for opened in shared_context.pages:
            with contextlib.suppress(PlaywrightError):  # (a timeout is one)
                opened.wait_for_function(CLEAR_STORAGE, timeout=5_000)
            if opened is not p:
                opened.close()
        shared_context.clear_cookies()
        try:
            p.goto("about:blank", timeout=10_000)
            p.set_viewport_size(VIEWPORT)
            p.emulate_media(media="no-override")
        except PlaywrightError:
            with contextlib.suppress(PlaywrightError):
                p.close()


def wait_idle(page, timeout: float = 90_000, network: bool = True) -> None:
    """Wait until the script has run to the end (Streamlit's own state attribute, not a sleep), then for the network
    to be quiet unless ``network`` is False: on the Lesson page, whose keys frame keeps Chromium from ever reporting
    it (each wait there cost the whole 10 s)."""
    page.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout)
    if not network:
        return
    try:  # the script's own state is the signal; network quiet is only awaited where a page has one (the Lesson's
        page.wait_for_load_state("networkidle", timeout=10_000)  # keys frame keeps Chromium from ever reporting it)
    except PlaywrightTimeout:
        pass


def listen_to_websockets(page) -> tuple[list[str], list]:
    """From now on, the addresses of the websockets ``page`` opens and every frame it sends on them."""
    urls, sent = [], []

    def opened(ws) -> None:
        urls.append(ws.url)
        ws.on("framesent", lambda payload: sent.append(payload))  # Playwright marks a handler: a bound method won't do

    page.on("websocket", opened)
    return urls, sent


def reruns_asked(sent: list) -> list[str]:
    """The reruns a page asked for among the frames it sent (Streamlit's BackMsg, binary frames): each one's fragment
    id, "" for a rerun of the whole page."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    out = []
    for payload in (p for p in sent if isinstance(p, bytes)):
        msg = BackMsg()
        msg.ParseFromString(payload)
        if msg.WhichOneof("type") == "rerun_script":
            out.append(msg.rerun_script.fragment_id)
    return out


MOVED = "([el, v]) => el.value !== v"


def press_right(page, slider, tries: int = 3) -> None:
    """→ on ``slider`` until its value moves. A press that lands while the page is still drawing the step can be
    lost (about 1 run in 10 on 2 cores: the slider keeps its value and the page never counts it placed), so a press
    whose slider has not moved after 5 s is made again; each wait is on the slider's own value."""
    before = slider.input_value()
    for attempt in range(tries):
        slider.focus()
        page.keyboard.press("ArrowRight")
        try:
            page.wait_for_function(MOVED, arg=[slider.element_handle(), before], timeout=5_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise


def act_until(act, done, tries: int = 3, timeout: float = 20_000) -> None:
    """``act()`` (a click, a choice) and wait for ``done``, a locator of the very element the act must bring. Whole-suite
    runs now and then lose an input made right after a script run (Compare's radio clicks; the slider presses above),
    so an act whose element has not come within ``timeout`` ms is made again (an act that had landed changes nothing
    the second time: a radio already chosen stays chosen); after ``tries`` the timeout is raised."""
    for attempt in range(tries):
        act()
        try:
            done.wait_for(timeout=timeout)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise


def toggle_on(page, label: str) -> None:
    """Turn on the toggle ``label`` and wait for its own input to be checked, the click made again if lost (a whole
    suite lost the teacher's "Follow me" once: no pacing was ever written); then the run it starts ends."""
    switch = page.locator("[data-testid='stCheckbox']", has_text=label)
    act_until(lambda: switch.locator("label").click(), switch.locator("input:checked"))
    wait_idle(page)


def record_requests(page) -> list[str]:
    """The URLs ``page`` asks for from now on (a list that grows as it loads)."""
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    return asked


def requests_elsewhere(asked: list[str], app_url: str) -> list[str]:
    """The requests of ``asked`` to any host but the app's own (data: and blob: URLs are the page's own)."""
    from urllib.parse import urlsplit

    own = urlsplit(app_url).netloc
    return [u for u in asked if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != own]


# the sidebar's model picker: Streamlit gives a keyed widget's container the class st-key-<key>
MODEL_PICKER = f"[data-testid='stSidebar'] .st-key-{MODEL_WIDGET}"


def open_page(page, url: str, timeout: float = 90_000) -> None:
    page.goto(url)
    page.wait_for_selector("[data-testid='stApp']", timeout=timeout)
    # the first run may not have started yet when the app frame appears
    page.wait_for_selector(
        f"{MODEL_PICKER} [data-testid='stSelectbox'], [data-testid='stException']", timeout=timeout
    )
    wait_idle(page, timeout)


PLOTS_FIT_THEIR_CONTAINERS = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')].every(c => {
    const p = c.querySelector('.js-plotly-plot');
    return p && p._fullLayout && Math.abs(p._fullLayout.width - c.clientWidth) <= 2;
})"""


TABLES_DRAWN = """() => !document.querySelector('[data-testid=stMain] [data-testid=stSkeleton]')
    && [...document.querySelectorAll('[data-testid=stDataFrame]')].filter(d => d.checkVisibility())
        .every(d => [...d.querySelectorAll('canvas')].some(c => c.width > 0 && c.height > 0))"""


TITLES_PAST_THEIR_CHART = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(p => {
    const svg = p.querySelector('.main-svg');
    if (!svg) return [];
    const box = svg.getBoundingClientRect();
    return [...p.querySelectorAll('.gtitle, .gtitle-subtitle')].filter(t => {
        const b = t.getBoundingClientRect();
        return b.width > 0 && (b.right > box.right + 1 || b.left < box.left - 1);
    }).map(t => t.textContent);
})"""


def titles_past_their_chart(page) -> list[str]:
    """The chart titles and subtitles on the page that run past their own picture (plotly never wraps nor cuts one:
    the browser cuts it at the picture's edge)."""
    return page.evaluate(TITLES_PAST_THEIR_CHART)


CUT_BUTTONS = """() => {  // a label's laid-out width (a range over its text) against the box Streamlit ellipsises it in
    return [...document.querySelectorAll('[data-testid=stMain] button')]
        .filter(b => b.offsetWidth > 0 && b.innerText.trim())
        .filter(b => [b, ...b.querySelectorAll('*')].some(e => {
            const style = getComputedStyle(e);
            if (style.textOverflow !== 'ellipsis' || !e.clientWidth) return e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0;
            const room = e.getBoundingClientRect().width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
                - parseFloat(style.borderLeftWidth) - parseFloat(style.borderRightWidth);  // unrounded, as painted
            const text = document.createRange();
            text.selectNodeContents(e);
            return text.getBoundingClientRect().width > room + 0.01;
        }))
        .map(b => b.innerText.trim());
}"""


def cut_buttons(page) -> list[str]:
    """The words of the page's buttons (download buttons too) cut short by their own box: Streamlit ends a label
    too wide for its column with an ellipsis ("Onthul de cosi…")."""
    return page.evaluate(CUT_BUTTONS)


METRICS_OUT_OF_LINE = """() => [...document.querySelectorAll('[data-testid=stHorizontalBlock]')].flatMap(row => {
    // the k-th metric of each column of a row of columns (a column may hold two, one under the other)
    const columns = [...row.querySelectorAll(':scope > [data-testid=stColumn]')].map(c =>
        [...c.querySelectorAll('[data-testid=stMetricValue]')]
            .filter(v => v.closest('[data-testid=stHorizontalBlock]') === row && v.offsetHeight > 0));
    const out = [];
    for (let k = 0; k < Math.max(0, ...columns.map(c => c.length)); k++) {
        const values = columns.filter(c => c.length > k).map(c => c[k]);
        if (values.length < 2) continue;
        const tops = values.map(v => v.getBoundingClientRect().top);
        if (Math.max(...tops) - Math.min(...tops) > 1) out.push(values.map(v => v.innerText.trim()).join(' | '));
    }
    return out;
})"""


def metrics_out_of_line(page) -> list[str]:
    """Rows of metrics (one per column) whose values do not stand on one line: a label that wraps in one column
    (Dutch and Portuguese labels are longer) pushes its value down unless the columns align at their bottoms."""
    return page.evaluate(METRICS_OUT_OF_LINE)


LABELS_OVERLAP = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(p => {
    const texts = [...p.querySelectorAll('text')]
        .filter(t => t.textContent.trim() && !/rotate\\(-?[1-9]/.test(t.getAttribute('transform') || ''))
        .map(t => [t.textContent, t.getBoundingClientRect()]).filter(([, b]) => b.width > 0 && b.height > 0);
    const out = [];
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i][1], b = texts[j][1];
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 3)
            out.push(texts[i][0].slice(0, 40) + ' | ' + texts[j][0].slice(0, 40));
    }
    return out;
})"""


def overlapping_labels(page) -> list[str]:
    """Pairs of a chart's texts (ticks, titles, annotations, legend entries; rotated tick labels aside, whose boxes
    overlap where their letters do not) drawn over each other, as "one | other"."""
    return page.evaluate(LABELS_OVERLAP)


def screenshot(page, name: str) -> Path:
    """The whole page: Streamlit scrolls inside its own container, so grow the viewport to fit it."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], section.main, [data-testid=stAppViewContainer]')]"
        ".map(e => e.scrollHeight), document.body.scrollHeight)"
    )
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 12_000)})
    page.wait_for_function(PLOTS_FIT_THEIR_CONTAINERS, timeout=30_000)  # plotly re-lays out at the new size
    # and each visible table is drawn: the grid loads late and paints on a canvas (a grey box in Checkpoint's report)
    page.wait_for_function(TABLES_DRAWN, timeout=30_000)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)
    return path


def exceptions(page) -> list[str]:
    return [e.inner_text() for e in page.query_selector_all("[data-testid='stException']")]


def sidebar_model(page) -> str:
    """The model shown in the sidebar picker (a combobox input)."""
    return page.locator(f"{MODEL_PICKER} input[role='combobox']").input_value()


def map_point(box: dict, coords, k: int, scale: float) -> tuple[float, float]:
    """Where point k of a map drawn centred in ``box`` at ``scale`` pixels per unit sits on the page, y up."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    centre = (lo + hi) / 2
    return (float(box["x"] + box["width"] / 2 + (coords[k, 0] - centre[0]) * scale),
            float(box["y"] + box["height"] / 2 - (coords[k, 1] - centre[1]) * scale))


def hover(page, at: tuple[float, float]) -> None:
    """Move the pointer onto ``at`` from a little above and left of it, as a hand does."""
    page.mouse.move(at[0] - 20, at[1] - 20)
    page.mouse.move(*at, steps=4)


def hovered_text(page, at, tip, tries: int = 6) -> str:
    """Hover ``at`` (a point, or a function giving it anew, read again each try) and return the text of the tooltip
    ``tip`` once it shows. A hover that lands before the map can pick (its canvas still settling on a busy machine)
    is not seen; the hand moves off and back, up to ``tries`` times, 5 s each."""
    for attempt in range(tries):
        hover(page, at() if callable(at) else at)
        try:
            tip.wait_for(timeout=5_000)
            return tip.inner_text()
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
    raise AssertionError("unreachable")


AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"  # axe-core 4.14.1 (vendor/README.md)
# Only the rules that can find something serious or critical are run: axe gives every result of a rule that names an
# impact that impact (rules of 4.14 all name one; one that names none is run), so a minor or moderate rule never yields
# what is counted here. Of the rest, those axe runs by default (enabled, no excluded tag such as experimental) run.
AXE_RUN = """async (allowed) => {
    const serious = axe._audit.rules.filter(rule => (!rule.impact || ['serious', 'critical'].includes(rule.impact))
        && rule.enabled !== false
        && !rule.tags.some(tag => axe._audit.tagExclude.includes(tag))).map(rule => rule.id);
    const r = await axe.run(document, {iframes: false, elementRef: true, resultTypes: ['violations'],
                                       runOnly: {type: 'rule', values: serious}});
    const out = [];
    for (const v of r.violations) for (const n of v.nodes) {
        if (!['serious', 'critical'].includes(n.impact || v.impact)) continue;
        if (allowed.some(([rule, sel]) => rule === v.id && n.element && n.element.closest(sel))) continue;
        out.push({rule: v.id, impact: n.impact || v.impact, target: n.target.join(' '), html: n.html.slice(0, 160),
                  help: v.help});
    }
    return out;
}"""


def axe_violations(page, allowed=()) -> list[dict]:
    """axe-core's serious and critical violations in the page and in each of its frames (our components' iframes):
    each as {rule, impact, target, html, help, frame}, less those of ``allowed``: (rule id, CSS selector) pairs, a
    violation being allowed when its element lies inside that selector's element."""
    source = AXE.read_text()
    found = []
    for frame in page.frames:
        if frame.is_detached():
            continue
        if not frame.evaluate("() => typeof window.axe !== 'undefined'"):
            frame.add_script_tag(content=source)
        where = "page" if frame == page.main_frame else frame.url[:80]
        found += [{**v, "frame": where} for v in frame.evaluate(AXE_RUN, [list(a) for a in allowed])]
    return found


# Streamlit's own English that can be drawn as a line of its own (placeholders, hints, the uploader's texts, the
# sidebar's "View more"): on a translated page none may be visible (the app replaces or avoids each)
STREAMLIT_ENGLISH = ("Choose an option", "Choose options", "No options to select", "No results", "Press Enter to apply",
                     "Press Enter to submit form", "Running...", "Browse files", "Upload", "Drag and drop file here",
                     "Drag and drop files here", "View more", "View less", "Show more", "Show less", "Made with Streamlit")
STREAMLIT_ENGLISH_JS = """(words) => document.body.innerText.split('\\n').map(s => s.trim())
  .filter(s => words.includes(s) || /\\bper file\\b/.test(s))"""


def streamlit_english(page) -> list[str]:
    """The visible lines of the page that are Streamlit's own English (``STREAMLIT_ENGLISH``)."""
    return page.evaluate(STREAMLIT_ENGLISH_JS, list(STREAMLIT_ENGLISH))
