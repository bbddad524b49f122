"""The child processes the server starts (trainings, a large UMAP map, numba's compile), reaped when they end, and
their end read as a fact a sentence can say.

A process that has ended stays in the process table as ``<defunct>`` until its parent waits for it: every child is
waited for here, whether it ended by itself, failed, or was killed (``reap``). A child killed by a signal (the
kernel's out-of-memory killer, ``kill -9``) has a negative exit code; ``killed_by`` names the signal so that the
page can say "stopped by the system" rather than print an exit code.
"""

from __future__ import annotations

import signal
import subprocess
import threading

REAP_SECONDS = 10.0  # how long a child asked to stop is given before it is killed


def reap(child, timeout: float = REAP_SECONDS) -> int | None:
    """Wait for ``child`` (a ``multiprocessing.Process`` or a ``subprocess.Popen``) to end, killing it when it is
    still running after ``timeout`` seconds, and collect its exit status so that no zombie remains. Returns its exit
    code (negative: the signal that ended it), or None for a child that was never started."""
    if isinstance(child, subprocess.Popen):
        try:
            return child.wait(timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            return child.wait()
    if child.pid is None:  # never started
        return None
    child.join(timeout)
    if child.is_alive():
        child.kill()
        child.join()
    return child.exitcode


def reap_when_done(child: subprocess.Popen, name: str = "andrea-reaper") -> threading.Thread:
    """A daemon thread that waits for ``child`` to end (however long it runs) and so reaps it at once."""
    thread = threading.Thread(target=child.wait, name=name, daemon=True)
    thread.start()
    return thread


def killed_by(exitcode: int | None) -> str | None:
    """The name of the signal that ended a child (``SIGKILL`` for exit code -9), or None when it exited by itself."""
    if exitcode is None or exitcode >= 0:
        return None
    try:
        return signal.Signals(-exitcode).name
    except ValueError:
        return f"signal {-exitcode}"
