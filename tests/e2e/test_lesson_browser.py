"""The Lesson in Debian Chromium: the quiz never shows its answers before a guess, ← and → move one step,
and in presenter mode every step's claim and picture fit one 1,280 × 720 screen (screenshots of every step
in every language are written under artifacts/lesson/)."""

import re

from andrea_viz.lesson import STEPS

from . import conftest
from .conftest import ROOT, exceptions, press_right

SHOTS = ROOT / "artifacts" / "lesson"
PREDICT = [s.key for s in STEPS].index("predict") + 1
REVEAL_CHART = ".st-key-lesson-reveal-chart"


def wait_idle(page, timeout: float = 90_000) -> None:
    """The script has run to the end: the shared helper without its wait for a quiet network, which the keys'
    frame never lets come."""
    conftest.wait_idle(page, timeout, network=False)


def open_lesson(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("[data-testid='stMain'] h2", timeout=90_000)  # the step's one heading
    wait_idle(page)


def heading(page) -> str:
    return page.locator("[data-testid='stMain'] h2").first.inner_text()


def wait_heading(page, starts: str) -> None:
    page.wait_for_function("s => document.querySelector('[data-testid=stMain] h2')?.innerText.startsWith(s)", arg=starts,
                           timeout=60_000)
    wait_idle(page)


def place_every_pair(page) -> None:
    """Move each quiz slider one step by the keyboard; wait each time for the page to count it placed."""
    page.locator(".st-key-lesson-quiz-4").get_by_role("slider").wait_for(timeout=30_000)
    sliders = page.locator("[class*='st-key-lesson-quiz-']").get_by_role("slider").all()
    for n, s in enumerate(sliders, 1):
        press_right(page, s)
        left = len(sliders) - n
        if left:
            page.locator("[data-testid='stCaptionContainer']", has_text=f"{left} of {len(sliders)}").wait_for(timeout=30_000)
    page.wait_for_selector(".st-key-lesson-reveal button:enabled", timeout=30_000)
    wait_idle(page)


def test_next_and_back_never_show_the_reveal_before_a_guess(page, app_url):
    open_lesson(page, f"{app_url}/Lesson?step={PREDICT}")
    reveal = page.locator(".st-key-lesson-reveal button")
    reveal.wait_for(timeout=30_000)
    assert reveal.is_disabled()  # nothing placed yet
    place_every_pair(page)
    reveal.click()
    page.locator(REVEAL_CHART).wait_for(timeout=30_000)
    page.locator(".st-key-lesson-next button").click()
    wait_heading(page, STEPS[PREDICT].title)  # the step after
    page.locator(".st-key-lesson-back button").click()
    wait_heading(page, STEPS[PREDICT - 1].title)
    assert page.locator(REVEAL_CHART).count() == 0 and reveal.is_disabled()  # the guesses and the reveal reset together
    page.locator(".st-key-lesson-back button").click()  # and by the keys: away and back again
    wait_heading(page, STEPS[PREDICT - 2].title)  # the step before
    page.wait_for_function("() => document.__andreaLessonKeys === true", timeout=30_000)
    wait_idle(page)  # the key clicks the step's Next button: press it once that button is drawn and the run is over
    page.locator(".st-key-lesson-next button:enabled").wait_for(timeout=30_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # nothing focused
    page.keyboard.press("ArrowRight")
    wait_heading(page, STEPS[PREDICT - 1].title)
    assert page.locator(REVEAL_CHART).count() == 0 and reveal.is_disabled()
    assert exceptions(page) == []


def test_arrow_keys_move_one_step_and_the_address_follows(page, app_url):
    open_lesson(page, f"{app_url}/Lesson?present=1&step=1")
    assert heading(page).startswith("1. ")
    page.wait_for_function("() => document.__andreaLessonKeys === true", timeout=30_000)  # the keys' listener is on
    wait_idle(page)  # the key clicks the step's Next button: press it once that button is drawn and the run is over
    page.locator(".st-key-lesson-next button:enabled").wait_for(timeout=30_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")  # nothing focused
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"[?&]step=2(&|$)"), timeout=30_000)
    wait_heading(page, "2. ")
    assert "present=1" in page.url
    wait_idle(page)
    page.locator(".st-key-lesson-back button:enabled").wait_for(timeout=30_000)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"[?&]step=1(&|$)"), timeout=30_000)
    wait_heading(page, "1. ")
    assert exceptions(page) == []


def test_an_unknown_step_opens_step_one(page, app_url):
    open_lesson(page, f"{app_url}/Lesson?present=1&step=99")
    assert heading(page).startswith("1. ")


def test_reset_asks_before_it_clears(page, app_url):
    open_lesson(page, f"{app_url}/Lesson?present=1&step=3")
    page.locator(".st-key-lesson-reset button").click()
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=30_000)
    assert heading(page).startswith("3. ")  # asked, nothing cleared yet
    dialog.locator(".st-key-lesson-reset-no button").click()
    dialog.wait_for(state="detached", timeout=30_000)
    wait_heading(page, "3. ")
    page.locator(".st-key-lesson-reset button").click()
    page.get_by_role("dialog").locator(".st-key-lesson-reset-yes button").click()
    page.wait_for_url(re.compile(r"[?&]step=1(&|$)"), timeout=30_000)
    wait_heading(page, "1. ")
    assert exceptions(page) == []


def test_the_handout_is_one_html_file_in_the_chosen_language(page, app_url, tmp_path):
    import html

    from andrea_viz.i18n import translate

    open_lesson(page, f"{app_url}/Lesson?present=1&step=1&lang=nl")
    with page.expect_download(timeout=60_000) as d:
        page.locator(".st-key-lesson-handout").get_by_role("button", name=translate("Handout", "nl"), exact=True).click()
    path = tmp_path / "handout.html"
    d.value.save_as(path)
    text = path.read_text(encoding="utf-8")
    assert '<html lang="nl">' in text and translate("The lesson: embeddings", "nl") in text
    assert all(html.escape(translate(s.title, "nl")) in text for s in STEPS)
    assert "https://" not in text.split("<body>", 1)[1].split("<script", 1)[0]  # nothing to fetch for the page itself
    assert text.count('class="plotly-graph-div"') == 4  # four figures, drawn by the plotly.js inlined in the file


EXERCISE = [s.key for s in STEPS].index("exercise") + 1


def test_a_dutch_answer_written_the_dutch_way_is_accepted(page, app_url):
    from andrea_viz.i18n import translate

    open_lesson(page, f"{app_url}/Lesson?step={EXERCISE}&lang=nl")
    box = page.locator(".st-key-lesson-exercise-ANDREA-480M input")
    box.fill("25,560.576")  # mixed separators: refused, the Dutch forms named
    box.press("Enter")
    wait_idle(page)
    page.locator(".st-key-lesson-exercise-ANDREA-480M-check button").click()
    page.locator("[data-testid='stAlertContentWarning']", has_text="typ 25.560.576 of 25560576").wait_for(timeout=30_000)
    box.fill("25.560.576")
    box.press("Enter")
    wait_idle(page)
    page.locator(".st-key-lesson-exercise-ANDREA-480M-check button").click()
    right = page.locator("[data-testid='stAlertContentSuccess']")
    right.wait_for(timeout=30_000)
    said = right.inner_text()
    assert said.endswith(translate("Read as {n:,}. {verdict}", "nl").split("{")[0] + "25.560.576. Goed: 16.641 × 1.536 = "
                         "25.560.576."), said
    wrong = translate("Not right: V = {V:,} and d_model = {d:,}; multiply them.", "nl").split(":")[0]  # "Niet juist"
    assert "16.641 × 1.536 = 25.560.576" in said and wrong not in said and wrong != "Not right"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "exercise-nl-right.png"))
    assert exceptions(page) == []
