"""The teacher key: ``$ANDREA_VIZ_TEACHER_KEY``, or one this server makes when it first needs one and writes to its
log (stderr), so only who can read the server's log (or set its environment) can open the teacher view."""

from __future__ import annotations

import functools
import hmac
import os
import secrets
import sys

@functools.cache
def teacher_key() -> str:
    chosen = os.environ.get("ANDREA_VIZ_TEACHER_KEY", "").strip()
    if chosen:
        return chosen
    made = secrets.token_urlsafe(12)
    print(f"ANDREA_VIZ_TEACHER_KEY is not set: this server's teacher key is {made}", file=sys.stderr, flush=True)
    return made


def is_teacher_key(typed: str | None) -> bool:
    """The typed key is the teacher key (compared in constant time)."""
    return bool(typed) and hmac.compare_digest(str(typed).strip().encode(), teacher_key().encode())
