"""What a waiting page hangs on: the class's mark (both engines, a real PostgreSQL on loopback), the server's Watch
(one reader per class and topic, however many pages wait) and its websocket route, driven through Starlette's own
test client as the app's server mounts it."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from andrea_viz.classroom.store import PostgresStore, SQLiteStore
from andrea_viz.errors import QueryError
from andrea_viz.web import class_events
from andrea_viz.web.class_events import Watch
from tests.unit import test_class_store as engines

pg_server, store = engines.pg_server, engines.store  # the store's own fixtures: SQLite and a real PostgreSQL


def run_apart(coro):
    """``asyncio.run`` in a thread of its own: a browser test in the same worker leaves Playwright's loop running in
    this one."""
    out = {}

    def run() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the test's own thread
            out["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_the_mark_changes_with_its_topic_and_only_with_it(store):
    code = store.start_class()
    pacing, answers = store.mark(code, "pacing"), store.mark(code, "answers")
    assert len(pacing) == 16 and pacing != answers and store.mark(code, "pacing") == pacing  # read twice: the same
    store.join(code, "m1", "Ana", "pt-BR")
    assert store.mark(code, "answers") != answers and store.mark(code, "pacing") == pacing
    answers = store.mark(code, "answers")
    store.record(code, "m1", "q", "8449", "v", now=100.0)
    after_one = store.mark(code, "answers")
    assert after_one != answers and store.mark(code, "pacing") == pacing
    store.record(code, "m1", "q", "6488832", "right", now=101.0)  # the same question answered again: one row, a new time
    assert store.mark(code, "answers") != after_one
    store.set_pacing(code, 3, True)
    moved = store.mark(code, "pacing")
    assert moved != pacing
    store.set_pacing(code, 3, True)  # the teacher's page writes its step on every run: the same step, the same mark
    assert store.mark(code, "pacing") == moved
    store.set_pacing(code, 3, False)  # "follow me" off
    assert store.mark(code, "pacing") != moved
    other = store.start_class()
    assert store.mark(other, "pacing") != store.mark(code, "pacing")  # no class's mark stands for another's
    with pytest.raises(QueryError, match="topic must be one of pacing, answers; got 'nicknames'"):
        store.mark(code, "nicknames")


def test_the_mark_is_away_while_the_database_is_and_the_kept_answers_are_written_by_it(pg_server):
    store = PostgresStore(pg_server.new_database(), timeout=1)
    code = store.start_class()
    store.join(code, "m1", "", "en")
    pg_server.stop()
    try:
        assert store.record(code, "m1", "q", "kept", "other") is False and store.pending == 1
        assert store.mark(code, "answers") == "away" and store.mark(code, "pacing") == "away"
    finally:
        pg_server.start()
    assert store.mark(code, "pacing") != "away" and store.pending == 0  # reading the mark wrote what waited
    assert [a.answer for a in PostgresStore(store.url).answers(code)] == ["kept"]


def test_a_watch_answers_at_once_on_a_change_and_reads_each_class_once_however_many_wait():
    reads: list[tuple[str, str]] = []
    marks = {("ABCDEF", "pacing"): "a", ("ABCDEF", "answers"): "x"}

    def mark(code, topic):
        reads.append((code, topic))
        return marks[(code, topic)]

    async def scenario():
        watch = Watch(mark, check_s=0.05)
        assert await watch.wait("ABCDEF", "pacing", "old", timeout=5) == "a"  # differs from since: at once
        t = time.perf_counter()
        assert await watch.wait("ABCDEF", "pacing", "a", timeout=0.3) == "a"  # unchanged: the whole timeout
        assert time.perf_counter() - t >= 0.29
        await asyncio.sleep(0.1)  # nobody waits: the reader stops
        assert watch.open_requests == 0 and not watch.marks
        reads.clear()
        waiters = [asyncio.create_task(watch.wait("ABCDEF", "pacing", "a", timeout=5)) for _ in range(30)]
        other = asyncio.create_task(watch.wait("ABCDEF", "answers", "x", timeout=5))
        await asyncio.sleep(0.3)
        assert watch.open_requests == 31 and not any(w.done() for w in waiters)
        per_key = {k: reads.count(k) for k in set(reads)}
        assert 3 <= per_key[("ABCDEF", "pacing")] <= 8, per_key  # one reader every 0.05 s, not one per waiter
        marks[("ABCDEF", "pacing")] = "b"
        t = time.perf_counter()
        assert await asyncio.gather(*waiters) == ["b"] * 30
        assert time.perf_counter() - t < 0.5 and not other.done()  # the other topic still waits
        marks[("ABCDEF", "answers")] = "y"
        assert await other == "y"

    run_apart(scenario())


def test_a_write_wakes_the_watch_of_its_class_only():
    marks = {"ABCDEF": "a", "GHJKMN": "g"}

    async def scenario():
        watch = Watch(lambda code, topic: marks[code], check_s=30.0)  # reads only at start and when woken
        mine = asyncio.create_task(watch.wait("ABCDEF", "pacing", "a", timeout=5))
        other = asyncio.create_task(watch.wait("GHJKMN", "pacing", "g", timeout=5))
        await asyncio.sleep(0.2)
        marks.update(ABCDEF="b", GHJKMN="h")
        t = time.perf_counter()
        watch.wake("ABCDEF")
        assert await mine == "b" and time.perf_counter() - t < 1.0
        assert not other.done()  # not woken: its class's next read is 30 s away
        watch.wake("GHJKMN")
        assert await other == "h"

    run_apart(scenario())


def test_a_watch_keeps_going_when_a_read_fails():
    calls = []

    def mark(code, topic):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug in a store")
        return "fine"

    async def scenario():
        watch = Watch(mark, check_s=0.02)
        return await watch.wait("ABCDEF", "pacing", "fine", timeout=1), await watch.wait("ABCDEF", "pacing", "away")

    assert run_apart(scenario()) == ("away", "fine")


@pytest.fixture
def served(tmp_path, monkeypatch):
    """The route on a Starlette app as ``st.App`` mounts it, reading a SQLite store the way the pages' is handed."""
    store = SQLiteStore(tmp_path / "class.sqlite3")
    monkeypatch.setattr(class_events, "_store", None)
    class_events.use_store(store)  # as the pages' store is handed to the route
    monkeypatch.setattr(class_events, "_watch", None)
    monkeypatch.setattr(class_events, "CHECK_S", 5.0)  # a read every 5 s: only a write's wake-up can be quick
    monkeypatch.setattr(class_events, "SERVED", False)
    app = Starlette(routes=class_events.routes())
    assert class_events.SERVED
    with TestClient(app) as client:
        yield client, store


def test_the_route_sends_the_new_mark_when_the_teacher_moves_and_again_on_each_move(served):
    client, store = served
    code = store.start_class()
    since = store.mark(code, "pacing")
    with client.websocket_connect(f"{class_events.PATH}?code={code.lower()}&topic=pacing&since={since}") as ws:
        steps = []

        def teacher():
            for step in (2, 3):
                time.sleep(0.3)
                store.set_pacing(code, step, True)
                steps.append(store.mark(code, "pacing"))

        threading.Thread(target=teacher).start()
        t = time.perf_counter()
        first, second = ws.receive_text(), ws.receive_text()
        took = time.perf_counter() - t
    assert [first, second] == steps and len(set(steps)) == 2
    assert took < 2.0  # the writes woke the reader at once: at a read every 5 s the second would come after 5 s


def test_a_write_from_another_server_reaches_the_page_at_the_next_read(served, tmp_path, monkeypatch):
    client, store = served
    monkeypatch.setattr(class_events, "CHECK_S", 0.2)
    code = store.start_class()
    since = store.mark(code, "answers")
    other = SQLiteStore(store.path)  # another server's store on the same database: it wakes nobody here
    with client.websocket_connect(f"{class_events.PATH}?code={code}&topic=answers&since={since}") as ws:
        threading.Timer(0.3, other.join, (code, "m1", "Jan", "nl")).start()
        assert ws.receive_text() == store.mark(code, "answers") != since


def test_the_route_refuses_what_is_not_a_class_question_and_a_server_full_of_pages(served, monkeypatch):
    client, store = served
    code = store.start_class()
    for query in ("code=AB&topic=pacing", f"code={code}&topic=nicknames", f"code={code}&topic=pacing&since={'x' * 65}"):
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(f"{class_events.PATH}?{query}") as ws:
                ws.receive_text()
        assert refused.value.code == 1008, query
    monkeypatch.setattr(class_events, "MAX_WAITING", 1)
    with client.websocket_connect(f"{class_events.PATH}?code={code}&topic=answers&since=") as first:
        assert first.receive_text() == store.mark(code, "answers")  # since was empty: the mark at once
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(f"{class_events.PATH}?code={code}&topic=pacing") as ws:
                ws.receive_text()
        assert refused.value.code == 1013
