"""A large UMAP layout in a child process, one at a time per server, the others waiting in a queue.

umap-learn's numba code holds the interpreter's lock for the whole of each layout epoch (1-4.7 s each for the
128k-token table), so in the server every other learner's page stalls meanwhile. Above CHILD_ABOVE points the layout
(neighbour graph, fuzzy graph, epochs) runs in a process of its own, started with ``spawn`` (never ``fork`` of a
threaded server), as Grow's trainings do (``grow/job.py``), the PCA first of a wide table included (parts of
scikit-learn's fit hold the lock too). The points go to it, and its coordinates come back, as
``.npy`` files in a private temporary folder (0700, removed afterwards); its progress comes through a pipe and moves
the page's bar as before. The server runs one such process at a time (a 2-core server has one core to give it); a
second map waits its turn in order and its bar says how many are ahead. The child is always reaped (``children``);
one that the system killed (out of memory) is said in a sentence.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from ..children import killed_by, reap
from ..errors import QueryError
from ..i18n import Msg


def _child_above(default: int = 20_000) -> int:
    try:
        return max(0, int(os.environ.get("ANDREA_VIZ_UMAP_CHILD_ABOVE", default)))
    except ValueError:
        return default


# maps of more points than this are laid out in a child process (``ANDREA_VIZ_UMAP_CHILD_ABOVE``); smaller ones stay
# in the server, where they start sooner (a child needs a few seconds to import umap-learn and load its code)
CHILD_ABOVE = _child_above()
WAIT_POLL = 0.5  # seconds between two looks at the queue while a map waits its turn


class Turns:
    """One at a time, first come first served: ``with turns.turn(on_wait):`` runs its body when every earlier
    caller has left; meanwhile ``on_wait(ahead)`` is called every WAIT_POLL seconds (it may raise to give up)."""

    def __init__(self):
        self._cond = threading.Condition()
        self._queue: deque[object] = deque()

    @contextlib.contextmanager
    def turn(self, on_wait: Callable[[int], None] | None = None) -> Iterator[None]:
        me = object()
        with self._cond:
            self._queue.append(me)
        try:
            while True:
                with self._cond:
                    ahead = self._queue.index(me)
                    if ahead:
                        self._cond.wait(WAIT_POLL)
                        ahead = self._queue.index(me)
                if not ahead:
                    break
                if on_wait is not None:
                    on_wait(ahead)
            yield
        finally:
            with self._cond:
                self._queue.remove(me)
                self._cond.notify_all()

    @property
    def waiting(self) -> int:
        """Callers waiting for their turn (the one running not counted)."""
        with self._cond:
            return max(0, len(self._queue) - 1)


TURNS = Turns()  # the process's one queue: the server's


# (points, report) -> (N, dims) coordinates, or (coordinates, {name: array}): arrays it keeps beside them (a graph)
Layout = Callable[[np.ndarray, Callable[[float, Msg], None]], np.ndarray | tuple[np.ndarray, dict[str, np.ndarray]]]


def layout_in_child(X: np.ndarray, layout: Layout, report: Callable[[float, Msg], None],
                    turns: Turns = TURNS) -> np.ndarray | tuple[np.ndarray, dict[str, np.ndarray]]:
    """``layout(X, report)`` in a child process, when its turn comes: (N, dims) float32 coordinates (and the arrays
    it keeps beside them, as it returned them: ``(coords, {name: array})``). ``layout`` is a
    module-level function, or a ``functools.partial`` of one, so that the child can import it (``umap_run`` passes
    its UMAP run; this module imports nothing of the maps). A library error of the child is raised here as it was; a child that ends without its
    result (killed by the system, out of memory) raises a QueryError that says so."""
    with turns.turn(lambda ahead: report(0.1, Msg("waiting for the server's other map to finish: {n:,} ahead of "
                                                  "this one", n=ahead))):
        folder = Path(tempfile.mkdtemp(prefix="andrea_umap_"))  # 0700: this user's alone
        try:
            np.save(folder / "points.npy", np.ascontiguousarray(X, dtype=np.float32))
            return _watch_child(folder, layout, report)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _watch_child(folder: Path, layout: Layout, report: Callable[[float, Msg], None]):
    ctx = multiprocessing.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_lay_out_in_child, args=(str(folder), layout, send), name="andrea-umap", daemon=True)
    child.start()
    send.close()  # the child holds the only sending end: its end ends the pipe
    done, kept = False, None
    try:
        while True:
            try:
                message = recv.recv()
            except EOFError:
                break
            kind = message[0]
            if kind == "progress":
                report(message[1], Msg(message[2], **message[3]))
            elif kind == "done":
                done, kept = True, message[1] if len(message) > 1 else None
                break
            elif kind == "error":
                raise QueryError(Msg(message[1], **message[2]))
            else:
                raise QueryError("the map's process failed: {reason}", reason=message[1])
    except BaseException:  # a failure, or a page that stopped waiting (the learner moved on): the map stops too
        if child.is_alive():
            child.kill()
        raise
    finally:
        recv.close()
        code = reap(child)
    if not done:
        signal = killed_by(code)
        if signal is not None:
            raise QueryError("The map's process was stopped by the system ({signal}: out of memory, or killed) before "
                             "it finished. Try again, or map a sample of the table.", signal=signal)
        raise QueryError("The map's process ended with exit code {code} before it finished. Try again, or map a "
                         "sample of the table.", code=code)
    coords = np.load(folder / "coords.npy")
    if kept is None:
        return coords
    return coords, {name: np.load(folder / f"kept-{k}.npy") for k, name in enumerate(kept)}


def _lay_out_in_child(folder: str, layout: Layout, send) -> None:
    """The child: read the points, lay them out, write the coordinates (and the arrays kept beside them, by
    position: a name is never a path); progress, then "done" (with the kept arrays' names) or the failure."""
    try:
        X = np.load(Path(folder) / "points.npy", mmap_mode="r")  # a 128k × 4,096 table is read as the PCA needs it

        def report(fraction: float, text: Msg) -> None:
            send.send(("progress", float(fraction), text.msgid, dict(text.params)))

        out = layout(X, report)
        coords, kept = out if isinstance(out, tuple) else (out, None)
        np.save(Path(folder) / "coords.npy", np.asarray(coords, dtype=np.float32))
        for k, array in enumerate((kept or {}).values()):
            np.save(Path(folder) / f"kept-{k}.npy", np.asarray(array))
        send.send(("done",) if kept is None else ("done", list(kept)))
    except QueryError as exc:
        send.send(("error", exc.msg.msgid, dict(exc.msg.params)))
    except Exception as exc:  # noqa: BLE001 (one line to the server, never a traceback on a page)
        send.send(("crash", f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0][:200]}"))
    finally:
        send.close()
