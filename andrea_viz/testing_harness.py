"""What the browser tests and the benchmarks both need to run the real app and measure it: the app served by
``streamlit run`` in a process of its own, the flags Debian's headless Chromium runs under, and a process's resident
memory (now, and its peak since a reset) read from Linux's /proc; and a real PostgreSQL server on loopback (Debian's
``postgresql``) for the class store's tests and ``bench-class --store postgresql``.

One module, in the package rather than under tests/: the benchmarks (``andrea_viz/bench/``, run as
``python -m andrea_viz bench-...`` from an installed package) import it, and they cannot import the tests. It imports
neither streamlit nor playwright: it starts the one and hands flags to the other (psycopg only to make a database).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]  # the checkout: streamlit_app.py and pages/ beside the package
# Chromium keeps the last of a switch given twice, so a --disable-features of ours would replace the one Playwright
# passes: ours repeats Playwright's own list (1.65's chromium launcher; tests/e2e/test_chromium_flags.py checks that
# the browser still disables every feature Playwright asks it to) and adds the features below.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying",
    "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Headless Chromium 156 still builds each window's address bar: with every new page, a renderer of its own
# (--top-chrome-webui) runs the omnibox popup's WebUI scripts, for a window nobody sees. About a quarter of the CPU a
# page load costs (2.38 against 1.74 CPU-seconds per page on 2 cores, six pages alternating, six rounds).
NO_TOP_CHROME_WEBUI = ("WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup", "PreloadTopChromeWebUI")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + NO_TOP_CHROME_WEBUI),
]
VIEWPORT = {"width": 1400, "height": 1000}  # a desktop's browser window: the pages the tests and benchmarks open


def chromium_exe() -> str:
    """Debian's chromium, the one browser the tests and benchmarks drive (Playwright downloads none)."""
    exe = shutil.which("chromium")
    if exe is None:
        raise RuntimeError("Debian's chromium is not installed: apt-get install -y chromium")
    return exe


def status(pid: int, name: str) -> int:
    """A field of /proc/<pid>/status in bytes (VmRSS: resident now; VmHWM: the peak since the last reset)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(name + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(name)


def cpu_seconds(pid: int) -> float:
    """The CPU time the process has used so far, user and system, all its threads."""
    t = psutil.Process(pid).cpu_times()
    return t.user + t.system


def machine_busy() -> float:
    """The CPU time every core of the machine has spent busy since boot: all but idle and iowait (Linux counts a
    guest's time in user already)."""
    t = psutil.cpu_times()
    return t.user + t.nice + t.system + getattr(t, "irq", 0.0) + getattr(t, "softirq", 0.0) + getattr(t, "steal", 0.0)


def descendants(pid: int) -> list[int]:
    """The processes under ``pid``, children first then theirs (from each process's parent in /proc/<pid>/stat)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def reset_peak(pid: int) -> None:
    """Set the process's peak resident size (VmHWM) back to its resident size now (5: Linux's clear_refs code)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


class PeakResident:
    """``with PeakResident() as m: ...``: ``m.bytes`` is how far the process's (this one's unless ``pid``) resident
    memory rose, at its peak, above where it stood when the block began (numpy's and torch's allocations count, not
    only Python's)."""

    def __init__(self, pid: int | None = None):
        self.pid = os.getpid() if pid is None else pid

    def __enter__(self) -> PeakResident:
        reset_peak(self.pid)
        self.base = status(self.pid, "VmRSS")
        return self

    def __exit__(self, *exc) -> bool:
        self.bytes = status(self.pid, "VmHWM") - self.base
        return False


def settle(pid: int, at_most: int, within_s: float, poll_s: float = 1.0) -> int:
    """The process's resident bytes once they are at most ``at_most``, polled every ``poll_s``; after ``within_s``
    without that, the resident bytes then (for the caller's assertion to name)."""
    deadline = time.monotonic() + within_s
    while True:
        now = status(pid, "VmRSS")
        if now <= at_most or time.monotonic() >= deadline:
            return now
        time.sleep(poll_s)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve(env: dict[str, str] | None = None, log_dir: Path | None = None, wait_s: float = 90,
          script: str = "streamlit_app.py"):
    """The app in its own ``streamlit run`` process: yields (url, pid) once /_stcore/health answers. With ``log_dir``
    the server's output goes to ``streamlit-PORT.log`` there (a file: a pipe nobody reads would block the server once
    it filled), and a server that never answers is reported with the end of its log. ``script``: another Streamlit
    script to serve instead of the app (a path from the checkout's root)."""
    port = free_port()
    log = None if log_dir is None else Path(log_dir) / f"streamlit-{port}.log"
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
    out = open(log or os.devnull, "w")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true", "--server.port",
         str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + wait_s
        while True:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    out.flush()
                    tail = "" if log is None else ":\n" + log.read_text(errors="replace")[-4000:]
                    raise RuntimeError(f"streamlit did not answer /_stcore/health within {wait_s:.0f} s{tail}") from None
                time.sleep(0.3)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()


# ---- a real PostgreSQL server on loopback ------------------------------------------------------------------------

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


class PgServer:
    """Debian's PostgreSQL in a folder of its own (initdb, trust on loopback, fsync off), on a free port."""

    def __init__(self, root: Path):
        if not (PG_BIN / "pg_ctl").is_file():
            raise RuntimeError(f"PostgreSQL's pg_ctl is not in {PG_BIN}: apt-get install -y postgresql")
        self.root, self.data, self.port = root, root / "data", free_port()
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
        import psycopg  # only here: the rest of the harness needs no database driver

        db = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url(), autocommit=True) as con:
            con.execute(f"CREATE DATABASE {db}")
        return self.url(db)


@contextlib.contextmanager
def running_postgres() -> Iterator[PgServer]:
    """A PostgreSQL server started in a temporary folder, stopped and removed afterwards."""
    server = PgServer(Path(tempfile.mkdtemp(prefix="andrea-viz-pg-")))
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)
