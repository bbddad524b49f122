"""How long a Grow run takes on this server: measured from the runs that finished here, never promised.

A run's time is its whole wall time as the learner waits for it (the training process's start, the corpus, its
segments, the steps); a preset's expected time scales the last finished run's time per step to the steps asked.
Until a run of a preset has finished in this server's process there is no figure, and the page says so.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class RunTime:
    seconds: float
    steps: int


_last: dict[str, RunTime] = {}
_lock = threading.Lock()


def record_run(preset: str, seconds: float, steps: int) -> None:
    """A run of ``preset`` finished all its ``steps`` in ``seconds`` (wall time) on this server."""
    if steps >= 1 and seconds > 0:
        with _lock:
            _last[preset] = RunTime(float(seconds), int(steps))


def last_run(preset: str) -> RunTime | None:
    with _lock:
        return _last.get(preset)
