"""The app's hooks into Streamlit's own web server: Streamlit 1.67 serves with Starlette and takes no middleware in
``streamlit run``, so each hook wraps ``Starlette.__call__`` once per process (``wrap_once``), in the order
``install`` gives: the upload guard inside (it may answer a request by itself), the frame guard outside (every
answer, the upload guard's too, carries its headers)."""

from __future__ import annotations

from . import frame_guard, upload_guard


def wrap_once(mark: str, guard) -> bool:
    """Wrap ``Starlette.__call__`` with ``guard`` (a function of the current ``__call__``) unless a wrapper marked
    ``mark`` is already in place; True when this call wrapped it. A wrapper carries the marks of what it wraps."""
    from starlette.applications import Starlette

    current = Starlette.__call__
    if getattr(current, mark, False):
        return False
    wrapped = guard(current)
    wrapped.__dict__.update({k: v for k, v in getattr(current, "__dict__", {}).items() if k.startswith("_andrea_")})
    setattr(wrapped, mark, True)
    Starlette.__call__ = wrapped
    return True


def install() -> bool:
    """Every hook, once per process (called when ``andrea_viz.ui`` is first imported in the server process); True
    when this call put any in place."""
    inner = wrap_once(upload_guard.MARK, upload_guard.refusing_call)
    return wrap_once(frame_guard.MARK, frame_guard.framed_call) or inner
