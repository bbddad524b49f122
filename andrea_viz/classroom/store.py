"""Where a class's answers live: one interface, two engines.

SQLite (the standard library's, WAL) in one file, ``class.sqlite3``, in ``$ANDREA_VIZ_DATA_DIR`` (default
``$XDG_DATA_HOME/andrea_viz``, else ``~/.local/share/andrea_viz``; never the evictable map cache), so a restart
loses nothing; or PostgreSQL when ``ANDREA_VIZ_CLASS_DB=postgresql://…`` (psycopg 3), so that one class spans
several servers. Tables: classes, members, answers (one row per learner and question: the latest answer),
pacing. A class nobody ended is deleted ``$ANDREA_VIZ_CLASS_RETENTION_HOURS`` (default 24) after it started.

When the database cannot be reached (a locked, full or corrupt file; PostgreSQL gone) an answer is kept in this
server's memory (at most MAX_PENDING) and written once the database answers again; what did not fit is counted
as lost. Every failure is a ClassError with one sentence.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import QueryError, choices
from ..i18n import Msg
from .codes import new_code

RETENTION_HOURS = 24.0
MAX_PENDING = 5_000  # answers kept in memory while the database is away
DB_FILE = "class.sqlite3"
MARK_TOPICS = ("pacing", "answers")  # what a page waits on: the presenter's step, or the class's answers and members


class ClassError(QueryError):
    """A class could not be started, joined, read or written: the sentence says why and what to do."""


@dataclass(frozen=True)
class Answer:
    member: str
    question: str
    answer: str
    category: str
    time: float


@dataclass(frozen=True)
class Member:
    member: str
    nickname: str
    language: str


@dataclass(frozen=True)
class Pacing:
    step: int
    follow: bool


def data_dir() -> Path:
    """The folder of the SQLite file: ``$ANDREA_VIZ_DATA_DIR``, else ``$XDG_DATA_HOME/andrea_viz``, else
    ``~/.local/share/andrea_viz``."""
    chosen = os.environ.get("ANDREA_VIZ_DATA_DIR", "").strip()
    if chosen:
        return Path(chosen).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "andrea_viz"


def retention_hours() -> float:
    try:
        hours = float(os.environ.get("ANDREA_VIZ_CLASS_RETENTION_HOURS", RETENTION_HOURS))
    except ValueError:
        return RETENTION_HOURS
    return hours if hours > 0 else RETENTION_HOURS


SCHEMA = (
    "CREATE TABLE IF NOT EXISTS classes (code TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, "
    "ended DOUBLE PRECISION)",
    "CREATE TABLE IF NOT EXISTS members (class TEXT NOT NULL, member TEXT NOT NULL, nickname TEXT NOT NULL, "
    "language TEXT NOT NULL, PRIMARY KEY (class, member))",
    "CREATE TABLE IF NOT EXISTS answers (class TEXT NOT NULL, member TEXT NOT NULL, question TEXT NOT NULL, "
    "answer TEXT NOT NULL, category TEXT NOT NULL, time DOUBLE PRECISION NOT NULL, "
    "PRIMARY KEY (class, member, question))",
    "CREATE TABLE IF NOT EXISTS pacing (class TEXT PRIMARY KEY, step INTEGER NOT NULL, follow INTEGER NOT NULL)",
)
TABLES = ("answers", "members", "pacing", "classes")  # children first


class ClassStore:
    """The interface both engines share; the SQL is the same text, only the placeholder and the connection differ.
    Every method opens its own short connection: safe from any Streamlit session's thread."""

    placeholder = "?"
    where = ""  # the engine's name in sentences

    def __init__(self) -> None:
        self.on_write: Callable[[str], None] | None = None  # told the class's code after each write (``web.class_events``)
        self._pending: deque[tuple] = deque()
        self._lost = 0
        self._lock = threading.Lock()
        self._ready = False

    # -- the engine's part
    def _connect(self):
        raise NotImplementedError

    def _failure(self, exc: Exception) -> ClassError | None:
        """The sentence for an engine error, or None when it is not the database's fault (a bug: re-raised)."""
        raise NotImplementedError

    # -- plumbing
    def _run(self, statements: list[tuple[str, tuple]], fetch: bool = False) -> list[tuple]:
        sql_rows: list[tuple] = []
        try:
            con = self._connect()
            try:
                cur = con.cursor()
                if not self._ready:
                    for s in SCHEMA:
                        cur.execute(s)
                    self._ready = True
                for sql, args in statements:
                    cur.execute(sql.replace("?", self.placeholder), args)
                    if fetch:
                        sql_rows = [tuple(r) for r in cur.fetchall()]
                con.commit()
            finally:
                con.close()
        except Exception as exc:  # noqa: BLE001 - each engine names its own errors in _failure
            err = self._failure(exc)
            if err is None:
                raise
            raise err from exc
        return sql_rows

    def _flush(self) -> None:
        """Write the answers kept in memory, oldest first; stop at the first failure (they stay kept)."""
        with self._lock:
            while self._pending:
                self._run([self._pending[0]])
                self._pending.popleft()

    @property
    def pending(self) -> int:
        """Answers kept in memory, waiting for the database."""
        return len(self._pending)

    @property
    def lost(self) -> int:
        """Answers dropped because more than MAX_PENDING waited."""
        return self._lost

    # -- classes
    def start_class(self, now: float | None = None) -> str:
        now = time.time() if now is None else now
        self.purge_expired(now)
        for _try in range(5):
            code = new_code()
            if not self._run([("SELECT code FROM classes WHERE code = ?", (code,))], fetch=True):
                self._run([("INSERT INTO classes (code, created, ended) VALUES (?, ?, NULL)", (code, now))])
                return code
        raise ClassError(Msg("No free class code was found in five tries; try again."))

    def is_open(self, code: str, now: float | None = None) -> bool:
        """The class exists, was not ended and is younger than the retention time."""
        now = time.time() if now is None else now
        rows = self._run([("SELECT created, ended FROM classes WHERE code = ?", (code,))], fetch=True)
        return bool(rows) and rows[0][1] is None and rows[0][0] > now - retention_hours() * 3600

    def end_class(self, code: str, now: float | None = None) -> None:
        """Delete the class's members, answers and pacing, and mark it ended (a code typed later is refused)."""
        now = time.time() if now is None else now
        self._run([(f"DELETE FROM {t} WHERE class = ?", (code,)) for t in TABLES[:-1]]
                  + [("UPDATE classes SET ended = ? WHERE code = ?", (now, code))])
        with self._lock:
            self._pending = deque(p for p in self._pending if p[1][0] != code)
        self._written(code)

    def purge_expired(self, now: float | None = None) -> int:
        """Delete every class started more than the retention time ago (ended or not), with its rows."""
        now = time.time() if now is None else now
        cutoff = now - retention_hours() * 3600
        old = [r[0] for r in self._run([("SELECT code FROM classes WHERE created < ?", (cutoff,))], fetch=True)]
        for code in old:
            self._run([(f"DELETE FROM {t} WHERE {'code' if t == 'classes' else 'class'} = ?", (code,))
                       for t in TABLES])
        return len(old)

    # -- members
    def join(self, code: str, member: str, nickname: str, language: str) -> None:
        self._run([("INSERT INTO members (class, member, nickname, language) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (class, member) DO UPDATE SET nickname = excluded.nickname, "
                    "language = excluded.language", (code, member, nickname, language))])
        self._written(code)

    def members(self, code: str) -> list[Member]:
        rows = self._run([("SELECT member, nickname, language FROM members WHERE class = ? ORDER BY member",
                           (code,))], fetch=True)
        return [Member(*r) for r in rows]

    # -- answers
    def record(self, code: str, member: str, question: str, answer: str, category: str,
               now: float | None = None) -> bool:
        """Store a learner's latest answer to a question (nothing for a class that was ended or purged). True when
        written; False when the database is away and
        the answer is kept in memory (``pending``) to be written later; raises ClassError when it was kept only
        by dropping the oldest kept answer (``lost``)."""
        now = time.time() if now is None else now
        write = ("INSERT INTO answers (class, member, question, answer, category, time) SELECT ?, ?, ?, ?, ?, ? "
                 "WHERE EXISTS (SELECT 1 FROM classes WHERE code = ? AND ended IS NULL) "  # none for an ended class
                 "ON CONFLICT (class, member, question) DO UPDATE SET answer = excluded.answer, "
                 "category = excluded.category, time = excluded.time",
                 (code, member, question, answer, category, float(now), code))
        try:
            self._flush()
            self._run([write])
            return True
        except ClassError:
            with self._lock:
                self._pending.append(write)
                lost = len(self._pending) > MAX_PENDING
                if lost:
                    self._pending.popleft()
                    self._lost += 1
            if lost:
                raise ClassError(Msg("The class's database is away and more than {n:,} answers wait on this "
                                 "server: the oldest was lost.", n=MAX_PENDING)) from None
            return False
        finally:
            self._written(code)  # an answer stored, or one more waiting on this server: either changes the mark

    def answers(self, code: str) -> list[Answer]:
        """Every learner's latest answer to each question, oldest first (after writing what waited)."""
        try:
            self._flush()
        except ClassError:
            pass  # read what is there; the kept answers are written on a later call
        rows = self._run([("SELECT member, question, answer, category, time FROM answers WHERE class = ? "
                           "ORDER BY time, member, question", (code,))], fetch=True)
        return [Answer(*r) for r in rows]

    # -- pacing
    def set_pacing(self, code: str, step: int, follow: bool) -> None:
        self._run([("INSERT INTO pacing (class, step, follow) VALUES (?, ?, ?) ON CONFLICT (class) DO UPDATE SET "
                    "step = excluded.step, follow = excluded.follow", (code, int(step), int(bool(follow))))])
        self._written(code)

    def pacing(self, code: str) -> Pacing | None:
        """The presenter's step and whether the class follows it (the answers this server kept while the database
        was away written first, as by every read)."""
        try:
            self._flush()
        except ClassError:
            pass  # the read below says the database is still away
        rows = self._run([("SELECT step, follow FROM pacing WHERE class = ?", (code,))], fetch=True)
        return Pacing(int(rows[0][0]), bool(rows[0][1])) if rows else None

    def _written(self, code: str) -> None:
        if self.on_write is not None:
            self.on_write(code)

    # -- what a waiting page compares
    def mark(self, code: str, topic: str) -> str:
        """A short opaque string that changes when ``topic`` of the class changes: "pacing" (the presenter's step,
        "follow me", the class ended) or "answers" (any answer given or changed, a learner joined, answers waiting on
        this server). Written first, as every read does, is what waited for the database; "away" while it cannot be
        read. It says nothing of the answers themselves (a hash), so it may be handed to anyone holding the code."""
        choices("topic", topic, MARK_TOPICS)
        try:
            self._flush()
        except ClassError:
            return "away"
        if topic == "pacing":
            sql = "SELECT step, follow FROM pacing WHERE class = ?", (code,)
        else:
            sql = ("SELECT COUNT(*), MAX(time), (SELECT COUNT(*) FROM members WHERE class = ?) FROM answers "
                   "WHERE class = ?", (code, code))
        try:
            rows = self._run([sql], fetch=True)
        except ClassError:
            return "away"
        seen = repr((rows, self.pending, self.lost) if topic == "answers" else rows)
        return hashlib.blake2b(f"{code}:{seen}".encode(), digest_size=8).hexdigest()

    def count_rows(self, code: str) -> dict[str, int]:
        """Rows that name this class, per table (what "end the class" must leave at 0, the class row aside)."""
        out = {}
        for t in TABLES:
            col = "code" if t == "classes" else "class"
            out[t] = int(self._run([(f"SELECT COUNT(*) FROM {t} WHERE {col} = ?", (code,))], fetch=True)[0][0])
        return out


class SQLiteStore(ClassStore):
    where = "SQLite"

    def __init__(self, path: str | Path | None = None, timeout: float = 2.0):
        super().__init__()
        self.path = Path(path) if path is not None else data_dir() / DB_FILE
        self.timeout = timeout

    def _connect(self):
        self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=self.timeout)
        try:
            con.execute("PRAGMA journal_mode=WAL")
        except Exception:
            con.close()
            raise
        return con

    def _failure(self, exc: Exception) -> ClassError | None:
        text = str(exc).lower()
        if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
            return ClassError(Msg("The class's database file {path} is locked by another program: answers wait on this "
                              "server until it is free.", path=str(self.path)))
        if (isinstance(exc, sqlite3.OperationalError) and "full" in text
                or isinstance(exc, OSError) and getattr(exc, "errno", None) == 28):
            return ClassError(Msg("The disk that holds the class's database file {path} is full: answers wait on this "
                              "server until there is room.", path=str(self.path)))
        if isinstance(exc, sqlite3.DatabaseError) and ("not a database" in text or "malformed" in text):
            return ClassError(Msg("The class's database file {path} is damaged (not a SQLite database): move it away "
                              "and start the class again.", path=str(self.path)))
        if isinstance(exc, sqlite3.OperationalError | OSError):
            return ClassError(Msg("The class's database file {path} cannot be opened ({reason}).", path=str(self.path),
                              reason=str(exc)))
        return None


class PostgresStore(ClassStore):
    placeholder = "%s"
    where = "PostgreSQL"

    def __init__(self, url: str, timeout: float = 3.0):
        super().__init__()
        self.url, self.timeout = url, timeout

    def _connect(self):
        import psycopg  # only for this engine

        return psycopg.connect(self.url, connect_timeout=max(1, int(self.timeout)))

    def _failure(self, exc: Exception) -> ClassError | None:
        import psycopg  # only for this engine

        if isinstance(exc, psycopg.OperationalError):
            self._ready = False  # a new server may need the tables again
            return ClassError(Msg("The class's PostgreSQL server cannot be reached: answers wait on this server until "
                              "it is back."))
        return None


def open_store(url: str | None = None) -> ClassStore:
    """The store ``ANDREA_VIZ_CLASS_DB`` names (``postgresql://…``), else SQLite in the data folder."""
    url = (os.environ.get("ANDREA_VIZ_CLASS_DB", "") if url is None else url).strip()
    if url.startswith(("postgresql://", "postgres://")):
        return PostgresStore(url)
    if url:
        raise ClassError(Msg("ANDREA_VIZ_CLASS_DB must start with postgresql:// (or be unset for SQLite); it is “{url}”.",
                         url=url.split("@")[-1]))
    return SQLiteStore()
