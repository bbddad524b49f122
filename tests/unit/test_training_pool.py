"""The server's training pool: a few jobs at a time, the others queued in order, Cancel frees a slot or leaves the
queue, and a running job's torch threads and CPU priority are limited."""

from __future__ import annotations

import os
import threading
import time

import pytest

from andrea_viz.grow import pool
from andrea_viz.grow.job import GrowJob
from andrea_viz.grow.pool import TrainingPool


class Held(GrowJob):
    """A job that 'trains' (in its watching thread, no process) until released or stopped."""

    def __init__(self, name: str):
        super().__init__(f"/nonexistent/{name}")
        self.name = name
        self.release = threading.Event()

    def _work(self):
        while not (self.release.is_set() or self._stop.is_set()):
            time.sleep(0.01)


def until(cond, timeout=10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.01)
    return False


@pytest.fixture
def jobs():
    made: list[Held] = []

    def make(n):
        new = [Held(f"j{len(made) + i}") for i in range(n)]
        made.extend(new)
        return new

    yield make
    for j in made:
        j.cancel()
        j.release.set()
    for j in made:
        j.wait(10)


def test_two_run_and_the_others_wait_in_order_and_start_in_turn(jobs):
    p = TrainingPool(size=2, threads=1)
    a, b, c, d = jobs(4)
    for j in (a, b, c, d):
        p.submit(j)
    assert until(lambda: a.running and b.running)
    assert c.waiting and d.waiting and not c.running
    assert (p.ahead(a), p.ahead(c), p.ahead(d)) == (None, 1, 2)  # trainings to end before each starts
    assert (p.running, p.waiting) == (2, 2)
    a.release.set()
    assert until(lambda: c.running)  # the first in the queue takes the freed slot
    assert d.waiting and p.ahead(d) == 1 and b.running
    assert a.wait(5) and a.result is None and not a.left


def test_cancel_frees_a_slot_and_a_queued_cancel_leaves_the_queue(jobs):
    p = TrainingPool(size=1, threads=1)
    a, b, c = jobs(3)
    for j in (a, b, c):
        p.submit(j)
    assert until(lambda: a.running)
    b.cancel()  # b leaves the queue: it never runs, and c moves up
    assert b.wait(1) and b.left and b.started_at is None and not b.active
    assert p.ahead(c) == 1
    a.cancel()  # a stops at its next step and its slot goes to c
    assert until(lambda: c.running) and a.wait(5) and not a.left
    assert b.started_at is None and p.ahead(b) is None


def test_a_training_runs_in_its_own_process_with_the_pools_threads_and_a_lower_priority(tmp_path):
    """The real job: the child process reports the limits it set on itself, the server's own torch threads and
    priority stay as they were, and the run's progress and result come back through the pipe."""
    import torch

    before = os.getpriority(os.PRIO_PROCESS, 0)
    threads_before = torch.get_num_threads()
    job = TrainingPool(size=2, threads=1, nice=5).submit(GrowJob(tmp_path / "run", steps=3, seed=1, snapshot_at=[0, 3]))
    assert job.wait(120) and not (job.error or job.crash)
    assert job.limits == {"threads": 1, "nice": min(19, before + 5)}
    assert os.getpriority(os.PRIO_PROCESS, 0) == before and torch.get_num_threads() == threads_before
    assert job.result.steps_done == 3 and [s for s, _ in job.result.snapshots] == [0, 3]
    assert job.snapshot().step == 3 and len(job.snapshot().losses) == 3
    assert job.result.snapshots[-1][1].is_file()


def test_the_watching_thread_keeps_the_servers_priority_while_its_child_runs_lower(tmp_path):
    """Only the child runs at the lower priority: the server's thread that relays its messages takes the interpreter
    lock for each, and at niceness +19 it could be set aside by the kernel while holding it, stalling every page."""
    before = os.getpriority(os.PRIO_PROCESS, 0)
    job = TrainingPool(size=1, threads=1, nice=19).submit(GrowJob(tmp_path / "run", steps=5000, seed=1, snapshot_at=[0]))
    try:
        assert until(lambda: job.limits is not None and job.snapshot().step > 0, timeout=120)
        assert job.limits["nice"] == 19
        assert os.getpriority(os.PRIO_PROCESS, job.thread.native_id) == before
    finally:
        job.cancel()
        assert job.wait(60)


def test_the_child_sends_its_steps_in_batches_and_every_step_arrives(monkeypatch):
    from andrea_viz.grow import job as job_module

    sent = []

    class Pipe:
        def send(self, message):
            sent.append(message)

    clock = iter(i * 0.03 for i in range(1000))  # a step every 30 ms
    monkeypatch.setattr(job_module.time, "monotonic", lambda: next(clock))
    ticks = job_module._Ticks(Pipe())
    for step in range(1, 101):
        ticks(step, 100, 1.0 / step)
    ticks.flush()
    assert all(kind == "ticks" for kind, _ in sent) and 20 <= len(sent) <= 40  # about one per 0.1 s, not 100
    assert [t for _, batch in sent for t in batch] == [(s, 100, 1.0 / s) for s in range(1, 101)]
    assert sent[-1][1][-1][0] == 100  # the last step goes at once


def test_a_failed_training_says_why_in_its_own_words(tmp_path):
    job = GrowJob(tmp_path / "run", preset="giant").start(threads=1)
    assert job.wait(120) and job.crash is None and job.result is None
    assert job.error is not None and job.error.msg.params["got"] == "giant" and job.error.msg.params["what"] == "preset"  # the library's Msg, translatable


def test_a_waiting_job_says_how_long_it_has_waited(jobs):
    p = TrainingPool(size=1, threads=1)
    a, b = jobs(2)
    p.submit(a)
    p.submit(b)
    time.sleep(0.2)
    assert b.waiting and b.waited() >= 0.2
    a.release.set()
    assert until(lambda: b.running)
    w = b.waited()
    time.sleep(0.1)
    assert b.waited() == w  # the wait stops counting once it runs


def test_the_pool_size_and_threads_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("ANDREA_VIZ_MAX_TRAININGS", "3")
    monkeypatch.setenv("ANDREA_VIZ_TRAINING_THREADS", "2")
    p = TrainingPool()
    assert (p.size, p.threads) == (3, 2)
    monkeypatch.setenv("ANDREA_VIZ_MAX_TRAININGS", "two")
    monkeypatch.delenv("ANDREA_VIZ_TRAINING_THREADS")
    p = TrainingPool()
    assert p.size == 2 and p.threads == max(1, ((os.cpu_count() or 1) - 1) // 2)
    monkeypatch.setenv("ANDREA_VIZ_MAX_TRAININGS", "0")
    assert TrainingPool().size == 1
    assert pool.shared() is pool.shared()


def zombies() -> list:
    import psutil

    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                out.append(child.pid)
        except psutil.NoSuchProcess:
            pass
    return out


def test_a_finished_training_leaves_no_zombie_process(tmp_path):
    job = TrainingPool(size=1, threads=1).submit(GrowJob(tmp_path / "run", steps=3, seed=1, snapshot_at=[0, 3]))
    assert job.wait(120) and not (job.error or job.crash)
    assert zombies() == []  # the training process was waited for when it ended
    assert job.exitcode == 0 and job.killed is None


def test_a_training_killed_by_the_system_says_the_step_it_reached_and_the_last_snapshot_kept(tmp_path):
    import signal

    import psutil

    job = TrainingPool(size=1, threads=1).submit(GrowJob(tmp_path / "run", steps=5000, seed=1, snapshot_at=[0, 5, 5000]))
    try:
        assert until(lambda: job.snapshot().step >= 8, timeout=180)  # past the snapshot of step 5
        children = [c for c in psutil.Process().children() if c.status() != psutil.STATUS_ZOMBIE
                    and "spawn_main" in " ".join(c.cmdline())]
        assert len(children) == 1
        os.kill(children[0].pid, signal.SIGKILL)  # as the kernel's out-of-memory killer does
        assert job.wait(60)
    finally:
        job.cancel()
        job.wait(60)
    assert job.exitcode == -9 and job.killed == "SIGKILL" and job.result is None
    assert job.last_snapshot() == 5 and job.snapshot().step >= 8
    assert zombies() == []
