"""A real PostgreSQL server for tests, started on loopback in a temp folder: Debian's postgresql (initdb and pg_ctl from
/usr/lib/postgresql/N/bin, the newest, or $ANDREA_VIZ_PG_BIN), which .ci/run installs. As root its tools run as the
postgres user (PostgreSQL refuses root). The code lives in andrea_viz.testing_harness, which ``bench-class --store
postgresql`` shares (a benchmark cannot import the tests)."""

from __future__ import annotations

from andrea_viz.testing_harness import PG_BIN, PgServer
from andrea_viz.testing_harness import running_postgres as running_server

__all__ = ["PG_BIN", "PgServer", "running_server"]
