"""Class codes that cannot be guessed in the time a class lasts, and a limit on failed joins per client.

A code is CODE_LENGTH symbols drawn by ``secrets`` from CODE_ALPHABET (31 symbols, none that reads as another:
no 0/O, 1/I/L): 31⁶ ≈ 887 million codes. With at most FAILED_JOINS_PER_MINUTE wrong tries a minute, a client
needs about 170 years on average to hit one open class in a day.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
FAILED_JOINS_PER_MINUTE = 10
WINDOW_SECONDS = 60.0


def new_code() -> str:
    """A fresh random code, e.g. ``K7QX4M``."""
    return "".join(secrets.choice(CODE_ALPHABET) for _i in range(CODE_LENGTH))


def normalise_code(typed: str) -> str:
    """A typed code as stored: capitals, without spaces or dashes (``k7q x4m`` → ``K7QX4M``)."""
    return "".join(c for c in str(typed).upper() if c not in " -\t")


def well_formed(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)


LOOPBACK = ("127.0.0.1", "::1", "localhost")


def client_of(peer: str | None, forwarded_for: str | None) -> str | None:
    """The address failed joins are counted against: the peer's, or, when the peer is a proxy on this machine (the
    README's sticky proxy), the address that proxy appended last to X-Forwarded-For (earlier entries come from the
    client and prove nothing). None when neither is known."""
    if peer in LOOPBACK and forwarded_for:
        last = forwarded_for.split(",")[-1].strip()
        if last:
            return last
    return peer or None


class JoinLimiter:
    """Failed joins per client (an address or a session) in the last minute; thread-safe, one per server."""

    def __init__(self, limit: int = FAILED_JOINS_PER_MINUTE, window: float = WINDOW_SECONDS):
        self.limit, self.window = limit, window
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, client: str, now: float) -> deque[float]:
        q = self._failures.setdefault(client, deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        return q

    def blocked_for(self, client: str, now: float | None = None) -> float:
        """Seconds until this client may try again: 0 when it may now."""
        now = time.monotonic() if now is None else now
        with self._lock:
            q = self._recent(client, now)
            return 0.0 if len(q) < self.limit else q[0] + self.window - now

    def failed(self, client: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            self._recent(client, now).append(now)
            if len(self._failures) > 10_000:  # forget clients with no recent failure (bounded memory)
                for c in [c for c, q in self._failures.items() if not q or q[-1] <= now - self.window]:
                    del self._failures[c]
