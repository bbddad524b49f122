"""bench-class's two Chromiums and its clocks: the learners' pages run at Linux's lowest CPU priority (SCHED_IDLE, each
process of their browser), the teacher's as usual; and each time a lag is made of is read by the page it happens on
(Date.now(), the clock time.time() reads), so that a saturated machine's queue of Playwright messages is not counted."""

from __future__ import annotations

import os
import time
from pathlib import Path
from urllib.parse import quote

from andrea_viz.bench.class_teacher import (CLICKED_AT, COUNT_AT_LEAST, SIZE, STEP_AT, class_contexts,
                                            learners_and_teacher)
from andrea_viz.testing_harness import descendants

from ..unit.test_class_events import run_apart

PICKER = "<div class='st-key-lesson-menu'><input role='combobox' value='1. Tokens become rows'></div>"
COUNT = f"<p>Sizing exercise, {SIZE}: 3 answers</p><button>Check</button>"


def _tree(browser_pid: int) -> dict[int, str]:
    """A browser process and every process under it: pid -> its scheduling policy's name."""
    names = {os.SCHED_OTHER: "other", os.SCHED_IDLE: "idle", os.SCHED_BATCH: "batch"}
    return {pid: names.get(os.sched_getscheduler(pid), "?") for pid in [browser_pid, *descendants(browser_pid)]}


def _browsers() -> list[int]:
    """The Chromium browser processes under this one: the Chromium processes whose parent is not one."""
    def comm(pid: int) -> str:
        return Path(f"/proc/{pid}/comm").read_text().strip()

    def parent(pid: int) -> int:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])

    return [pid for pid in descendants(os.getpid()) if "chrom" in comm(pid) and "chrom" not in comm(parent(pid))]


async def _class_of_one():
    from playwright.async_api import async_playwright

    before = set(_browsers())  # a browser test's own Chromium in this worker, if one ran before
    async with async_playwright() as pw:
        learners, own = await learners_and_teacher(pw)
        teacher_ctx, learner_ctx = await class_contexts((learners, own), 1)
        teacher, learner = await teacher_ctx.new_page(), await learner_ctx.new_page()
        await learner.goto("data:text/html," + quote(PICKER))
        await teacher.goto("data:text/html," + quote(COUNT))
        trees = [_tree(pid) for pid in _browsers() if pid not in before]
        out = {"trees": trees, "before_step": await learner.evaluate(STEP_AT, "2.")}
        t = time.time()
        await learner.evaluate("document.querySelector('input').value = '2. The values'")
        out["step_at"] = (t, await learner.evaluate(STEP_AT, "2."), time.time())
        out["count"] = (await teacher.evaluate(COUNT_AT_LEAST, 4), await teacher.evaluate(COUNT_AT_LEAST, 3))
        t = time.time()
        await teacher.get_by_role("button", name="Check").click()
        out["clicked"] = (t, await teacher.evaluate(CLICKED_AT), time.time())
        await learners.close()
        await own.close()
    return out


def test_the_learners_pages_run_at_idle_priority_and_each_page_times_itself():
    out = run_apart(_class_of_one())
    # two browsers: every process of one (its renderers among them) SCHED_IDLE, every process of the other not
    assert len(out["trees"]) == 2, out["trees"]
    policies = sorted(set(tree.values()) for tree in out["trees"])
    assert policies == [{"idle"}, {"other"}], out["trees"]
    assert all(len(tree) >= 3 for tree in out["trees"])  # the browser, its zygote or GPU process, the page's renderer
    # the step: false until the picker shows it, then the page's own time (ms) within the seconds it happened in
    assert out["before_step"] is False
    t0, at, t1 = out["step_at"]
    assert t0 - 0.005 <= at / 1000 <= t1 + 0.005
    # the teacher's count: false below the count on screen, a time once reached
    below, reached = out["count"]
    assert below is False and isinstance(reached, int | float) and reached > 1e12
    # a click: the time the page got it, in seconds
    t0, clicked, t1 = out["clicked"]
    assert t0 - 0.005 <= clicked <= t1 + 0.005
