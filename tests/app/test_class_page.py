"""The Class page under AppTest: the teacher key, a learner joining, an answer reaching the teacher's tally,
"end the class" deleting the rows (read back from the SQLite file itself), wrong codes and isolation."""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from andrea_viz.classroom import answers as A
from andrea_viz.classroom import keys
from andrea_viz.family import FAMILY
from andrea_viz.ui import classroom

from .conftest import button, no_exception, open_page

KEY = "a-teacher-key-for-tests"


@pytest.fixture
def class_env(monkeypatch, tmp_path):
    """A store of this test only (SQLite in tmp_path) and a known teacher key."""
    monkeypatch.setenv("ANDREA_VIZ_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("ANDREA_VIZ_CLASS_DB", raising=False)
    monkeypatch.setenv("ANDREA_VIZ_TEACHER_KEY", KEY)
    keys.teacher_key.cache_clear()
    classroom.class_store.clear()
    classroom.join_limiter.clear()
    yield tmp_path / "class.sqlite3"
    keys.teacher_key.cache_clear()
    classroom.class_store.clear()
    classroom.join_limiter.clear()


def _teacher(app):
    at = open_page(app("ANDREA-12M"), "12_Class.py")
    at.text_input(key="class:key").set_value(KEY)
    button(at, "Open the teacher's view").click().run()
    no_exception(at)
    button(at, "Start a class").click().run()
    no_exception(at)
    return at, at.session_state[classroom.TEACHING]


def _learner(app, code: str, nickname: str, lang: str = "en", model: str = "ANDREA-12M"):
    at = open_page(app(model, query={"lang": lang}), "12_Class.py")
    at.text_input(key="class:code").set_value(code.lower())
    at.text_input(key="class:nickname").set_value(nickname)
    _join_button(at).click().run()
    no_exception(at)
    return at


def _join_button(at):
    return next(b for b in at.button if b.proto.form_id == "class:join-form")


def _rows(db, table: str, code: str) -> int:
    col = "code" if table == "classes" else "class"
    with sqlite3.connect(db) as con:
        return con.execute(f"SELECT COUNT(*) FROM {table} WHERE {col} = ?", (code,)).fetchone()[0]


def test_without_the_key_the_teacher_view_is_refused(app, class_env):
    at = open_page(app("ANDREA-12M"), "12_Class.py")
    at.text_input(key="class:key").set_value("a guess")
    button(at, "Open the teacher's view").click().run()
    no_exception(at)
    assert any("not this server's teacher key" in e.value for e in at.error)
    assert not any(b.label == "Start a class" for b in at.button)
    assert classroom.TEACHING not in at.session_state


def test_a_learners_answer_reaches_the_teacher_and_end_deletes_the_rows(app, class_env):
    teacher, code = _teacher(app)
    assert _rows(class_env, "classes", code) == 1
    learner = _learner(app, code, "Jan <b>", lang="nl")
    assert learner.session_state[classroom.JOINED][0] == code
    assert any("Jan" in s.value for s in learner.success)
    s = FAMILY["ANDREA-12M"]
    learner.switch_page("pages/2_Sizing.py").run()
    no_exception(learner)
    learner.text_input(key="sizing:exercise:ANDREA-12M").set_value(str(s.V + s.d))
    learner.button(key="sizing:exercise:ANDREA-12M:check").click().run()
    no_exception(learner)
    assert _rows(class_env, "answers", code) == 1 and _rows(class_env, "members", code) == 1

    teacher.run()
    no_exception(teacher)
    assert any(m.label == "Learners in the class" and m.value == "1" for m in teacher.metric)
    tallies = [df.value for df in teacher.dataframe]
    v_plus_d = [t for t in tallies if "answer" in t.columns and "V + d" in list(t["answer"])]
    assert v_plus_d and int(v_plus_d[0].set_index("answer").loc["V + d", "learners"]) == 1
    wrong = [m.value for m in teacher.markdown if "(learners:" in m.value]
    assert wrong == [f"**{s.V + s.d:,}**: added V and d: they see two sizes but not a table of V rows of d numbers "
                     "each (learners: 1)"]  # in the teacher's language (English), the number written its way

    button(teacher, "End the class").click().run()
    no_exception(teacher)
    assert [_rows(class_env, t, code) for t in ("answers", "members", "pacing")] == [0, 0, 0]
    assert classroom.TEACHING not in teacher.session_state


def test_a_wrong_code_is_one_sentence_and_the_eleventh_try_is_held_back(app, class_env):
    at = open_page(app("ANDREA-12M"), "12_Class.py")
    for i in range(10):
        at.text_input(key="class:code").set_value(f"ZZZZZ{i}")
        _join_button(at).click().run()
        assert any("No open class has the code" in e.value for e in at.error)
    at.text_input(key="class:code").set_value("ZZZZZZ")
    _join_button(at).click().run()
    no_exception(at)
    assert any("Too many wrong codes" in e.value for e in at.error)
    assert classroom.JOINED not in at.session_state


def test_a_learner_sees_no_other_learners_nickname_or_answer(app, class_env):
    _teacher_at, code = _teacher(app)
    one = _learner(app, code, "Ana")
    one.switch_page("pages/2_Sizing.py").run()
    one.text_input(key="sizing:exercise:ANDREA-12M").set_value("12345")
    one.button(key="sizing:exercise:ANDREA-12M:check").click().run()
    two = _learner(app, code, "Bruno")
    two.run()
    shown = " ".join(str(e.value) for kind in ("markdown", "success", "caption", "info") for e in two.get(kind))
    assert "Bruno" in shown and "Ana" not in shown and "12345" not in shown and "12,345" not in shown
    assert not two.get("dataframe") and not two.get("metric")


def test_a_tab_that_did_not_join_sends_nothing(app, class_env):
    _teacher_at, code = _teacher(app)
    at = open_page(app("ANDREA-12M"), "2_Sizing.py")
    at.text_input(key="sizing:exercise:ANDREA-12M").set_value("12345")
    at.button(key="sizing:exercise:ANDREA-12M:check").click().run()
    no_exception(at)
    assert _rows(class_env, "answers", code) == 0 and A.tally(classroom.class_store().answers(code), "x") == {}


def test_follow_me_moves_a_joined_learners_lesson_to_the_presenters_step(app, class_env):
    teacher, code = _teacher(app)
    teacher.toggle(key="class:follow").set_value(True).run()
    no_exception(teacher)
    learner = _learner(app, code, "Ana")
    other = open_page(app("ANDREA-12M"), "0_Lesson.py")  # did not join: goes its own way
    learner.switch_page("pages/0_Lesson.py").run()
    teacher.switch_page("pages/0_Lesson.py").run()
    for _i in range(3):
        teacher.button(key="lesson:next").click().run()
    no_exception(teacher)
    assert teacher.session_state["lesson:step"] == 4
    assert classroom.class_store().pacing(code).step == 4
    learner.run()
    no_exception(learner)
    assert learner.session_state["lesson:step"] == 4
    other.run()
    assert other.session_state["lesson:step"] == 1
    teacher.switch_page("pages/12_Class.py").run()
    teacher.toggle(key="class:follow").set_value(False).run()  # and back out: the learner walks alone again
    learner.button(key="lesson:back").click().run()
    learner.run()
    assert learner.session_state["lesson:step"] == 3


def test_a_learners_ordering_fills_the_teachers_misconception_grid(app, class_env):
    teacher, code = _teacher(app)
    learner = _learner(app, code, "Ana", model="andrea-micro-nl")  # the Dutch model: its pairs are kat / hond …
    learner.switch_page("pages/3_Dot_products.py").run()
    no_exception(learner)
    quiz = [s for s in learner.select_slider if s.key and s.key.startswith("quiz:")]
    for i, sl in enumerate(quiz):
        sl.set_value(round(0.2 * i, 2))  # pair 0 lowest ... pair 4 highest
    learner.run()
    button(learner, "Reveal the cosines").click().run()
    no_exception(learner)
    stored = classroom.class_store().answers(code)
    assert [a.question for a in stored] == [A.PREDICT]
    ordering = A.decode_ordering(stored[0].answer)
    assert ordering[0][:2] == ("cat", "dog")  # kat / hond, stored by its English name
    real = [c for *_w, _g, c in ordering]
    expected = sum(1 for i in range(5) for j in range(5) if i > j and real[i] < real[j])  # guesses rise with i

    teacher.run()
    no_exception(teacher)
    grid = [f for f in teacher.get("plotly_chart") if "Misconception grid" in f.proto.spec]
    assert grid, "the teacher sees the grid"
    assert any("1 orderings" in m.value for m in teacher.markdown)
    worst = [m.value for m in teacher.markdown if "learners put" in m.value]
    assert len(worst) == min(3, expected) and all(w.startswith("1 of 1 learners") for w in worst)
    import json

    shown = json.loads(grid[0].proto.spec)["data"][0]["x"]
    assert "cat / dog" in shown and "kat / hond" not in shown  # the teacher's language, whatever the learner's


def test_a_learner_of_an_ended_class_is_told_and_sends_nothing_more(app, class_env):
    teacher, code = _teacher(app)
    learner = _learner(app, code, "Ana")
    button(teacher, "End the class").click().run()
    learner.run()
    no_exception(learner)
    assert any("has ended" in i.value for i in learner.info) and classroom.JOINED not in learner.session_state
    learner.switch_page("pages/2_Sizing.py").run()
    learner.text_input(key="sizing:exercise:ANDREA-12M").set_value("12345")
    learner.button(key="sizing:exercise:ANDREA-12M:check").click().run()
    assert _rows(class_env, "answers", code) == 0


def test_the_class_on_postgresql_a_learners_answer_reaches_the_teacher(app, monkeypatch, tmp_path):
    """The same page on ANDREA_VIZ_CLASS_DB=postgresql://… (a real server on loopback): join, answer, tally, end."""
    from tests.postgres_server import running_server

    with running_server() as server:
        url = server.new_database()
        monkeypatch.setenv("ANDREA_VIZ_CLASS_DB", url)
        monkeypatch.setenv("ANDREA_VIZ_TEACHER_KEY", KEY)
        keys.teacher_key.cache_clear()
        classroom.class_store.clear()
        try:
            teacher, code = _teacher(app)
            learner = _learner(app, code, "Ana")
            learner.switch_page("pages/2_Sizing.py").run()
            s = FAMILY["ANDREA-12M"]
            learner.text_input(key="sizing:exercise:ANDREA-12M").set_value(f"{s.V * s.d:,}")
            learner.button(key="sizing:exercise:ANDREA-12M:check").click().run()
            no_exception(learner)
            teacher.run()
            assert any(m.label == "Learners in the class" and m.value == "1" for m in teacher.metric)
            assert any("ANDREA-12M**: 1 answers" in m.value for m in teacher.markdown)
            with psycopg.connect(url) as con:
                assert con.execute("SELECT answer, category FROM answers WHERE class = %s",
                                   (code,)).fetchall() == [(str(s.V * s.d), "right")]
            button(teacher, "End the class").click().run()
            with psycopg.connect(url) as con:
                assert [con.execute(f"SELECT COUNT(*) FROM {t} WHERE class = %s", (code,)).fetchone()[0]
                        for t in ("answers", "members", "pacing")] == [0, 0, 0]
        finally:
            keys.teacher_key.cache_clear()
            classroom.class_store.clear()
