"""The upload guard: an upload larger than the temporary folder's free space (less the reserve) is answered 507 at
once, before Starlette spools a byte of it; smaller ones, other routes and other methods reach the application."""

import asyncio
import threading

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from andrea_viz.web import frame_guard, upload_guard
from andrea_viz.web import hooks as server_hooks

UPLOAD = "/_stcore/upload_file/session/file"
MB = 2**20


def _answer(app, method: str, path: str, length: int | None) -> tuple[list[dict], list[bytes]]:
    """The application's messages for a request of ``length`` bytes, and the body chunks it read."""
    sent: list[dict] = []
    read: list[bytes] = []

    async def receive():
        read.append(b"x" * 10)
        return {"type": "http.request", "body": b"x" * 10, "more_body": False}

    async def send(message):
        sent.append(message)

    headers = [] if length is None else [(b"content-length", str(length).encode())]
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": headers, "scheme": "http", "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1),
             "root_path": ""}
    worker = threading.Thread(target=lambda: asyncio.run(app(scope, receive, send)))  # Playwright may own this loop
    worker.start()
    worker.join(60)
    return sent, read


def _app() -> Starlette:
    async def got(request):
        await request.body()
        return PlainTextResponse("received")

    return Starlette(routes=[Route("/_stcore/upload_file/{s}/{f}", got, methods=["PUT"]), Route("/", got)])


@pytest.fixture
def free_mb(monkeypatch):
    """The temporary folder's free space, set by the test (in MB)."""
    box = {"mb": 1_000}
    monkeypatch.setattr(upload_guard, "free_bytes", lambda folder: box["mb"] * MB)
    monkeypatch.delenv(upload_guard.RESERVE_ENV, raising=False)
    return box


def test_an_upload_with_no_room_is_refused_before_a_byte_is_read(free_mb):
    server_hooks.install()
    free_mb["mb"] = 100
    sent, read = _answer(_app(), "PUT", UPLOAD, 40 * MB)  # 40 MB > 100 MB free - 64 MB reserve
    start = sent[0]
    assert start["status"] == 507 and read == []
    headers = dict(start["headers"])
    assert headers[b"content-security-policy"] == b"frame-ancestors 'self'"  # the frame guard wraps the refusal too


def test_uploads_with_room_small_ones_and_other_requests_pass(free_mb, monkeypatch):
    server_hooks.install()
    free_mb["mb"] = 100
    for method, path, length in [("PUT", UPLOAD, 30 * MB), ("PUT", UPLOAD, MB), ("PUT", UPLOAD, None),
                                 ("GET", "/", 40 * MB)]:
        sent, read = _answer(_app(), method, path, length)
        assert sent[0]["status"] == 200 and sent[-1]["body"] == b"received" and read, (method, length)
    monkeypatch.setenv(upload_guard.RESERVE_ENV, "90")  # the reserve is the server keeper's to set
    assert _answer(_app(), "PUT", UPLOAD, 30 * MB)[0][0]["status"] == 507
    monkeypatch.setenv(upload_guard.RESERVE_ENV, "lots")  # not a number of MB: the default
    assert upload_guard.reserve_bytes() == upload_guard.DEFAULT_RESERVE_MB * MB


def test_each_hook_is_installed_once_whatever_the_order():
    server_hooks.install()
    server_hooks.install()
    assert server_hooks.install() is False
    assert server_hooks.wrap_once(frame_guard.MARK, frame_guard.framed_call) is False
    assert server_hooks.wrap_once(upload_guard.MARK, upload_guard.refusing_call) is False
    call = Starlette.__call__
    assert call._andrea_frame_guard and call._andrea_upload_guard
