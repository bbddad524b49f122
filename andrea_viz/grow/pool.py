"""The server's trainings, a few at a time: a pool of ``size`` running jobs and a queue of the others, started in turn.

One pool per process (``shared()``), so a class on one server shares it: ``ANDREA_VIZ_MAX_TRAININGS`` (default 2)
trainings run at once, each with ``ANDREA_VIZ_TRAINING_THREADS`` torch threads (default: the cores less one, shared
by the pool, at least 1) at a lower CPU priority (niceness +``ANDREA_VIZ_TRAINING_NICE``, default 19: the lowest, so a page always wins the CPU), so that the pages of everyone else keep a core. A queued job knows
how many trainings must end before it starts (``ahead``); cancelling it leaves the queue, cancelling a running one frees its slot when
it stops (between two steps). Several servers behind a proxy each have their own pool and queue.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque

from .job import GrowJob


def _env_int(name: str, default: int, least: int) -> int:
    try:
        return max(least, int(os.environ.get(name, default)))
    except ValueError:
        return default


def default_size() -> int:
    return _env_int("ANDREA_VIZ_MAX_TRAININGS", 2, 1)


def default_threads(size: int) -> int:
    return _env_int("ANDREA_VIZ_TRAINING_THREADS", max(1, ((os.cpu_count() or 1) - 1) // size), 1)


class TrainingPool:
    def __init__(self, size: int | None = None, threads: int | None = None, nice: int | None = None):
        self.size = default_size() if size is None else max(1, size)
        self.threads = default_threads(self.size) if threads is None else max(1, threads)
        self.nice = _env_int("ANDREA_VIZ_TRAINING_NICE", 19, 0) if nice is None else nice
        self._lock = threading.Lock()
        self._running: list[GrowJob] = []
        self._queue: deque[GrowJob] = deque()

    def submit(self, job: GrowJob) -> GrowJob:
        """Start ``job`` now if a slot is free, else put it at the end of the queue."""
        with self._lock:
            job.pool = self
            job.queued_at = time.monotonic()
            if len(self._running) < self.size:
                self._launch(job)
            else:
                self._queue.append(job)
        return job

    def _launch(self, job: GrowJob) -> None:  # with the lock held
        self._running.append(job)
        job.start(threads=self.threads, nice=self.nice, on_done=self._done)

    def _done(self, job: GrowJob) -> None:
        """A running job's thread ends: its slot goes to the first job still waiting."""
        with self._lock:
            if job in self._running:
                self._running.remove(job)
            while self._queue and len(self._running) < self.size:
                self._launch(self._queue.popleft())

    def leave(self, job: GrowJob) -> bool:
        """Take a waiting job out of the queue (it never runs); False when it is not waiting."""
        with self._lock:
            if job not in self._queue:
                return False
            self._queue.remove(job)
        job.left_queue()
        return True

    def ahead(self, job: GrowJob) -> int | None:
        """How many trainings must end before ``job`` starts (1: the next one to end frees its slot), counting those
        queued before it; None when it is not waiting."""
        with self._lock:
            try:
                return self._queue.index(job) + 1
            except ValueError:
                return None

    @property
    def running(self) -> int:
        with self._lock:
            return len(self._running)

    @property
    def waiting(self) -> int:
        with self._lock:
            return len(self._queue)


_shared: TrainingPool | None = None
_shared_lock = threading.Lock()


def shared() -> TrainingPool:
    """The process's one pool (the server's), made on first use from the environment."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = TrainingPool()
        return _shared
