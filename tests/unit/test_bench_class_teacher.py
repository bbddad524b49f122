"""bench-class --teacher's own arithmetic, and the words it waits on: each one the app's own English (a changed msgid
would leave the benchmark waiting on text no page shows)."""

import re
from pathlib import Path

import pytest

from andrea_viz.bench.class_teacher import COUNT_AT_LEAST, KEPT, MB, SIZE, TITLES, _mb, answer_lags
from andrea_viz.i18n import render

ROOT = Path(__file__).resolve().parents[2]


def test_each_answer_is_paired_with_the_moment_the_teachers_count_reached_its_rank():
    clicks = [10.0, 12.5, 11.0]  # the learners' Check clicks, in the order their coroutines recorded them
    seen = [12.0, 13.0, 15.5]  # the teacher's count first showed 1, 2, 3
    assert answer_lags(clicks, seen) == [2.0, 2.0, 3.0]
    assert answer_lags(clicks, seen[:2]) == [2.0, 2.0]  # a count never reached has no lag (Run.unseen says so)


def test_memory_is_one_figure_for_one_server_and_named_per_server_for_two():
    assert _mb([36 * MB]) == "36 MB"
    assert _mb([11 * MB, -6 * MB], "+") == "A +11 MB, B -6 MB"


def test_the_count_waited_on_is_the_teachers_view_as_drawn():
    pattern = re.search(r"match\(/(.*)/\)", COUNT_AT_LEAST).group(1)
    drawn = render("**Sizing exercise, {model}**: {n} answers", {"model": SIZE, "n": 17}, "en").replace("**", "")
    assert re.fullmatch(pattern, drawn).group(1) == "17"
    ui = (ROOT / "andrea_viz" / "ui" / "classroom.py").read_text()
    assert '"**Sizing exercise, {model}**: {n} answers"' in ui
    for label in ("Teach a class", "Teacher key", "Open the teacher's view", "Start a class", "Follow me", "Join",
                  "Class code: **{code}**"):
        assert f'_("{label}' in ui, label
    assert f'_("{KEPT}:' in ui  # the learner's sentence when an answer waits on its server


@pytest.mark.parametrize("page, file", [("Class", "12_Class.py"), ("Sizing", "2_Sizing.py"),
                                         ("Lesson", "0_Lesson.py")])
def test_each_page_waited_on_has_that_title(page, file):
    assert f'st.title(_("{TITLES[page]}"))' in (ROOT / "pages" / file).read_text()
