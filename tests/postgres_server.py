"""A real PostgreSQL server for tests, started on loopback in a temp folder: Debian's postgresql (initdb and pg_ctl from
/usr/lib/postgresql/N/bin, the newest, or $ANDREA_VIZ_PG_BIN), which .ci/run installs. As root its tools run as the postgres user
(PostgreSQL refuses root)."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

def _pg_bin() -> Path:
    """$ANDREA_VIZ_PG_BIN, else the newest /usr/lib/postgresql/N/bin (Debian's layout; 15 on bookworm)."""
    if os.environ.get("ANDREA_VIZ_PG_BIN"):
        return Path(os.environ["ANDREA_VIZ_PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parts[-3]) if
                   p.parts[-3].isdigit() else 0)
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


PG_BIN = _pg_bin()


def _as_postgres(args: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its tools as the postgres user."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PgServer:
    def __init__(self, root: Path):
        assert (PG_BIN / "pg_ctl").is_file(), f"PostgreSQL's pg_ctl is not in {PG_BIN}: apt-get install -y postgresql"
        self.root, self.data, self.port = root, root / "data", _free_port()
        if os.geteuid() == 0:  # a folder of the postgres user's own (pytest's tmp_path is root's alone)
            pw = pwd.getpwnam("postgres")
            os.chown(root, pw.pw_uid, pw.pw_gid)
        subprocess.run(_as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
                                     "--no-sync"]), check=True, capture_output=True)

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l",
                                     str(self.root / "log"), "-w", "-t", "60", "start"]), check=True,
                       capture_output=True)

    def stop(self) -> None:
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"]),
                       capture_output=True)

    def url(self, db: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{db}"

    def new_database(self) -> str:
        """The URL of a fresh, empty database on this server."""
        db = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f"CREATE DATABASE {db}")
        return self.url(db)


@contextmanager
def running_server() -> Iterator[PgServer]:
    server = PgServer(Path(tempfile.mkdtemp(prefix="andrea-viz-pg-")))
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)
