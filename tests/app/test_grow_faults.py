"""A Grow run that the system kills, or that the learner stops, is said on the page with the step it reached and the
last snapshot kept (never an exit code), and its process is reaped."""

from __future__ import annotations

import signal
import time

import psutil
from streamlit.testing.v1 import AppTest

from .conftest import ROOT, button, no_exception


def grow_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=180)
    at.session_state["model"] = "andrea-micro"
    at.run()
    at.switch_page("pages/9_Grow.py").run()
    no_exception(at)
    return at


def until(cond, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return False


def started(at: AppTest, steps: int):
    at.number_input[0].set_value(steps)
    button(at, "Train").click().run()
    no_exception(at)
    job = at.session_state["grow:job"]
    assert until(lambda: job.last_snapshot() is not None and job.snapshot().step > job.last_snapshot(), 300)
    return job


def training_processes() -> list[psutil.Process]:
    out = []
    for c in psutil.Process().children():
        try:
            if c.status() != psutil.STATUS_ZOMBIE and "spawn_main" in " ".join(c.cmdline()):
                out.append(c)
        except psutil.NoSuchProcess:
            pass
    return out


def test_a_training_killed_by_the_system_says_the_step_reached_and_the_last_snapshot_kept():
    at = grow_page()
    job = started(at, 20_000)
    [child] = training_processes()
    child.send_signal(signal.SIGKILL)  # as the kernel's out-of-memory killer does
    assert job.wait(60)
    at.run()
    no_exception(at)
    reached, kept = job.snapshot().step, job.last_snapshot()
    assert kept < reached  # the bar had gone past the last snapshot
    said = [e.value for e in at.error]
    assert said == [f"The training was stopped by the system (out of memory or killed) at step {reached:,}; the last "
                    f"snapshot kept is step {kept:,}."], said
    assert not any("exit code" in e for e in said)
    assert not [c for c in psutil.Process().children() if c.status() == psutil.STATUS_ZOMBIE]


def test_a_stopped_training_names_the_step_reached_and_the_last_snapshot_kept():
    at = grow_page()
    job = started(at, 20_000)
    job.cancel()
    assert job.wait(120)
    at.run()
    no_exception(at)
    info = job.result
    kept = job.last_snapshot()
    assert info.cancelled and kept < info.steps_done
    warned = [w.value for w in at.warning]
    assert (f"Training stopped at step {info.steps_done:,} of 20,000; the last snapshot kept is step {kept:,} "
            f"({len(info.snapshots):,} snapshots kept in all).") in warned, warned
