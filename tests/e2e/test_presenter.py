"""Presenter mode on a 1,280 × 720 projector, in Chromium, one server, the first step opened by address
(?step=1&lang=X) and each next by its Next button, as the teacher goes: every step in four languages with a language
picker on screen, the step menu's title whole, nothing wider than the screen or taller than it, and no visible text
(Streamlit's or a chart's SVG) under 18 px; the angle animation's Play/Pause cover no text."""

import pytest

from andrea_viz.i18n import LANGUAGES, translate
from andrea_viz.lesson import STEPS

from .conftest import SHOTS, TABLES_DRAWN, exceptions, overlapping_labels, titles_past_their_chart, wait_idle

MENU = ".st-key-lesson-menu input[role='combobox']"
PICKER = ".st-key-lesson-language input[role='combobox']"
FITS_JS = """(sel) => {
  const e = document.querySelector(sel);
  return {value: e.value, whole: e.scrollWidth <= e.clientWidth + 1, shown: e.getBoundingClientRect().width > 0};
}"""
MENU_SAYS = "([sel, title]) => document.querySelector(sel)?.value === title"
OVERFLOW_JS = "() => document.documentElement.scrollWidth - window.innerWidth"
TALLER_JS = "() => document.querySelector('[data-testid=stMain]').scrollHeight - window.innerHeight"
# the lowest element on screen (a collapsed expander's table, a chart's words, keeps its laid-out height in Chromium,
# but none of it is on screen), the step's Back/Next buttons whole, and no sidebar
FITS_SCREEN_JS = """() => {
    const main = document.querySelector('[data-testid=stMain]');
    const blocks = [...document.querySelectorAll('[data-testid=stMainBlockContainer] [data-testid=stElementContainer]')]
        .filter(e => e.offsetHeight > 0 && !e.closest('details:not([open])'));  // a collapsed expander's table (a
        // chart's words) keeps its laid-out height in Chromium, but none of it is on screen
    const bottom = Math.max(...blocks.map(e => e.getBoundingClientRect().bottom));
    const nav = [...document.querySelectorAll('.st-key-lesson-back button, .st-key-lesson-next button')]
        .every(b => b.scrollWidth <= b.clientWidth + 1);
    return {scroll: main.scrollHeight - main.clientHeight, bottom, nav,
            sidebar: document.querySelector('[data-testid=stSidebar]')?.offsetWidth || 0};
}"""
PLOTS_DRAWN_JS = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')].every(c => {
  const p = c.querySelector('.js-plotly-plot');
  return p && p._fullLayout && p.querySelector('.main-svg');
})"""
SMALL_TEXT_JS = """(least) => {  // every visible, non-empty text node (HTML and SVG) whose element's font is under `least` px
  const small = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const text = n.textContent.trim(), e = n.parentElement;
    if (!text || !e || e.closest('script, style, noscript, title')) continue;
    if (!e.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    if (![...range.getClientRects()].some(r => r.width > 1 && r.height > 1)) continue;
    const size = parseFloat(getComputedStyle(e).fontSize);
    if (size < least) small.push(`${text.slice(0, 40)} (${e.tagName.toLowerCase()}, ${size}px)`);
  }
  return small;
}"""
BUTTONS_COVER_JS = """() => {  // the updatemenus' buttons against every other SVG text and the slider's grip (its
  // handle, at 0° when the page opens): the pairs that overlap
  const boxes = [...document.querySelectorAll('.updatemenu-button')].map(b => b.getBoundingClientRect());
  const texts = [...document.querySelectorAll('svg text')].filter(t => t.textContent.trim() && t.checkVisibility()
    && !t.closest('.updatemenu-container'));
  const grips = [...document.querySelectorAll('.slider-grip-rect')];
  const hits = [];
  for (const b of boxes) for (const t of [...texts, ...grips]) {
    const r = t.getBoundingClientRect();
    if (r.width > 0 && b.left < r.right && r.left < b.right && b.top < r.bottom && r.top < b.bottom)
      hits.push(t.textContent.trim() || 'the slider grip');
  }
  return {buttons: boxes.length, grips: grips.length, hits};
}"""
LEAST_PX = 18
PROJECTOR = {"width": 1280, "height": 720}  # a projector's screen


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_presenter_mode_fits_a_projector(page, app_url, lang):
    page.set_viewport_size(PROJECTOR)  # (set back after the test by the page fixture)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{app_url}/Lesson?present=1&step=1&lang={lang}")
    for k in range(1, len(STEPS) + 1):
        if k > 1:  # the next step by the step's own Next button, as the teacher goes
            page.locator(".st-key-lesson-next button").click()
        title = f"{k}. {translate(STEPS[k - 1].title, lang)}"
        page.wait_for_function(MENU_SAYS, arg=[MENU, title], timeout=120_000)
        wait_idle(page)
        page.wait_for_function(PLOTS_DRAWN_JS, timeout=60_000)
        assert exceptions(page) == []
        menu = page.evaluate(FITS_JS, MENU)
        assert menu["value"] == title and menu["whole"], menu
        picker = page.evaluate(FITS_JS, PICKER)
        assert picker["shown"] and picker["value"] == LANGUAGES[lang], picker
        # each visible table drawn: the grid paints its canvas late (pt-BR's step 10 was shot as an empty grey box)
        page.wait_for_function(TABLES_DRAWN, timeout=30_000)
        page.screenshot(path=str(SHOTS / f"presenter-{lang}-step{k:02d}.png"))
        assert page.evaluate(OVERFLOW_JS) <= 0, (k, lang)
        assert page.evaluate(TALLER_JS) <= 0, (k, lang)  # the whole step on one screen
        assert page.evaluate(SMALL_TEXT_JS, LEAST_PX) == [], (k, lang)
        assert titles_past_their_chart(page) == [], (k, lang)
        assert overlapping_labels(page) == [], (k, lang)  # 18 px labels thinned where they would collide
        got = page.evaluate(FITS_SCREEN_JS)
        assert got["scroll"] <= 1 and got["bottom"] <= 720 and got["nav"] and got["sidebar"] == 0, (k, lang, got)


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR"])  # Dutch's and Portuguese buttons are the widest
def test_play_and_pause_cover_no_text(page, app_url, lang):
    page.set_viewport_size(PROJECTOR)  # (set back after the test by the page fixture)
    page.goto(f"{app_url}/Dot_products?lang={lang}")
    page.wait_for_selector(".updatemenu-button", timeout=120_000)
    wait_idle(page)
    page.wait_for_function(PLOTS_DRAWN_JS, timeout=60_000)
    page.locator(".updatemenu-container").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"dot-products-animation-controls-{lang}.png"))
    found = page.evaluate(BUTTONS_COVER_JS)
    assert found["buttons"] == 2 and found["grips"] == 1 and found["hits"] == [], found


def test_the_picker_on_screen_changes_the_language(page, app_url):
    page.set_viewport_size(PROJECTOR)  # (set back after the test by the page fixture)
    page.goto(f"{app_url}/Lesson?present=1&step=3")
    page.wait_for_selector(PICKER, timeout=120_000)
    wait_idle(page)
    page.locator(PICKER).click()
    page.get_by_role("option", name=LANGUAGES["nl"], exact=True).click()
    title = f"3. {translate(STEPS[2].title, 'nl')}"
    page.wait_for_function(f"() => document.querySelector(\"{MENU}\").value === {title!r}", timeout=60_000)
    assert page.evaluate(FITS_JS, PICKER)["value"] == LANGUAGES["nl"]
