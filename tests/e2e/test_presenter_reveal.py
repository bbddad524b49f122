"""Presenter mode at 1,280 × 720 after a learner acts: step 7's guesses placed by keyboard and the cosines revealed
(the reveal chart and its score), and step 4's exercise checked (its feedback), in four languages: no visible text
under 18 px and nothing wider than the screen, as ``test_presenter`` asks of every step as it opens."""

import pytest

from andrea_viz import lexicon
from andrea_viz.i18n import LANGUAGES, translate

from .conftest import SHOTS, exceptions, overlapping_labels, press_right, wait_idle
from .test_presenter import LEAST_PX, OVERFLOW_JS, PLOTS_DRAWN_JS, PROJECTOR, SMALL_TEXT_JS

SLIDERS = "[data-testid='stSlider'] input[type='range']"
REVEAL_CHART = ".st-key-lesson-reveal-chart .main-svg"


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector(".st-key-lesson-menu", timeout=120_000)
    wait_idle(page)


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_revealed_cosines_and_the_checked_exercise_fit_a_projector(page, app_url, lang):
    page.set_viewport_size(PROJECTOR)  # (set back after the test by the page fixture)
    SHOTS.mkdir(parents=True, exist_ok=True)
    _open(page, f"{app_url}/Lesson?present=1&step=7&lang={lang}")
    page.wait_for_selector(".st-key-lesson-reveal button", timeout=60_000)
    sliders = page.locator(SLIDERS)
    sliders.nth(len(lexicon.lesson_pairs(lang)) - 1).wait_for(timeout=60_000)  # the last pair's slider drawn too
    assert sliders.count() == len(lexicon.lesson_pairs(lang))
    for i in range(sliders.count()):  # each pair placed: one step right, by keyboard
        press_right(page, sliders.nth(i))
        wait_idle(page)
    page.locator(".st-key-lesson-reveal button:not([disabled])").click(timeout=60_000)
    page.wait_for_selector(REVEAL_CHART, timeout=60_000)
    wait_idle(page)
    page.wait_for_function(PLOTS_DRAWN_JS, timeout=60_000)
    assert exceptions(page) == []
    page.screenshot(path=str(SHOTS / f"presenter-{lang}-step07-revealed.png"))
    assert page.evaluate(SMALL_TEXT_JS, LEAST_PX) == [], lang
    assert overlapping_labels(page) == [], lang
    assert page.evaluate(OVERFLOW_JS) <= 0, lang
    # every pair named beside its bars (plotly drops category labels it has no height for)
    labels = page.locator(f"{REVEAL_CHART} g.ytick text").all_text_contents()
    assert len(labels) == len(lexicon.lesson_pairs(lang)), (lang, labels)

    _open(page, f"{app_url}/Lesson?present=1&step=4&lang={lang}")
    box = page.get_by_role("textbox", name=translate("Parameters in its token table", lang)).first
    box.fill("25560576")
    box.press("Enter")
    wait_idle(page)
    page.locator("[data-testid='stButton'] button", has_text=translate("Check", lang)).first.click()
    page.wait_for_selector("[data-testid='stAlertContentSuccess'], [data-testid='stAlertContentWarning']",
                           timeout=60_000)
    wait_idle(page)
    page.screenshot(path=str(SHOTS / f"presenter-{lang}-step04-checked.png"))
    assert page.evaluate(SMALL_TEXT_JS, LEAST_PX) == [], lang
    assert page.evaluate(OVERFLOW_JS) <= 0, lang
