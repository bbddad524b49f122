"""The frame guard: an HTTP response of the app's Starlette application goes out saying only the app may frame it."""

import asyncio
import threading

from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from andrea_viz.web import frame_guard
from andrea_viz.web import hooks as server_hooks


def _answer(app, path: str = "/") -> list[dict]:
    """What the application sends for a GET of ``path``: its ASGI messages, in order."""
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [], "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1), "root_path": ""}
    # in a thread of its own: a Playwright session of the browser tests may hold a running loop in this one
    worker = threading.Thread(target=lambda: asyncio.run(app(scope, receive, send)))
    worker.start()
    worker.join(60)
    return sent


def _headers(sent: list[dict]) -> dict[str, list[str]]:
    start = next(m for m in sent if m["type"] == "http.response.start")
    found: dict[str, list[str]] = {}
    for k, v in start["headers"]:
        found.setdefault(k.decode("latin-1").lower(), []).append(v.decode("latin-1"))
    return found


def _app() -> Starlette:
    async def own(request):
        return PlainTextResponse("mine", headers={"X-Frame-Options": "DENY"})  # a header of its own: kept

    return Starlette(routes=[Route("/", lambda request: PlainTextResponse("ok")), Route("/own", own)])


def test_every_response_says_only_the_app_may_frame_it_once_installed():
    server_hooks.install()  # as andrea_viz.ui does on import (idempotent)
    assert server_hooks.install() is False  # installed once per process
    app = _app()
    headers = _headers(_answer(app))
    assert headers["content-security-policy"] == ["frame-ancestors 'self'"]
    assert headers["x-frame-options"] == ["SAMEORIGIN"]
    assert _answer(app)[-1]["body"] == b"ok"  # the body untouched
    own = _headers(_answer(app, "/own"))
    assert own["x-frame-options"] == ["DENY"] and own["content-security-policy"] == ["frame-ancestors 'self'"]
    missing = _headers(_answer(app, "/nowhere"))  # a 404 too
    assert missing["content-security-policy"] == ["frame-ancestors 'self'"]


def test_the_guard_is_what_adds_them():
    async def bare(self, scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"x"})

    guarded = frame_guard.framed_call(bare)

    class Plain:
        __call__ = bare

    class Guarded:
        __call__ = guarded

    assert "content-security-policy" not in _headers(_answer(Plain()))
    assert _headers(_answer(Guarded()))["x-frame-options"] == ["SAMEORIGIN"]
