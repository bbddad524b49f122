"""One class across two servers (the sticky proxy's case): both ``streamlit run`` processes share one PostgreSQL class
store (a real server on loopback, andrea_viz.testing_harness's, which tests/postgres_server.py names). The teacher on
server A starts the class; a learner on server B joins with the code and answers the sizing exercise; the teacher's
view on A counts the answer; "follow me" on A moves the learner's Lesson page on B."""

from __future__ import annotations

import psycopg

from andrea_viz.family import FAMILY
from andrea_viz.testing_harness import running_postgres

from .conftest import VIEWPORT, exceptions, open_page, serve, wait_idle
from .test_classroom import KEY, STEP_IS, _go, _open_teacher, lead_to_step_two


def test_a_class_spans_two_servers_on_one_postgresql(browser, tmp_path):
    s = FAMILY["ANDREA-12M"]
    with running_postgres() as pg:
        db = pg.new_database()
        env = {"ANDREA_VIZ_CLASS_DB": db, "ANDREA_VIZ_TEACHER_KEY": KEY}
        # a data folder each: nothing but PostgreSQL is shared (no SQLite file could carry the class across)
        with (serve({**env, "ANDREA_VIZ_DATA_DIR": str(tmp_path / "a")}) as (a, _pa),
              serve({**env, "ANDREA_VIZ_DATA_DIR": str(tmp_path / "b")}) as (b, _pb)):
            teacher_ctx, teacher = _open_teacher(browser, a, "en")
            learner_ctx = browser.new_context(viewport=VIEWPORT)
            learner = learner_ctx.new_page()
            try:
                teacher.get_by_role("button", name="Start a class").click()
                teacher.get_by_text("Class code:").wait_for()
                with psycopg.connect(db) as con:
                    (code,), = con.execute("SELECT code FROM classes WHERE ended IS NULL").fetchall()

                open_page(learner, f"{b}/Class?code={code}&lang=en")  # server B: the code A made
                learner.get_by_role("button", name="Join", exact=True).click()
                learner.locator("[data-testid='stAlertContentSuccess']").wait_for()
                _go(learner, "Sizing")
                box = learner.locator(".st-key-sizing-exercise-ANDREA-12M input")
                box.fill(str(s.V * s.d))
                box.press("Enter")
                wait_idle(learner)
                learner.locator(".st-key-sizing-exercise-ANDREA-12M-check button").click()
                # the teacher's view on A (its route reads the shared store) counts the answer given on B
                teacher.get_by_text("Sizing exercise, ANDREA-12M: 1 answers").wait_for(timeout=30_000)
                assert teacher.locator("[data-testid='stMetricValue']").first.inner_text() == "1"
                with psycopg.connect(db) as con:
                    assert con.execute("SELECT category FROM answers WHERE class = %s", (code,)).fetchall() == [("right",)]

                _go(learner, "Lesson")
                learner.wait_for_function(STEP_IS, arg="1.", timeout=30_000)
                lead_to_step_two(teacher, learner)  # the learner on B moved by the step A wrote
                assert exceptions(teacher) == [] and exceptions(learner) == []
            finally:
                learner_ctx.close()
                teacher_ctx.close()
