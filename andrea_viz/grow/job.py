"""A training run in a child process, watched by a thread of the server: the app polls its progress, and Cancel
stops it between steps.

The training itself runs in its own process (``spawn``, never ``fork`` of a threaded server), so its Python work
— preparing the corpus, the segments, every step's bookkeeping — never holds the server's interpreter lock while
other learners' pages render, and its torch threads and CPU priority are its own (``torch.set_num_threads`` is
process-wide: in the server it would slow every page's computation too). The child sends its steps' progress
through a pipe, a batch at most every tenth of a second; the watching thread keeps it for the page.

Each app session owns its jobs and their folders, so two sessions training at once write to two
different folders and never share a file. On a server, jobs start through a ``TrainingPool`` (``pool.py``), which
may keep them waiting in its queue first.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..children import killed_by, reap
from ..errors import QueryError
from .timing import record_run
from .snapshots import list_snapshots
from .trainer import GrowResult, train


class ChildCrash(RuntimeError):
    """The training process failed outside the library's own errors, or ended without a word."""


POLL = 0.2  # seconds between the watcher's looks at a silent child (a step's progress wakes it at once)


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
        self.limits: dict | None = None  # the torch threads and niceness the training ran under, as it reported them
        self.exitcode: int | None = None  # the training process's, once it was reaped
        self.killed: str | None = None  # the signal that ended it without a word (SIGKILL: out of memory, kill -9)
        self._stop = threading.Event()
        self._ended = threading.Event()
        self._lock = threading.Lock()
        self._threads: int | None = None
        self._nice = 0
        self._on_done: Callable[[GrowJob], None] | None = None
        self.thread = threading.Thread(target=self._run, name="andrea-grow", daemon=True)

    def start(self, threads: int | None = None, nice: int = 0, on_done: Callable[[GrowJob], None] | None = None) -> GrowJob:
        """Run now: the training process gets at most ``threads`` torch threads and ``nice`` added to its niceness."""
        self._threads, self._nice, self._on_done = threads, nice, on_done
        self.started_at = time.monotonic()
        self.thread.start()
        return self

    def _tick(self, step: int, steps: int, loss: float) -> None:
        with self._lock:
            self.progress.step, self.progress.steps = step, steps
            self.progress.losses.append(loss)

    def _work(self) -> GrowResult:
        """Train in a child process and relay what it sends until it ends; a Cancel here stops it between steps."""
        ctx = multiprocessing.get_context("spawn")
        recv, send = ctx.Pipe(duplex=False)
        stop = ctx.Event()
        child = ctx.Process(target=_train_in_child, args=(str(self.folder), self.kwargs, send, stop, self._threads),
                            name="andrea-grow", daemon=True)
        # Linux: a thread's niceness is its own, and a process started from it inherits it, so the child runs at the
        # lower priority from its first instruction (its start-up imports included), not once it has imported torch.
        # A short-lived thread lowers itself and starts the child; this watching thread keeps the server's priority,
        # since it takes the interpreter lock for every message, and a lock held by a thread at niceness +19 that the
        # kernel has set aside stalls every page of the server until it is scheduled again (priority inversion).
        launcher = threading.Thread(target=_start_lowered, args=(child, self._nice), name="andrea-grow-launch")
        launcher.start()
        launcher.join()
        if child.pid is None:
            raise ChildCrash("the training process could not be started")
        send.close()  # the child holds the only sending end: its exit ends the pipe
        try:
            while True:
                if self._stop.is_set():
                    stop.set()
                if not recv.poll(POLL):
                    if child.is_alive():
                        continue
                    if not recv.poll(0):
                        raise ChildCrash(f"the training process ended with exit code {child.exitcode}")
                try:
                    kind, payload = recv.recv()
                except EOFError:
                    child.join(5)
                    raise ChildCrash(f"the training process ended with exit code {child.exitcode}") from None
                if kind == "ticks":
                    for tick in payload:
                        self._tick(*tick)
                elif kind == "limits":
                    self.limits = payload
                elif kind == "result":
                    return payload
                elif kind == "error":
                    raise QueryError(payload)
                else:
                    raise ChildCrash(payload)
        finally:
            stop.set()
            recv.close()
            self.exitcode = reap(child)  # waited for however it ended: no <defunct> process left behind

    def _run(self) -> None:
        try:
            self.result = self._work()
        except QueryError as exc:
            self.error = exc
        except ChildCrash as exc:
            self.crash = str(exc)
            self.killed = killed_by(self.exitcode)
        except Exception as exc:  # an unexpected failure is reported, not lost with the thread
            self.crash = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
        finally:
            r = self.result
            if r is not None and r.steps_done == r.steps_planned and self.started_at is not None:
                record_run(r.preset, time.monotonic() - self.started_at, r.steps_done)  # what Grow's page quotes
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

    def last_snapshot(self) -> int | None:
        """The step of the last snapshot written to the run's folder (the last one kept), or None when there is none."""
        steps = [step for step, _ in list_snapshots(self.folder)] if self.folder.is_dir() else []
        return max(steps) if steps else None

    def wait(self, timeout: float | None = None) -> bool:
        """Until the job has ended (run to its end, stopped, or left the queue); False at the timeout."""
        return self._ended.wait(timeout)


def _lower_this_thread(nice: int) -> None:
    """Add ``nice`` to the calling thread's niceness (raising one's own needs no privilege)."""
    if nice and hasattr(os, "setpriority"):
        try:
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + nice))
        except OSError:
            pass


def _start_lowered(child, nice: int) -> None:
    _lower_this_thread(nice)
    child.start()


TICK_EVERY = 0.1  # seconds: the child sends its steps' progress in batches at most this often (and the last at once)


class _Ticks:
    """The child's progress callback: steps gathered and sent together, so a fast run costs the watching server
    a message every tenth of a second, not one per step."""

    def __init__(self, send):
        self.send, self.batch, self.last = send, [], time.monotonic()

    def __call__(self, step: int, steps: int, loss: float) -> None:
        self.batch.append((step, steps, loss))
        now = time.monotonic()
        if step >= steps or now - self.last >= TICK_EVERY:
            self.flush()
            self.last = now

    def flush(self) -> None:
        if self.batch:
            self.send.send(("ticks", self.batch))
            self.batch = []


def _train_in_child(folder: str, kwargs: dict, send, stop, threads: int | None) -> None:
    """The child process (born at its watcher's lower priority): limit its torch threads, train, and send progress,
    then the result or the failure (a library error as its Msg, so the page says it in the learner's language;
    anything else as one line)."""
    import torch

    if threads is not None:
        torch.set_num_threads(threads)
    send.send(("limits", {"threads": torch.get_num_threads(), "nice": os.getpriority(os.PRIO_PROCESS, 0)}))
    try:
        ticks = _Ticks(send)
        try:
            result = train(folder, progress=ticks, should_stop=stop.is_set, **kwargs)
        finally:
            ticks.flush()  # a cancelled or failed run's last steps too
        send.send(("result", result))
    except QueryError as exc:
        send.send(("error", exc.msg))
    except Exception as exc:
        send.send(("crash", f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"))
    finally:
        send.close()
