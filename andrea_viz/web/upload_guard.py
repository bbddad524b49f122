"""An upload the server's disk has no room for is refused before Streamlit starts receiving it.

Streamlit receives a file uploader's file at ``PUT /_stcore/upload_file/…`` as a multipart form, which Starlette
spools to the temporary folder once it passes 1 MB; on a full disk that write fails half-way and the learner sees
only "Request failed with status code 500" on the file's chip. ``hooks.install`` (called by ``streamlit_app.py`` as the
server starts, like ``frame_guard``) wraps ``Starlette.__call__`` once: such a request whose
``Content-Length`` is more than the temporary folder's free space, less ``ANDREA_VIZ_UPLOAD_RESERVE_MB`` (default 64)
kept for everything else the server writes, is answered at once with ``507 Insufficient Storage``, nothing read and
nothing written. The uploader's chip then says so in the reader's language (``uploader_text.chip_script``).
"""

from __future__ import annotations

import os
import tempfile

from ..os_errors import free_bytes

UPLOAD_PATH = "/_stcore/upload_file/"
RESERVE_ENV = "ANDREA_VIZ_UPLOAD_RESERVE_MB"
DEFAULT_RESERVE_MB = 64
SPOOL_BYTES = 2**20  # Starlette keeps a form's file in memory up to 1 MB, and writes it to the temporary folder past it
STATUS = 507
MARK = "_andrea_upload_guard"


def reserve_bytes() -> int:
    """The bytes an upload must leave free on the temporary folder's disk (``ANDREA_VIZ_UPLOAD_RESERVE_MB``; a value
    that is not a whole number of MB ≥ 0 is taken as the default)."""
    raw = os.environ.get(RESERVE_ENV, "")
    mb = int(raw) if raw.strip().isdigit() else DEFAULT_RESERVE_MB
    return mb * 2**20


def _length(scope) -> int | None:
    for k, v in scope.get("headers") or []:
        if k.lower() == b"content-length":
            text = v.decode("latin-1").strip()
            return int(text) if text.isdigit() else None
    return None


def no_room(scope) -> bool:
    """True for an upload request too large for the temporary folder's free space (less the reserve)."""
    if scope.get("type") != "http" or scope.get("method") != "PUT" or UPLOAD_PATH not in scope.get("path", ""):
        return False
    length = _length(scope)
    if length is None or length <= SPOOL_BYTES:  # kept in memory: no disk needed
        return False
    free = free_bytes(tempfile.gettempdir())
    return free is not None and length > free - reserve_bytes()


async def refuse(send) -> None:
    """``507 Insufficient Storage``, a short plain-text body (the chip's words come from the page, in its language)."""
    body = b"The server's disk has no room for this upload."
    await send({"type": "http.response.start", "status": STATUS,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def refusing_call(app_call):
    """An ASGI ``__call__`` (self, scope, receive, send) that refuses an upload with no room before reading it."""

    async def __call__(self, scope, receive, send):
        if no_room(scope):
            await refuse(send)
            return
        await app_call(self, scope, receive, send)

    return __call__

