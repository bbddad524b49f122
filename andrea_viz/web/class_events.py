"""The class's one route on the app's server: a websocket at ``/api/class/wait?code=…&topic=…&since=…`` that sends
the class's ``topic`` mark (``ClassStore.mark``: "pacing" or "answers") as soon as it is no longer ``since``, and
again each time it changes. A joined learner's Lesson page and the teacher's view hold one open (``ui.class_wait``)
and rerun only when a new mark comes: an idle class costs its browsers nothing, and a step or an answer reaches the
pages within ``CHECK_S`` of being stored, not at the next poll of a timer. A websocket, not a held HTTP request, as
a browser holds at most six of those per server (a teacher's tabs would starve their own pages).

One ``Watch`` per server reads each class's mark every ``CHECK_S`` while any page waits on it, whichever server the
change was written on (PostgreSQL behind several servers), in a worker thread, off the server's loop; a write made by
a page of this server (``ClassStore.on_write``) has it read at once. Reading it also
writes the answers this server kept while the database was away (as every store read does), so they reach the
database within ``CHECK_S`` of its return while any joined page is open.

``streamlit_app.py`` adds ``routes()`` to its ``st.App``; ``SERVED`` says so to the pages, which otherwise (``streamlit
run home.py``) rerun on a timer as before."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter

from ..classroom.codes import normalise_code, well_formed
from ..classroom.store import MARK_TOPICS, ClassStore, open_store

log = logging.getLogger(__name__)
PATH = "/api/class/wait"
WAIT_S = 25.0  # the mark is sent at least this often, changed or not (a page that went away is noticed)
CHECK_S = 0.5  # how often a class's mark is read while a page waits on it
MAX_WAITING = 2_000  # websockets one server holds open at once; more are refused (the page tries again later)
MAX_SINCE = 64
SERVED = False  # routes() was handed to the server this process runs
_store: ClassStore | None = None


def use_store(store: ClassStore) -> ClassStore:
    """The store the pages of this process use (``ui.classroom.class_store``): the route reads that one, so what its
    pages kept in memory while the database was away is what the route's reads write."""
    global _store
    _store = store
    store.on_write = _written
    return store


def _written(code: str) -> None:
    """A page of this process wrote to the class (from its script's thread): its waiting pages are told at once, not
    at the next read."""
    watch = _watch
    if watch is not None and watch.loop is not None and not watch.loop.is_closed():
        watch.loop.call_soon_threadsafe(watch.wake, code)


class Watch:
    """The waiting requests of one server, by (code, topic); one reader per key while any request waits on it."""

    def __init__(self, mark, check_s: float = CHECK_S) -> None:
        self._mark = mark  # (code, topic) -> str, called in a worker thread
        self.check_s = check_s
        self.marks: dict[tuple[str, str], str] = {}
        self.waiting: Counter[tuple[str, str]] = Counter()
        self._changed: dict[tuple[str, str], asyncio.Event] = {}
        self._readers: dict[tuple[str, str], asyncio.Task] = {}
        self._woken: dict[tuple[str, str], asyncio.Event] = {}
        self.loop: asyncio.AbstractEventLoop | None = None  # the server's, once a page waits

    @property
    def open_requests(self) -> int:
        return sum(self.waiting.values())

    async def wait(self, code: str, topic: str, since: str, timeout: float = WAIT_S) -> str:
        """The mark once it differs from ``since``, or as it is after ``timeout`` seconds."""
        key = (code, topic)
        self.loop = asyncio.get_running_loop()
        self.waiting[key] += 1
        if key not in self._readers:
            self._readers[key] = asyncio.create_task(self._read(key))
        try:
            async with asyncio.timeout(timeout):
                while self.marks.get(key) in (None, since):
                    await self._changed.setdefault(key, asyncio.Event()).wait()
        except TimeoutError:
            pass
        finally:
            self.waiting[key] -= 1
        return self.marks.get(key, since)

    def wake(self, code: str) -> None:
        """Read the marks of class ``code`` now (a write to it was made in this process), not at the next read."""
        for key in self._readers:
            if key[0] == code:
                self._woken.setdefault(key, asyncio.Event()).set()

    async def _read(self, key: tuple[str, str]) -> None:
        try:
            while self.waiting[key] > 0:
                try:
                    mark = await asyncio.to_thread(self._mark, *key)
                except Exception:  # noqa: BLE001 - a store that fails otherwise than ClassError: the pages wait on
                    log.exception("reading the class's mark failed")  # as for a database away, the server goes on
                    mark = "away"
                if mark != self.marks.get(key):
                    self.marks[key] = mark
                    event = self._changed.pop(key, None)
                    if event is not None:
                        event.set()
                woken = self._woken.setdefault(key, asyncio.Event())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(woken.wait(), self.check_s)
                woken.clear()
        finally:
            del self._readers[key]
            self._woken.pop(key, None)
            self.marks.pop(key, None)
            self._changed.pop(key, None)
            self.waiting.pop(key, None)


_watch: Watch | None = None


def _read_mark(code: str, topic: str) -> str:
    return (_store or use_store(open_store())).mark(code, topic)  # no page opened the store yet: the route opens it


def _refusal(q) -> str | None:
    """Why a request is refused (a sentence), or None."""
    code, topic, since = normalise_code(q.get("code", "")), q.get("topic", ""), q.get("since", "")
    if not well_formed(code) or topic not in MARK_TOPICS or len(since) > MAX_SINCE:
        return (f"expected code= a class code, topic= one of {', '.join(MARK_TOPICS)} and since= at most {MAX_SINCE} "
                f"characters; got code={q.get('code', '')[:20]!r}, topic={topic[:20]!r}, since of {len(since)} "
                "characters")
    return None


async def wait_socket(ws) -> None:
    """The route's handler: a websocket that sends the class's mark each time it changes (and every ``WAIT_S`` as it
    is, so a page that went away is noticed), until the page closes it. Refused with a sentence (close code 1008)
    for a malformed request, and with 1013 ("try again later") when the server already holds ``MAX_WAITING``."""
    global _watch
    if _watch is None:
        _watch = Watch(_read_mark, CHECK_S)
    q = ws.query_params
    refusal = _refusal(q)
    if refusal is not None:
        await ws.close(code=1008, reason=refusal[:120])
        return
    if _watch.open_requests >= MAX_WAITING:
        await ws.close(code=1013, reason=f"this server already holds {MAX_WAITING:,} waiting pages; try again later")
        return
    code, topic, since = normalise_code(q["code"]), q["topic"], q.get("since", "")
    await ws.accept()
    gone = asyncio.create_task(_closed(ws))
    try:
        while not gone.done():
            waiting = asyncio.create_task(_watch.wait(code, topic, since))
            await asyncio.wait({waiting, gone}, return_when=asyncio.FIRST_COMPLETED)
            if gone.done():
                waiting.cancel()
                break
            since = waiting.result()
            await ws.send_text(since)
    except Exception:  # noqa: BLE001 - the page went away while a mark was sent: nothing to say to anyone
        pass
    finally:
        gone.cancel()


async def _closed(ws) -> None:
    """Returns when the page closes its end (a page sends nothing else), or the connection fails."""
    with contextlib.suppress(Exception):  # a connection that breaks is a page gone: nothing more to send it
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass


def routes() -> list:
    """The routes ``streamlit_app.py`` hands to ``st.App``."""
    from starlette.routing import WebSocketRoute

    global SERVED
    SERVED = True
    return [WebSocketRoute(PATH, wait_socket)]
