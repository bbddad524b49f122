"""Every HTTP response of the app says that only the app itself may frame it: ``Content-Security-Policy:
frame-ancestors 'self'`` and ``X-Frame-Options: SAMEORIGIN`` (for browsers that predate CSP level 2). A page of
another site then gets a blocked frame instead of the app, and cannot drive the canvas map's frame from around it.

Streamlit 1.67 serves with Starlette under uvicorn (``streamlit/web/server/starlette/``). ``hooks.install`` wraps
``Starlette.__call__`` once per process: every request the server's Starlette application answers from then on goes
out through ``_with_headers``. ``streamlit_app.py`` (the app as an ``st.App``) installs it before the server answers
anything, so the very first response of a fresh server carries the headers too. A header the application set itself
is left as it is.
"""

from __future__ import annotations

HEADERS = {"content-security-policy": "frame-ancestors 'self'", "x-frame-options": "SAMEORIGIN"}
_ENCODED = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in HEADERS.items()]
MARK = "_andrea_frame_guard"


def _with_headers(send):
    """``send`` that adds ``HEADERS`` (those not already there) to the start of an HTTP response."""

    async def guarded(message):
        if message.get("type") == "http.response.start":
            headers = list(message.get("headers") or [])
            present = {k.lower() for k, _v in headers}
            headers += [(k, v) for k, v in _ENCODED if k not in present]
            message = {**message, "headers": headers}
        await send(message)

    return guarded


def framed_call(app_call):
    """An ASGI ``__call__`` (self, scope, receive, send) whose HTTP responses carry ``HEADERS``."""

    async def __call__(self, scope, receive, send):
        await app_call(self, scope, receive, _with_headers(send) if scope.get("type") == "http" else send)

    return __call__

