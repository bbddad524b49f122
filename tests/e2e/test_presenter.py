"""Presenter mode on a 1,280 × 720 projector, in Chromium, one server, steps opened by address (?step=N&lang=X):
a language picker on screen, the step menu's title whole, nothing wider than the screen."""

import pytest

from andrea_viz.i18n import LANGUAGES, translate
from andrea_viz.lesson import STEPS

from .conftest import exceptions, wait_idle

MENU = ".st-key-lesson-menu input[role='combobox']"
PICKER = ".st-key-lesson-language input[role='combobox']"
FITS_JS = """(sel) => {
  const e = document.querySelector(sel);
  return {value: e.value, whole: e.scrollWidth <= e.clientWidth + 1, shown: e.getBoundingClientRect().width > 0};
}"""
OVERFLOW_JS = "() => document.documentElement.scrollWidth - window.innerWidth"


def longest_title_step(lang: str) -> int:
    titles = [translate(s.title, lang) for s in STEPS]
    return max(range(len(titles)), key=lambda i: len(titles[i])) + 1


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_presenter_mode_fits_a_projector(browser, app_url, lang):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        for k in sorted({1, longest_title_step(lang)}):
            page.goto(f"{app_url}/Lesson?present=1&step={k}&lang={lang}")
            page.wait_for_selector(MENU, timeout=120_000)
            wait_idle(page)
            assert exceptions(page) == []
            menu = page.evaluate(FITS_JS, MENU)
            assert menu["value"] == f"{k}. {translate(STEPS[k - 1].title, lang)}" and menu["whole"], menu
            picker = page.evaluate(FITS_JS, PICKER)
            assert picker["shown"] and picker["value"] == LANGUAGES[lang], picker
            assert page.evaluate(OVERFLOW_JS) <= 0, (k, lang)
    finally:
        page.close()


def test_the_picker_on_screen_changes_the_language(browser, app_url):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{app_url}/Lesson?present=1&step=3")
        page.wait_for_selector(PICKER, timeout=120_000)
        wait_idle(page)
        page.locator(PICKER).click()
        page.get_by_role("option", name=LANGUAGES["nl"], exact=True).click()
        title = f"3. {translate(STEPS[2].title, 'nl')}"
        page.wait_for_function(f"() => document.querySelector(\"{MENU}\").value === {title!r}", timeout=60_000)
        assert page.evaluate(FITS_JS, PICKER)["value"] == LANGUAGES["nl"]
    finally:
        page.close()
