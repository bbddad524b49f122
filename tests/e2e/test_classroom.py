"""A class in Chromium: a teacher (English) starts a class; three learners in Traditional Chinese, Dutch and
Brazilian Portuguese join with the code and answer the sizing exercise; the teacher's live view counts them; "follow
me" moves their Lesson pages to the presenter's step; screenshots of the teacher's view at 1,280 × 720 in four
languages; "end the class" leaves no row of it in the database (read from the SQLite file itself)."""

from __future__ import annotations

import re
import sqlite3

import pytest

import andrea_viz
from andrea_viz import lexicon
from andrea_viz.classroom.answers import PREDICT, encode_ordering
from andrea_viz.classroom.store import SQLiteStore
from andrea_viz.family import FAMILY
from andrea_viz.i18n import LANGUAGES, translate
from andrea_viz.lesson.quiz import make_pair

from .conftest import (SHOTS, VIEWPORT, exceptions, listen_to_websockets, open_page, reruns_asked, screenshot, serve,
                       toggle_on, wait_idle)

KEY = "browser-test-teacher-key"
LEARNERS = {"zh-TW": "小明", "nl": "Jan <i>", "pt-BR": "Ana"}
SCREEN = {"width": 1280, "height": 720}
STEP_IS = "(k) => (document.querySelector(\".st-key-lesson-menu input[role='combobox']\") || {}).value?.startsWith(k)"


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    data = tmp_path_factory.mktemp("class-data")
    with serve({"ANDREA_VIZ_DATA_DIR": str(data), "ANDREA_VIZ_TEACHER_KEY": KEY, "ANDREA_VIZ_CLASS_DB": ""}) as (url, _p):
        yield url, data / "class.sqlite3"


def _rows(db, table: str, code: str) -> int:
    col = "code" if table == "classes" else "class"
    with sqlite3.connect(db) as con:
        return con.execute(f"SELECT COUNT(*) FROM {table} WHERE {col} = ?", (code,)).fetchone()[0]


def _go(page, path: str) -> None:
    """To another page through the sidebar's link: the same session (a new address would start a new one)."""
    page.click(f"[data-testid='stSidebar'] a[href='{path}']")
    page.wait_for_url(f"**/{path}**")
    wait_idle(page, network=path != "Lesson")


def _teacher_tab(page, lang: str) -> None:
    page.get_by_role("tab", name=translate("Teach a class", lang)).click()


def lead_to_step_two(teacher, learner) -> None:
    """The teacher's view turns "follow me" on, opens the Lesson and steps it to 2; the learner's Lesson page (at
    step 1) shows step 2 (the step picker itself waited on)."""
    toggle_on(teacher, "Follow me")
    _go(teacher, "Lesson")
    teacher.locator(".st-key-lesson-next button").click()
    teacher.wait_for_function(STEP_IS, arg="2.", timeout=30_000)
    learner.wait_for_function(STEP_IS, arg="2.", timeout=30_000)


def _open_teacher(browser, url: str, lang: str):
    ctx = browser.new_context(viewport=SCREEN)
    page = ctx.new_page()
    open_page(page, f"{url}/Class?lang={lang}")
    _teacher_tab(page, lang)
    page.get_by_label(translate("Teacher key", lang)).fill(KEY)
    page.get_by_role("button", name=translate("Open the teacher's view", lang)).click()
    page.get_by_role("button", name=translate("Start a class", lang)).wait_for()
    return ctx, page


def test_three_learners_in_three_languages_reach_the_teacher_and_follow(browser, class_server):
    url, db = class_server
    teacher_ctx, teacher = _open_teacher(browser, url, "en")
    learners = []
    sockets = {}  # a learner's language -> (the addresses of the websockets its page opened, the frames it sent)
    try:
        teacher.get_by_role("button", name="Start a class").click()
        teacher.get_by_text("Class code:").wait_for()
        with sqlite3.connect(db) as con:
            code = con.execute("SELECT code FROM classes WHERE ended IS NULL").fetchone()[0]
        assert teacher.get_by_text(code).count() >= 1
        s = FAMILY["ANDREA-12M"]
        for lang, nick in LEARNERS.items():
            ctx = browser.new_context(viewport=VIEWPORT)
            page = ctx.new_page()
            learners.append((ctx, page, lang))
            sockets[lang] = listen_to_websockets(page)
            open_page(page, f"{url}/Class?code={code}&lang={lang}")
            page.get_by_label(translate("Nickname (optional)", lang)).fill(nick)
            page.get_by_role("button", name=translate("Join", lang), exact=True).click()
            page.locator("[data-testid='stAlertContentSuccess']").wait_for()
            assert nick.split()[0] in page.locator("[data-testid='stAlertContentSuccess']").inner_text()
            _go(page, "Sizing")
            box = page.locator(".st-key-sizing-exercise-ANDREA-12M input")
            box.fill(str(s.V + s.d) if lang != "pt-BR" else f"{s.V * s.d:,}".replace(",", "."))
            box.press("Enter")
            wait_idle(page)
            page.locator(".st-key-sizing-exercise-ANDREA-12M-check button").click()
            wait_idle(page)
            assert exceptions(page) == []
        # the teacher's view counts them without a click (its live view waits on the class's answers)
        teacher.get_by_text("Sizing exercise, ANDREA-12M: 3 answers").wait_for(timeout=30_000)
        assert teacher.locator("[data-testid='stMetricValue']").first.inner_text() == "3"
        assert "Jan" in teacher.get_by_text("Nicknames:").inner_text()
        # no learner sees another's nickname
        for _ctx, page, lang in learners:
            text = page.locator("[data-testid='stMain']").inner_text()
            assert sum(n.split()[0] in text for n in LEARNERS.values()) <= 1, lang

        # follow me: learners on the Lesson page, the teacher's Lesson page at step 4
        for _ctx, page, _lang in learners:
            _go(page, "Lesson")
        toggle_on(teacher, "Follow me")
        _go(teacher, "Lesson")
        for k in (2, 3, 4):
            teacher.locator(".st-key-lesson-next button").click()
            teacher.wait_for_function(STEP_IS, arg=f"{k}.", timeout=30_000)
            wait_idle(teacher, network=False)
        with sqlite3.connect(db) as con:  # what the teacher's Lesson page wrote: step 4, follow on
            assert con.execute("SELECT step, follow FROM pacing WHERE class = ?", (code,)).fetchall() == [(4, 1)]
        for _ctx, page, lang in learners:
            page.wait_for_function(STEP_IS, arg="4.", timeout=30_000)
            wait_idle(page, network=False)
            urls, sent = sockets[lang]
            assert any("/api/class/wait?" in u and "topic=pacing" in u for u in urls), urls  # it waits on the route
            sent.clear()  # from here to the end of the class the pace does not change: no learner's page reruns

        # two more learners' Predict similarity orderings, written to the store as the app writes them, so that
        # the grid has something to show; then the teacher's view in four languages on a 1,280 × 720 screen (a tab
        # per language opens the running class by its code), as it is and with "show the class"
        store = SQLiteStore(db)
        for member, lang in (("seed-nl", "nl"), ("seed-pt", "pt-BR")):
            emb = andrea_viz.load(lexicon.model_of(lang))
            pairs = [make_pair(emb, a, b) for a, b in lexicon.lesson_pairs(lang)]
            store.join(code, member, "", lang)
            store.record(code, member, PREDICT, encode_ordering([(p.a, p.b) for p in pairs],
                                                                [1 - p.cosine for p in pairs], [p.cosine for p in pairs]), "")
        SHOTS.mkdir(parents=True, exist_ok=True)
        for lang in LANGUAGES:
            ctx, view = _open_teacher(browser, url, lang)
            try:
                view.get_by_label(translate("Or open a running class by its code", lang)).fill(code)
                view.get_by_role("button", name=translate("Open the class", lang)).click()
                view.locator(".st-key-class-grid .js-plotly-plot .main-svg").first.wait_for(timeout=30_000)
                wait_idle(view)
                assert exceptions(view) == []
                assert view.locator("[data-testid='stMetricValue']").first.inner_text() == "5"
                view.screenshot(path=str(SHOTS / f"class-teacher-{lang}.png"))
                if lang == "en":
                    screenshot(view, "class-teacher-en-whole")  # the whole view, the grid under the tallies
                view.get_by_text(translate("Show the class", lang), exact=True).click()
                view.locator("[data-testid='stSidebar']").wait_for(state="hidden")
                view.locator(".st-key-class-grid .js-plotly-plot .main-svg").first.wait_for(timeout=30_000)
                wait_idle(view)
                main = view.locator("[data-testid='stMain']").inner_text()
                assert code not in main and not re.search(r"\bAna\b|小明|Jan", main), main
                view.screenshot(path=str(SHOTS / f"class-show-{lang}.png"))
                box = view.locator(".st-key-class-grid .js-plotly-plot").first.bounding_box()
                assert box["y"] + box["height"] <= SCREEN["height"], (lang, box)  # the whole grid on the projector's screen
            finally:
                ctx.close()

        for _ctx, page, lang in learners:  # four teacher's views, answers stored: the learners' pages did nothing
            assert reruns_asked(sockets[lang][1]) == [], lang  # (a timer's poll would have rerun them every 2 s)
            assert page.evaluate(STEP_IS, "4.")

        _go(teacher, "Class")
        _teacher_tab(teacher, "en")
        teacher.get_by_role("button", name="End the class").click()
        teacher.get_by_role("button", name="Start a class").wait_for()
        assert [_rows(db, t, code) for t in ("answers", "members", "pacing")] == [0, 0, 0]
    finally:
        for ctx, _page, _lang in learners:
            ctx.close()
        teacher_ctx.close()


def test_a_server_restart_mid_class_keeps_the_answers(browser, tmp_path):
    env = {"ANDREA_VIZ_DATA_DIR": str(tmp_path), "ANDREA_VIZ_TEACHER_KEY": KEY, "ANDREA_VIZ_CLASS_DB": ""}
    s = FAMILY["ANDREA-12M"]
    with serve(env) as (url, _pid):
        teacher_ctx, teacher = _open_teacher(browser, url, "en")
        teacher.get_by_role("button", name="Start a class").click()
        teacher.get_by_text("Class code:").wait_for()
        with sqlite3.connect(tmp_path / "class.sqlite3") as con:
            code = con.execute("SELECT code FROM classes WHERE ended IS NULL").fetchone()[0]
        ctx = browser.new_context()
        page = ctx.new_page()
        open_page(page, f"{url}/Class?code={code}&lang=en")
        page.get_by_role("button", name="Join", exact=True).click()
        page.locator("[data-testid='stAlertContentSuccess']").wait_for()
        _go(page, "Sizing")
        box = page.locator(".st-key-sizing-exercise-ANDREA-12M input")
        box.fill(str(s.V + s.d))
        box.press("Enter")
        wait_idle(page)
        page.locator(".st-key-sizing-exercise-ANDREA-12M-check button").click()
        teacher.get_by_text("Sizing exercise, ANDREA-12M: 1 answers").wait_for(timeout=30_000)
        ctx.close()
        teacher_ctx.close()
    with serve(env) as (url, _pid):  # a new server process on the same data folder
        teacher_ctx, teacher = _open_teacher(browser, url, "en")
        try:
            teacher.get_by_label("Or open a running class by its code").fill(code)
            teacher.get_by_role("button", name="Open the class").click()
            teacher.get_by_text("Sizing exercise, ANDREA-12M: 1 answers").wait_for(timeout=30_000)
            assert teacher.locator("[data-testid='stMetricValue']").first.inner_text() == "1"
        finally:
            teacher_ctx.close()


def test_served_without_the_route_the_pages_follow_on_a_timer(browser, tmp_path):
    """``streamlit run home.py`` (no ``st.App``, so no class route): the teacher's view still counts an answer and a
    joined learner's Lesson page still follows, each rerunning its fragment every 2 s; no page opens the route."""
    env = {"ANDREA_VIZ_DATA_DIR": str(tmp_path), "ANDREA_VIZ_TEACHER_KEY": KEY, "ANDREA_VIZ_CLASS_DB": ""}
    with serve(env, script="home.py") as (url, _pid):
        teacher_ctx, teacher = _open_teacher(browser, url, "en")
        ctx = browser.new_context(viewport=VIEWPORT)
        page = ctx.new_page()
        try:
            teacher_urls, _sent = listen_to_websockets(teacher)
            urls, sent = listen_to_websockets(page)
            teacher.get_by_role("button", name="Start a class").click()
            teacher.get_by_text("Class code:").wait_for()
            with sqlite3.connect(tmp_path / "class.sqlite3") as con:
                code = con.execute("SELECT code FROM classes WHERE ended IS NULL").fetchone()[0]
            open_page(page, f"{url}/Class?code={code}&lang=en")
            page.get_by_role("button", name="Join", exact=True).click()
            teacher.get_by_text("Learners in the class").wait_for()
            teacher.locator("[data-testid='stMetricValue']", has_text="1").wait_for(timeout=30_000)  # the join counted
            _go(page, "Lesson")
            page.wait_for_function(STEP_IS, arg="1.", timeout=30_000)
            lead_to_step_two(teacher, page)
            assert not any("/api/class/wait" in u for u in urls + teacher_urls), urls + teacher_urls
            assert any(f for f in reruns_asked(sent)), "the learner's page never reran a fragment on its timer"
            assert exceptions(teacher) == [] and exceptions(page) == []
        finally:
            ctx.close()
            teacher_ctx.close()
