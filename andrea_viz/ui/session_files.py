"""Folders on the server's disk that belong to one session (its uploads, its Grow run, an explored snapshot),
removed when they are replaced and when the session ends.

Streamlit has no "session ended" hook, so one sweeper thread per server looks every ``SWEEP_SECONDS`` for
folders whose session the server no longer knows (neither connected nor kept for a reconnect, which
``server.disconnectedSessionTTL`` allows for) and removes them, after running what the session asked to be
done at its end (a training cancelled). Folders live under ``<tmp>/andrea_viz_sessions/<server pid>/<session
id>/``; folders left by a server that is no longer running are removed when the next one starts.
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

BASE = Path(tempfile.gettempdir()) / "andrea_viz_sessions"
SWEEP_SECONDS = float(os.environ.get("ANDREA_VIZ_SWEEP_SECONDS", "20"))
_at_end: dict[str, list[Callable[[], None]]] = {}
_lock = threading.Lock()


def session_id() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


def keep_sweeping() -> None:
    """Start the server's sweeper if it is not running yet (every page calls this: ended sessions are let go of
    whether or not they had folders)."""
    _sweeper()


def new_folder(prefix: str) -> Path:
    """A new empty folder of this session's (``prefix`` names what it holds)."""
    _sweeper()
    home = BASE / str(os.getpid()) / session_id()
    home.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=prefix, dir=home))


def remove(folder: Path | str | None) -> None:
    """Delete a folder of this session's now (it was replaced)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def at_session_end(fn: Callable[[], None]) -> None:
    """Run ``fn`` when this session ends, before its folders are removed (once)."""
    with _lock:
        _at_end.setdefault(session_id(), []).append(fn)


def _server_knows(sid: str) -> bool:
    """True while the server holds the session (connected, or disconnected but still resumable)."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return True
    manager = getattr(Runtime.instance(), "_session_mgr", None)
    if manager is None or not hasattr(manager, "get_session_info"):
        return True  # cannot tell: keep everything rather than delete a live session's files
    return manager.get_session_info(sid) is not None


def sweep(knows: Callable[[str], bool] = _server_knows, base: Path = BASE, pid: int | None = None) -> list[str]:
    """Remove the folders of sessions that ended and of servers that stopped; returns the session ids removed."""
    pid = os.getpid() if pid is None else pid
    removed = []
    if not base.is_dir():
        return removed
    for server in base.iterdir():
        if server.name != str(pid):
            if not _running(server.name):
                shutil.rmtree(server, ignore_errors=True)
            continue
        for home in server.iterdir():
            if knows(home.name):
                continue
            with _lock:
                callbacks = _at_end.pop(home.name, [])
            for fn in callbacks:
                try:
                    fn()
                except Exception:  # noqa: BLE001 (one session's cleanup never stops another's)
                    pass
            shutil.rmtree(home, ignore_errors=True)
            removed.append(home.name)
    return removed


def forget_expired() -> int:
    """Drop the sessions whose reconnect time (``server.disconnectedSessionTTL``) has passed. Streamlit's store of
    disconnected sessions only lets go of an expired one when it is next written to, so after a class has left, its
    sessions' state would stay in memory until the next learner arrives. Returns how many were dropped."""
    from streamlit.runtime import Runtime

    if not Runtime.exists():
        return 0
    manager = getattr(Runtime.instance(), "_session_mgr", None)
    cache = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    expire = getattr(cache, "expire", None)
    if expire is None:
        return 0
    with getattr(manager, "_storage_lock", None) or contextlib.nullcontext():
        return len(expire())


def _running(pid: str) -> bool:
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@st.cache_resource(show_spinner=False)
def _sweeper() -> threading.Thread:
    def loop() -> None:
        while True:
            try:
                ended = sweep()
            except OSError:
                ended = []
            if forget_expired() or ended:
                gc.collect()  # a session's objects hold cycles; with postScriptGC off nothing else collects them soon
            time.sleep(SWEEP_SECONDS)

    thread = threading.Thread(target=loop, name="andrea-viz-session-sweeper", daemon=True)
    thread.start()
    return thread
