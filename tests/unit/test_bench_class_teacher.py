"""bench-class --teacher's own arithmetic, and the words it waits on: each one the app's own English (a changed msgid
would leave the benchmark waiting on text no page shows)."""

import os
import re
import time
from pathlib import Path

import pytest

from andrea_viz.bench.class_teacher import COUNT_AT_LEAST, KEPT, MB, SIZE, TITLES, Run, _cpu, _mb, answer_lags
from andrea_viz.i18n import render
from andrea_viz.testing_harness import cpu_seconds, machine_busy

ROOT = Path(__file__).resolve().parents[2]


def test_each_answer_is_paired_with_the_moment_the_teachers_count_reached_its_rank():
    clicks = [10.0, 12.5, 11.0]  # the learners' Check clicks, in the order their coroutines recorded them
    seen = [12.0, 13.0, 15.5]  # the teacher's count first showed 1, 2, 3
    assert answer_lags(clicks, seen) == [2.0, 2.0, 3.0]
    assert answer_lags(clicks, seen[:2]) == [2.0, 2.0]  # a count never reached has no lag (Run.unseen says so)


def test_memory_is_one_figure_for_one_server_and_named_per_server_for_two():
    assert _mb([36 * MB]) == "36 MB"
    assert _mb([11 * MB, -6 * MB], "+") == "A +11 MB, B -6 MB"


def test_the_cpu_row_says_how_busy_the_cores_were_and_the_servers_part(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    r = Run(True, wall=111.0, busy=210.4, server_cpu=[8.0, 4.8])
    assert _cpu(r) == "210 of 222 cpu-s (95%) in 111 s / 12.8 cpu-s (6%)"


def test_cpu_seconds_and_the_machines_busy_time_against_the_kernels_own_accounts():
    """This process's CPU time as os.times() reads it (user + system, every thread), and the machine's busy time
    rising by at least what this process burned (other processes only add to it) and at most the cores' wall time."""
    busy0, mine0, t0, wall0 = machine_busy(), cpu_seconds(os.getpid()), os.times(), time.monotonic()
    end = time.process_time() + 0.5
    while time.process_time() < end:
        pass
    t1 = os.times()
    burned = (t1.user + t1.system) - (t0.user + t0.system)
    assert cpu_seconds(os.getpid()) - mine0 == pytest.approx(burned, abs=0.05)
    busy, wall = machine_busy() - busy0, time.monotonic() - wall0
    assert burned - 0.05 <= busy <= wall * os.cpu_count() + 0.05


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
