"""A training run in a background thread: the app polls its progress, and Cancel stops it between steps.

Each app session owns its jobs and their folders, so two sessions training at once write to two
different folders and never share a file. On a server, jobs start through a ``TrainingPool`` (``pool.py``), which
may keep them waiting in its queue first.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import QueryError
from .trainer import GrowResult, train


@dataclass
class Progress:
    step: int = 0
    steps: int = 0
    losses: list[float] = field(default_factory=list)


class GrowJob:
    """``train(folder, **kwargs)`` started in a daemon thread."""

    def __init__(self, folder: str | Path, **kwargs):
        self.folder = Path(folder)
        self.kwargs = kwargs
        self.progress = Progress()
        self.result: GrowResult | None = None
        self.error: QueryError | None = None
        self.crash: str | None = None  # anything else, as one line (never a traceback on a page)
        self.pool = None  # the TrainingPool it was submitted to, if any
        self.queued_at: float | None = None  # time.monotonic() when submitted
        self.started_at: float | None = None
        self.left = False  # taken out of the queue before it ran
        self._stop = threading.Event()
        self._ended = threading.Event()
        self._lock = threading.Lock()
        self._threads: int | None = None
        self._nice = 0
        self._on_done: Callable[[GrowJob], None] | None = None
        self.thread = threading.Thread(target=self._run, name="andrea-grow", daemon=True)

    def start(self, threads: int | None = None, nice: int = 0, on_done: Callable[[GrowJob], None] | None = None) -> GrowJob:
        """Run now, with at most ``threads`` torch threads and ``nice`` added to the thread's CPU niceness."""
        self._threads, self._nice, self._on_done = threads, nice, on_done
        self.started_at = time.monotonic()
        self.thread.start()
        return self

    def _limit(self) -> None:
        if self._threads is not None:
            import torch

            torch.set_num_threads(self._threads)
        if self._nice and hasattr(os, "setpriority"):
            try:  # Linux: a thread's niceness is its own (raising it needs no privilege)
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, os.getpriority(os.PRIO_PROCESS, 0) + self._nice))
            except OSError:
                pass

    def _tick(self, step: int, steps: int, loss: float) -> None:
        with self._lock:
            self.progress.step, self.progress.steps = step, steps
            self.progress.losses.append(loss)

    def _work(self) -> GrowResult:
        return train(self.folder, progress=self._tick, should_stop=self._stop.is_set, **self.kwargs)

    def _run(self) -> None:
        try:
            self._limit()
            self.result = self._work()
        except QueryError as exc:
            self.error = exc
        except Exception as exc:  # an unexpected failure is reported, not lost with the thread
            self.crash = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
        finally:
            self._ended.set()
            if self._on_done is not None:
                self._on_done(self)

    def cancel(self) -> None:
        """Stop after the current step; a job still waiting in its pool's queue leaves it and never runs."""
        self._stop.set()
        if self.pool is not None and self.started_at is None:
            self.pool.leave(self)

    def left_queue(self) -> None:
        self.left = True
        self._stop.set()
        self._ended.set()

    @property
    def waiting(self) -> bool:
        """Submitted to a pool and not started yet (nor taken out of the queue)."""
        return self.started_at is None and not self._ended.is_set()

    @property
    def running(self) -> bool:
        return self.started_at is not None and not self._ended.is_set()

    @property
    def active(self) -> bool:
        """Waiting or running: the page polls it."""
        return not self._ended.is_set()

    def waited(self) -> float:
        """Seconds in the queue so far (or until it started)."""
        if self.queued_at is None:
            return 0.0
        return (self.started_at or time.monotonic()) - self.queued_at

    def snapshot(self) -> Progress:
        """A copy of the progress, safe to draw while the thread goes on."""
        with self._lock:
            return Progress(self.progress.step, self.progress.steps, list(self.progress.losses))

    def wait(self, timeout: float | None = None) -> bool:
        """Until the job has ended (run to its end, stopped, or left the queue); False at the timeout."""
        return self._ended.wait(timeout)
