"""A training run in a background thread: the app polls its progress, and Cancel stops it between steps.

Each app session owns its jobs and their folders, so two sessions training at once write to two
different folders and never share a file.
"""

from __future__ import annotations

import threading
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
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, name="andrea-grow", daemon=True)

    def start(self) -> GrowJob:
        self.thread.start()
        return self

    def _tick(self, step: int, steps: int, loss: float) -> None:
        with self._lock:
            self.progress.step, self.progress.steps = step, steps
            self.progress.losses.append(loss)

    def _run(self) -> None:
        try:
            self.result = train(self.folder, progress=self._tick, should_stop=self._stop.is_set, **self.kwargs)
        except QueryError as exc:
            self.error = exc
        except Exception as exc:  # an unexpected failure is reported, not lost with the thread
            self.crash = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"

    def cancel(self) -> None:
        self._stop.set()

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def snapshot(self) -> Progress:
        """A copy of the progress, safe to draw while the thread goes on."""
        with self._lock:
            return Progress(self.progress.step, self.progress.steps, list(self.progress.losses))

    def wait(self, timeout: float | None = None) -> bool:
        self.thread.join(timeout)
        return not self.thread.is_alive()
