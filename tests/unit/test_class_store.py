"""The class store against both real engines: SQLite in a temp folder and a PostgreSQL server started here on
loopback (tests/postgres_server.py: Debian's postgresql, which .ci/run installs)."""

from __future__ import annotations

import sqlite3

import pytest

from andrea_viz.classroom import codes
from andrea_viz.classroom.store import ClassError, PostgresStore, SQLiteStore, data_dir, open_store
from tests.postgres_server import running_server

@pytest.fixture(scope="module")
def pg_server():
    with running_server() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        return SQLiteStore(tmp_path / "class.sqlite3", timeout=0.2)
    server = request.getfixturevalue("pg_server")
    return PostgresStore(server.new_database())  # a database per test: nothing leaks from one test to the next


def test_a_class_holds_members_answers_and_pacing(store):
    code = store.start_class()
    assert codes.well_formed(code) and store.is_open(code)
    store.join(code, "m1", "Ana", "pt-BR")
    store.join(code, "m2", "Jan", "nl")
    assert store.record(code, "m1", "sizing:ANDREA-12M", "4353", "v_plus_d", now=100.0) is True
    assert store.record(code, "m2", "sizing:ANDREA-12M", "5571840", "right", now=101.0) is True
    assert store.record(code, "m1", "sizing:ANDREA-12M", "5571840", "right", now=102.0) is True  # a second try
    got = store.answers(code)
    assert [(a.member, a.answer, a.category) for a in got] == [("m2", "5571840", "right"), ("m1", "5571840", "right")]
    assert [(m.member, m.nickname, m.language) for m in store.members(code)] == [("m1", "Ana", "pt-BR"),
                                                                                 ("m2", "Jan", "nl")]
    assert store.pacing(code) is None
    store.set_pacing(code, 4, True)
    store.set_pacing(code, 5, True)
    assert store.pacing(code).step == 5 and store.pacing(code).follow is True


def test_classes_do_not_see_each_other(store):
    a, b = store.start_class(), store.start_class()
    assert a != b
    store.join(a, "m1", "", "en")
    store.record(a, "m1", "q", "x", "other")
    assert store.answers(b) == [] and store.members(b) == []


def test_ending_a_class_deletes_its_rows_and_refuses_the_code(store):
    code, other = store.start_class(), store.start_class()
    for c in (code, other):
        store.join(c, "m1", "Ana", "en")
        store.record(c, "m1", "q", "x", "other")
        store.set_pacing(c, 2, False)
    store.end_class(code)
    assert store.count_rows(code) == {"answers": 0, "members": 0, "pacing": 0, "classes": 1}
    assert not store.is_open(code)
    assert store.count_rows(other) == {"answers": 1, "members": 1, "pacing": 1, "classes": 1}
    store.record(code, "m1", "q2", "late", "other")  # a learner's tab that did not notice the end
    assert store.count_rows(code)["answers"] == 0


def test_a_class_nobody_ended_is_deleted_after_the_retention_time(store, monkeypatch):
    monkeypatch.setenv("ANDREA_VIZ_CLASS_RETENTION_HOURS", "2")
    old = store.start_class(now=1_000.0)
    store.join(old, "m1", "", "en")
    store.record(old, "m1", "q", "x", "other", now=1_000.0)
    young = store.start_class(now=1_000.0 + 3600)
    assert not store.is_open(old, now=1_000.0 + 2 * 3600 + 1) and store.is_open(young, now=1_000.0 + 2 * 3600 + 1)
    assert store.purge_expired(now=1_000.0 + 2 * 3600 + 1) == 1
    assert store.count_rows(old) == {"answers": 0, "members": 0, "pacing": 0, "classes": 0}
    assert store.count_rows(young)["classes"] == 1


def test_a_restart_loses_nothing(store):
    code = store.start_class()
    store.join(code, "m1", "Ana", "en")
    store.record(code, "m1", "q", "x", "other")
    again = SQLiteStore(store.path) if isinstance(store, SQLiteStore) else PostgresStore(store.url)  # a new process
    assert [a.answer for a in again.answers(code)] == ["x"] and again.is_open(code)


def test_the_sqlite_file_lies_in_the_data_folder_not_the_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("ANDREA_VIZ_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ANDREA_VIZ_CLASS_DB", raising=False)
    s = open_store()
    s.start_class()
    assert s.path == tmp_path / "data" / "class.sqlite3" and s.path.is_file()
    with sqlite3.connect(s.path) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    monkeypatch.delenv("ANDREA_VIZ_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "andrea_viz"


def test_a_url_of_another_engine_is_refused_with_a_sentence():
    with pytest.raises(ClassError, match="must start with postgresql://"):
        open_store("mysql://u:secret@host/db")
    with pytest.raises(ClassError) as e:
        open_store("mysql://u:secret@host/db")
    assert "secret" not in str(e.value)  # the password is not echoed


def test_a_locked_sqlite_file_keeps_the_answer_and_writes_it_later(tmp_path):
    store = SQLiteStore(tmp_path / "class.sqlite3", timeout=0.1)
    code = store.start_class()
    store.join(code, "m1", "", "en")
    holder = sqlite3.connect(store.path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    assert store.record(code, "m1", "q", "x", "other") is False
    assert store.pending == 1
    with pytest.raises(ClassError, match="locked by another program"):
        store.join(code, "m2", "", "en")
    assert [m.member for m in store.members(code)] == ["m1"]  # WAL: reading goes on while another program writes
    holder.execute("COMMIT")
    holder.close()
    assert [a.answer for a in store.answers(code)] == ["x"] and store.pending == 0


def test_a_corrupt_sqlite_file_is_one_sentence(tmp_path):
    path = tmp_path / "class.sqlite3"
    path.write_bytes(b"this is not a database at all, only text " * 200)
    store = SQLiteStore(path)
    with pytest.raises(ClassError, match="damaged"):
        store.start_class()
    assert store.record("ABCDEF", "m1", "q", "x", "other") is False and store.pending == 1


def kept_while_away(tmp_path, answer: str):
    """(a store that started a class, the class's code, a second store on the same file that kept ``answer`` while
    the database could not be opened (a folder where the file was), now back)."""
    path = tmp_path / "class.sqlite3"
    good = SQLiteStore(path)
    code = good.start_class()
    good.join(code, "m1", "", "en")
    moved = tmp_path / "class.sqlite3.away"
    path.rename(moved)
    path.mkdir()  # a folder where the file was: the database cannot be opened
    away = SQLiteStore(path)
    assert away.record(code, "m1", "q", answer, "other") is False and away.pending == 1
    path.rmdir()
    moved.rename(path)
    return good, code, away


def test_an_answer_kept_while_the_database_was_away_is_written_once_it_is_back(tmp_path):
    _good, code, away = kept_while_away(tmp_path, "kept")
    assert [a.answer for a in away.answers(code)] == ["kept"] and away.pending == 0


def test_a_kept_answer_is_written_by_the_next_follow_poll_for_a_teacher_on_another_server(tmp_path):
    """Two servers on one database: B kept an answer while it was away; once it is back, B's learners' next poll of
    the pacing writes it, and the teacher's server A reads it (no learner of B answered again)."""
    a, code, b = kept_while_away(tmp_path, "kept on B")
    assert b.pacing(code) is None and b.pending == 0
    assert [x.answer for x in a.answers(code)] == ["kept on B"]


def test_answers_beyond_the_memory_limit_are_said_lost(tmp_path, monkeypatch):
    from andrea_viz.classroom import store as store_module

    monkeypatch.setattr(store_module, "MAX_PENDING", 2)
    path = tmp_path / "class.sqlite3"
    path.write_bytes(b"not a database " * 200)
    store = SQLiteStore(path)
    assert store.record("ABCDEF", "m1", "q1", "x", "other") is False
    assert store.record("ABCDEF", "m1", "q2", "x", "other") is False
    with pytest.raises(ClassError, match="the oldest was lost"):
        store.record("ABCDEF", "m1", "q3", "x", "other")
    assert store.pending == 2 and store.lost == 1


def test_postgresql_gone_mid_class_keeps_the_answers_until_it_is_back(pg_server):
    store = PostgresStore(pg_server.new_database(), timeout=1)
    code = store.start_class()
    store.join(code, "m1", "", "en")
    store.record(code, "m1", "q1", "before", "other")
    pg_server.stop()
    try:
        assert store.record(code, "m1", "q2", "during", "other") is False and store.pending == 1
        with pytest.raises(ClassError, match="PostgreSQL server cannot be reached"):
            store.members(code)
    finally:
        pg_server.start()
    assert sorted(a.answer for a in store.answers(code)) == ["before", "during"] and store.pending == 0


def test_two_servers_on_one_postgresql_share_a_class(pg_server):
    url = pg_server.new_database()
    one, two = PostgresStore(url), PostgresStore(url)
    code = one.start_class()
    two.join(code, "m1", "", "en")
    two.record(code, "m1", "q", "x", "other")
    assert two.is_open(code) and [a.answer for a in one.answers(code)] == ["x"]


def test_codes_are_six_of_thirty_one_symbols_and_random():
    assert len(set(codes.CODE_ALPHABET)) >= 30 and codes.CODE_LENGTH >= 6
    drawn = {codes.new_code() for _i in range(2_000)}
    assert len(drawn) == 2_000 and all(codes.well_formed(c) for c in drawn)
    assert set("".join(drawn)) == set(codes.CODE_ALPHABET)  # every symbol is used
    assert codes.normalise_code(" k7q-x4m ") == "K7QX4M" and not codes.well_formed("K7QX4")


def test_the_eleventh_failed_join_in_a_minute_is_refused():
    lim = codes.JoinLimiter()
    for i in range(10):
        assert lim.blocked_for("1.2.3.4", now=100.0 + i) == 0
        lim.failed("1.2.3.4", now=100.0 + i)
    assert lim.blocked_for("1.2.3.4", now=110.0) == pytest.approx(50.0)
    assert lim.blocked_for("5.6.7.8", now=110.0) == 0  # another client is not held back
    assert lim.blocked_for("1.2.3.4", now=160.5) == 0  # the first failure is a minute old


def test_failed_joins_count_against_the_client_behind_a_local_proxy():
    assert codes.client_of("203.0.113.5", "198.51.100.1") == "203.0.113.5"  # no proxy: a header is not believed
    assert codes.client_of("127.0.0.1", "10.0.0.9, 198.51.100.7") == "198.51.100.7"  # the proxy's own entry
    assert codes.client_of("127.0.0.1", None) == "127.0.0.1" and codes.client_of(None, None) is None
