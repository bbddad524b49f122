"""Build the kernels with ``torch.utils.cpp_extension.load`` and cache them; a build never makes anyone wait forever.

Every function returns ``(module, "")`` or ``(None, reason)``: a failure never raises. A reason is a ``Reason``: an
English sentence (for the command line) that also carries its ``key`` and fields, so the app translates it
(``andrea_viz.forward_pass`` maps every key to a msgid). CUDA is attempted only when ``torch.cuda.is_available()``.

Builds of one folder take turns through a lock of this loader's own, ``OWN_LOCK`` in the build folder, holding the
builder's pid. torch's own lock (``lock``, whose ``FileBaton.wait()`` polls with no time limit) is only ever met
by the holder of ours, so a ``lock`` found then was left by a killed build and is removed. Waiting for ours is
bounded: a lock whose pid is dead, or older than ``STALE_LOCK_SECONDS``, is removed while waiting, and after
``WAIT_SECONDS`` the wait gives up with a reason.

``start_background_build`` starts a process (lowest priority) that builds both kernels, as the app's server does
when it starts; while it builds, ``building(kind)`` is True and the app uses torch meanwhile.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
CPU_SOURCES = ["binding.cpp", "embed_forward_cpu.cpp"]
CUDA_SOURCES = ["binding.cpp", "embed_forward_cpu.cpp", "embed_forward.cu"]
HEADERS = ["embed_forward.h", "embed_convert.h", "embed_forward_thread.h"]
KINDS = ("cpu", "cuda")
OWN_LOCK = "andrea_build.pid"  # "<pid> <host>": the process building into the folder now
STALE_LOCK_SECONDS = 900  # a build lock older than this is a hung build's (a cold CPU build on 2 loaded cores: ~3 min)
UNWRITTEN_LOCK_SECONDS = 5  # a lock with no pid in it yet, older than this, was left by a process killed as it made it
WAIT_SECONDS = 1200.0  # the longest load_kernel waits for another process's build
POLL_SECONDS = 0.2
BUILD_NICE = 19
BUILD_COMMAND = "import cuda_ext.loader as l; raise SystemExit(l.build_all())"
_results: dict[str, tuple[ModuleType | None, str]] = {}
_lock = threading.Lock()
_background: dict[str, subprocess.Popen | None] = {"process": None}

TEXTS = {  # Reason key -> the English sentence; andrea_viz.forward_pass holds the msgid of each
    "no_torch": "torch is not importable: {detail}",
    "cpu_torch": "no GPU: torch.cuda.is_available() is False (this torch is a CPU build)",
    "no_device": "no GPU: torch.cuda.is_available() is False (no CUDA device is visible)",
    "build_failed": "the {kind} kernel could not be built: {detail}",
    "building": "the {kind} kernel is being built by another process (pid {pid})",
    "wait_timeout": "waited {seconds:.0f} s for another process (pid {pid}) to build the {kind} kernel; gave up",
}


class Reason(str):
    """Why a kernel is not available: the English sentence, with ``key`` and ``fields`` for a translation."""

    key: str
    fields: dict

    def __new__(cls, key: str, **fields) -> Reason:
        self = super().__new__(cls, TEXTS[key].format(**fields))
        self.key, self.fields = key, fields
        return self


def _source_hash(sources: list[str]) -> str:
    h = hashlib.sha256()
    for s in [*sources, *HEADERS]:
        h.update((HERE / s).read_bytes())
    return h.hexdigest()[:12]


def build_root() -> Path:
    default = Path.home() / ".cache" / "torch_extensions"
    return Path(os.environ.get("TORCH_EXTENSIONS_DIR", default))


def build_dir(kind: str) -> Path:
    sources = CUDA_SOURCES if kind == "cuda" else CPU_SOURCES
    return build_root() / f"andrea_embed_{kind}_{_source_hash(sources)}"


def clear_stale_lock(directory: Path, max_age: float = STALE_LOCK_SECONDS) -> bool:
    """Remove torch's ``directory/lock`` when it is older than ``max_age`` seconds. True when removed."""
    lock = directory / "lock"
    try:
        if time.time() - lock.stat().st_mtime > max_age:
            lock.unlink()
            return True
    except FileNotFoundError:
        pass
    return False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, owned by someone else
        return True
    return True


def lock_owner(directory: Path) -> tuple[int | None, bool]:
    """(the pid in the folder's own lock, 0 when it holds none yet; whether that lock is live). No lock: (None,
    False). A lock is dead when
    its pid is dead (on this host), it is older than STALE_LOCK_SECONDS, or it has stayed empty for seconds."""
    path = directory / OWN_LOCK
    try:
        text = path.read_text()
        age = time.time() - path.stat().st_mtime
    except (FileNotFoundError, NotADirectoryError):
        return None, False
    except OSError:
        return None, True
    parts = text.split()
    try:
        pid = int(parts[0])
    except (IndexError, ValueError):
        return 0, age < UNWRITTEN_LOCK_SECONDS
    if age > STALE_LOCK_SECONDS:
        return pid, False
    here = len(parts) < 2 or parts[1] == socket.gethostname()
    return pid, (_pid_alive(pid) if here else True)


def _write_lock(directory: Path, pid: int) -> bool:
    """Make the folder's own lock for ``pid``; False when one exists."""
    try:
        fd = os.open(directory / OWN_LOCK, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(f"{pid} {socket.gethostname()}\n")
    return True


def acquire_build_lock(directory: Path, timeout: float = WAIT_SECONDS, poll: float = POLL_SECONDS
                       ) -> tuple[bool, int | None]:
    """Take the folder's own lock, waiting at most ``timeout`` s for a live holder; a dead or stale lock is removed
    while waiting. Returns (taken, the holder's pid when not taken). Once taken, torch's ``lock`` in the folder can
    only be a killed build's, and is removed."""
    directory.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    while True:
        pid, live = lock_owner(directory)
        if pid == os.getpid() or (pid is None and _write_lock(directory, os.getpid())):
            with contextlib.suppress(FileNotFoundError):
                (directory / "lock").unlink()  # torch's: no live build holds ours, so none holds it
            return True, None
        if pid is not None and not live:
            with contextlib.suppress(FileNotFoundError):
                (directory / OWN_LOCK).unlink()
            continue
        if time.monotonic() - start >= timeout:
            return False, pid
        time.sleep(poll)


def release_build_lock(directory: Path) -> None:
    """Remove the folder's own lock if this process holds it."""
    pid, _ = lock_owner(directory)
    if pid == os.getpid():
        with contextlib.suppress(FileNotFoundError):
            (directory / OWN_LOCK).unlink()


def building(kind: str) -> bool:
    """Another live process is building ``kind`` now (this process has no result for it yet)."""
    if kind in _results:
        return False
    pid, live = lock_owner(build_dir(kind))
    return live and pid != os.getpid()


def _ninja_on_path() -> None:
    """pip's ninja lives in the interpreter's scripts folder, which may not be on PATH."""
    dirs = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]
    path = os.environ.get("PATH", "")
    missing = [d for d in dirs if d and d not in path.split(os.pathsep)]
    if missing:
        os.environ["PATH"] = os.pathsep.join([*missing, path])


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    errors = [ln for ln in text if "error" in ln.lower()]
    return (errors or text or [type(exc).__name__])[0][:300]


def _build(kind: str, verbose: bool, wait: float) -> tuple[ModuleType | None, str]:
    try:
        import torch
        from torch.utils.cpp_extension import load
    except Exception as exc:  # torch missing or broken
        return None, Reason("no_torch", detail=_first_line(exc))
    if kind == "cuda":
        if not torch.cuda.is_available():
            return None, Reason("cpu_torch" if torch.version.cuda is None else "no_device")
        major, minor = torch.cuda.get_device_capability()
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", f"{major}.{minor}")
    _ninja_on_path()
    directory = build_dir(kind)
    taken, holder = acquire_build_lock(directory, wait)
    if not taken:
        return None, Reason("wait_timeout", seconds=wait, pid=holder, kind=kind.upper())
    sources = [str(HERE / s) for s in (CUDA_SOURCES if kind == "cuda" else CPU_SOURCES)]
    cflags = ["-O3", "-march=native", "-fopenmp", "-std=c++17"] + (["-DWITH_CUDA"] if kind == "cuda" else [])
    try:
        module = load(
            name=f"andrea_embed_{kind}",
            sources=sources,
            extra_cflags=cflags,
            extra_cuda_cflags=["-O3", "--use_fast_math", "-std=c++17"],
            extra_ldflags=["-fopenmp"],
            extra_include_paths=[str(HERE)],
            build_directory=str(directory),
            verbose=verbose,
        )
    except Exception as exc:
        return None, Reason("build_failed", kind=kind.upper(), detail=_first_line(exc))
    finally:
        release_build_lock(directory)
    return module, ""


def load_kernel(kind: str, verbose: bool = False, wait: float = WAIT_SECONDS) -> tuple[ModuleType | None, str]:
    """The built module for ``kind`` ("cpu" or "cuda"), or None and the reason. Built once per process; waits at
    most ``wait`` s for another process's build of the same folder (then the reason says so, and a later call
    tries again)."""
    if kind not in KINDS:
        raise ValueError(f"kind must be 'cpu' or 'cuda', got {kind!r}")
    with _lock:
        if kind in _results:
            return _results[kind]
        result = _build(kind, verbose, wait)
        if getattr(result[1], "key", "") != "wait_timeout":
            _results[kind] = result
        return result


def is_built(kind: str) -> bool:
    """True when this process already holds the result (built or failed) for ``kind``."""
    return kind in _results


def build_all() -> int:
    """The background process's body: lowest priority, build the CPU kernel then the CUDA one; 0 when the CPU kernel
    built. Leaves no lock of its own behind (the app's server may have made one for it, see start_background_build)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(BUILD_NICE)
    try:
        cpu, _ = load_kernel("cpu")
        load_kernel("cuda")
    finally:
        for kind in KINDS:
            release_build_lock(build_dir(kind))
    return 0 if cpu is not None else 1


def _built_on_disk(kind: str) -> bool:
    directory = build_dir(kind)
    return (directory / f"andrea_embed_{kind}.so").is_file() and lock_owner(directory) == (None, False)


def start_background_build() -> subprocess.Popen | None:
    """Start a process that builds the kernels (``build_all``), unless the CPU kernel is built on disk already or this
    process holds it. The process's pid is written into each folder's lock at once, so that a page asking in the
    second before the process takes it over sees a build under way rather than starting its own."""
    with _lock:
        running = _background["process"]
        if running is not None and running.poll() is None:
            return running
        if "cpu" in _results or _built_on_disk("cpu"):
            return None
        root = HERE.parent
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH")) if p)}
        process = subprocess.Popen([sys.executable, "-c", BUILD_COMMAND], cwd=root, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)  # its own group: stopping it stops ninja and the compilers
        for kind in KINDS if _cuda_visible() else ("cpu",):
            directory = build_dir(kind)
            with contextlib.suppress(OSError):
                directory.mkdir(parents=True, exist_ok=True)
                if lock_owner(directory)[0] is not None and not lock_owner(directory)[1]:
                    (directory / OWN_LOCK).unlink()  # a killed build's
                _write_lock(directory, process.pid)
        _background["process"] = process
        atexit.register(stop_background_build, process)  # a server that stops takes its build with it (the next start builds again)
        return process


def _cuda_visible() -> bool:
    try:
        import torch
    except Exception:  # torch missing or broken: the process will say so
        return False
    return torch.cuda.is_available()


def stop_background_build(process: subprocess.Popen) -> None:
    """End the build process and everything it started (its process group: ninja, the compilers)."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)
