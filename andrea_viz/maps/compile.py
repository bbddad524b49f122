"""UMAP's numba code, compiled once per machine instead of once per process.

umap-learn and pynndescent compile their layout and neighbour-search code with numba the first time a process
maps (about 36 s of a cold whole-MiniLM map). Here numba's own on-disk cache is turned on for every numba
function of both packages that has none (``Dispatcher.enable_caching()``, before their first compile), under
``<map cache folder>/numba/<versions>/`` (but not for the parallel twin of a function cached already,
``_parallel_twin``; pynndescent's own ``cache=True`` functions keep numba's usual place, its
``__pycache__``), so that the first process of a machine compiles and writes the code and every later one (server,
CLI) loads it from disk.

Not used here: pynndescent's NN-descent (``nn_descent`` and the functions under it), umap-learn's own search
from 4,096 points on, compiles in every process (it takes its distance function as an argument, typed by that one
process's function object, and calls ``numba.get_num_threads()``, compiled to a C address numba refuses to cache:
"uses dynamic globals"). From 4,096 points the app hands umap-learn its own neighbour graph instead (``knn``), so
the second tiny map does too.

numba's cache files are pickles, which numba itself reads. They are trusted only as files this code wrote: after
a compile every file of the folder is listed with its SHA-256 in ``manifest.json``; before the folder is used, a
file that is missing from that list or whose bytes differ (corrupt, truncated, left by something else) is deleted,
and the function it held is compiled again while the rest still loads (all of them when the manifest itself is
unreadable; while a process compiles into the folder, ``compiling.pid``, others
compile in memory rather than judge half-written files). The folder must belong to the user running the code and be writable
by nobody else, or it is not used. ``ANDREA_VIZ_CACHE_DIR=off``: no disk cache, the code compiles in every
process, as before.

``run_compile_process`` compiles it all on two tiny maps (one per neighbour-search path of
umap-learn) at the lowest priority: the app's server starts that process when it starts (``ui.umap_warmup``).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import threading
from importlib import metadata
from pathlib import Path

import numpy as np

from ..children import reap_when_done
from .knn import knn_graph
from .cache import cache_dir

MANIFEST = "manifest.json"
COMPILE_COMMAND = "from andrea_viz.maps.compile import run_compile_process as run; raise SystemExit(run())"
LOCK = "compiling.pid"  # the pid of a process compiling into the folder now: others neither judge nor use it meanwhile
DONE = "compiled.json"  # written by a compile that ran to its end: what it compiled, and with which versions
PACKAGES = ("numba", "llvmlite", "umap-learn", "pynndescent")
# umap-learn's two paths as the app takes them: every distance computed by umap-learn below 4,096 points, a
# neighbour graph handed to it (``precomputed_knn``) from there
SMALL_PATH_POINTS, GRAPH_PATH_POINTS = 300, 4_200
WARM_EPOCHS = 20  # the tiny maps' epochs (the compiled code is the same for any number; fewer run sooner)
WARM_NICE = 19  # the compiling process's niceness: pages win the CPU from it

_state: dict = {"enabled": None, "folder": None, "dispatchers": [], "compiled": False, "process": None,
                "misses_listed": 0}
_lock = threading.Lock()


def versions() -> dict[str, str]:
    """The versions of the packages whose compiled code is kept (a change of any starts a new folder)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "none"
    return out


def numba_folder() -> Path | None:
    """``<map cache folder>/numba/<versions>``, or None when the cache is off."""
    base = cache_dir()
    if base is None:
        return None
    tag = "-".join(f"{k}{v}" for k, v in versions().items())
    return base / "numba" / f"py{sys.version_info[0]}{sys.version_info[1]}-{tag}"


def _private(folder: Path) -> bool:
    """The folder (made if missing) belongs to this user and nobody else may write it."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = folder.stat()
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return mine and not st.st_mode & 0o022


def _digests(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name not in (MANIFEST, DONE, LOCK) and ".tmp." not in p.name:
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _untrusted(folder: Path) -> list[str]:
    """The files numba would read that the manifest does not list with their bytes (every one of them when the
    manifest cannot be read)."""
    try:
        listed = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        listed = None
    listed = listed if isinstance(listed, dict) else {}
    return [name for name, digest in _digests(folder).items() if listed.get(name) != digest]


def _trusted(folder: Path) -> bool:
    """Every file numba would read is one the manifest lists, with the same bytes (an empty folder is trusted)."""
    return not _untrusted(folder)


def _another_compiling(folder: Path) -> bool:
    """Another live process is compiling into the folder (its files are not listed yet)."""
    try:
        pid = int((folder / LOCK).read_text())
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def write_manifest() -> None:
    """List every file of the folder with its SHA-256 (after this process compiled and numba wrote its files)."""
    folder = _state["folder"]
    if folder is None:
        return
    text = json.dumps(_digests(folder), indent=0, sort_keys=True)
    tmp = folder / f".{MANIFEST}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        tmp.write_text(text)
        os.replace(tmp, folder / MANIFEST)


def _parallel_twin(dispatcher, others: list) -> bool:
    """Whether numba compiles this function with ``parallel=True`` from the same Python function as another of
    ``others``. Such a twin gets no disk cache: numba names a function's cached code by its module and qualified name
    only, and umap-learn makes its layout's epoch twice from one Python function
    (``_nb_optimize_layout_euclidean_single_epoch`` and its ``_parallel`` twin), so one cache file would answer for
    both and the parallel twin would load the sequential code. It compiles in each process that uses it (about 2 s,
    for a map of more than ``umap_run.EVERY_CORE_ABOVE`` points)."""
    return bool(dispatcher.targetoptions.get("parallel")) and any(
        d is not dispatcher and d.py_func is dispatcher.py_func for d in others)


def enable_disk_cache() -> Path | None:
    """Import umap-learn and turn numba's disk cache on for its code and pynndescent's (once per process).
    Returns the folder, or None when the cache is off or the folder is not safe to use (then the code compiles
    in this process, as without this module)."""
    with _lock:
        if _state["enabled"] is not None:
            return _state["folder"]
        folder = numba_folder()
        if folder is not None and (not _private(folder) or _another_compiling(folder)):
            folder = None
        for name in _untrusted(folder) if folder is not None else []:  # a file this code did not write: deleted,
            with contextlib.suppress(OSError):  # and the function it held compiles again (numba finds no entry)
                (folder / name).unlink()
        import numba
        import pynndescent  # noqa: F401
        import umap  # noqa: F401 (all of umap-learn's modules, so that every numba function of it exists now)
        from numba.core.caching import NullCache
        from numba.core.dispatcher import Dispatcher

        found = []
        if folder is not None:
            for name, module in list(sys.modules.items()):
                if module is None or not (name == "umap" or name.startswith(("umap.", "pynndescent"))):
                    continue
                for value in list(vars(module).values()):
                    if isinstance(value, Dispatcher) and value not in found:
                        found.append(value)
            found = [d for d in found if not _parallel_twin(d, found)]
            # numba picks a function's cache folder when its cache is made: only the functions turned on here go to
            # ours; pynndescent's own cache=True ones keep theirs (its __pycache__), already filled on most machines
            before = numba.config.CACHE_DIR
            numba.config.CACHE_DIR = str(folder)
            try:
                for d in found:
                    if isinstance(d._cache, NullCache):
                        d.enable_caching()
            finally:
                numba.config.CACHE_DIR = before
        _state.update(enabled=folder is not None, folder=folder, dispatchers=found)
        return folder


def cache_counts() -> dict[str, int]:
    """This process's numba cache hits and misses over umap-learn's and pynndescent's functions (misses: code
    compiled here), how many functions have compiled code, and which were loaded from disk and which compiled."""
    hits = misses = compiled = 0
    loaded, made = set(), set()
    for d in _state["dispatchers"]:
        h, m = sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())
        hits, misses, compiled = hits + h, misses + m, compiled + bool(d.signatures)
        name = f"{d.py_func.__module__}.{d.py_func.__qualname__}"
        if h:
            loaded.add(name)
        if m:
            made.add(name)
    return {"hits": hits, "misses": misses, "compiled": compiled, "loaded": sorted(loaded), "made": sorted(made)}


def compile_all() -> dict:
    """Run the two tiny maps that compile (or load) all the code a map uses, once per process; write the
    manifest and the ``compiled.json`` mark. Returns what ``cache_counts`` says, with the folder."""
    import warnings

    import umap

    folder = enable_disk_cache()
    if folder is not None:
        with contextlib.suppress(OSError):
            (folder / LOCK).write_text(str(os.getpid()))
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (SMALL_PATH_POINTS, GRAPH_PATH_POINTS):
            x = rng.standard_normal((n, 8)).astype(np.float32)
            graph = {} if n < GRAPH_PATH_POINTS else {"precomputed_knn": knn_graph(x, 15)}
            umap.UMAP(n_components=2, metric="cosine", n_epochs=WARM_EPOCHS, init="pca", random_state=0,
                      n_neighbors=15, **graph).fit_transform(x)
    _state["compiled"] = True
    counts = cache_counts()
    _state["misses_listed"] = counts["misses"]
    if folder is not None:
        write_manifest()
        with contextlib.suppress(OSError):
            (folder / DONE).write_text(json.dumps({"versions": versions(), "hits": counts["hits"],
                                                   "misses": counts["misses"]}))
            (folder / LOCK).unlink()
    return {**counts, "folder": None if folder is None else str(folder)}


def compiled_now() -> None:
    """A map ran in this process: its code is compiled here; what numba wrote to disk for it joins the manifest."""
    _state["compiled"] = True
    misses = cache_counts()["misses"]
    if misses != _state["misses_listed"]:
        write_manifest()
        _state["misses_listed"] = misses


def compiled_here() -> bool:
    """This process has compiled (or loaded) the code."""
    return _state["compiled"]


def compiled_on_disk() -> bool:
    """A compile ran to its end into this machine's folder (a process that loads it needs about a second)."""
    folder = numba_folder()
    return folder is not None and (folder / DONE).is_file()


def start_compile_process() -> subprocess.Popen | None:
    """Start a process that runs ``run_compile_process`` (niceness WARM_NICE) unless the code is on disk already,
    another live process is compiling it into the folder (it would only compile in memory beside it), or the cache is
    off. Returns the process, or None."""
    with _lock:
        running = _state["process"]
        if running is not None and running.poll() is None:
            return running
        folder = numba_folder()
        if folder is None or compiled_on_disk() or _another_compiling(folder):  # another server's compile writes it
            return None
        _state["process"] = _spawn()
        reap_when_done(_state["process"], "andrea-umap-compile-reaper")  # waited for when it ends: no <defunct> left
        atexit.register(_stop, _state["process"])  # a server that stops takes its compile with it (the next restarts it)
        return _state["process"]


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()


def wait_for_compile_process(on_wait) -> bool:
    """If this process started the compiling process and it still runs, call ``on_wait()`` and wait for its end
    (then the code loads from disk rather than compiling a second time here). Returns whether it waited.

    A reader now waits on it, so it no longer runs at the lowest priority: it gets this process's own niceness
    back where the system allows it (root, or CAP_SYS_NICE; else it stays at WARM_NICE). At niceness 19 on a
    server busy with a class it could starve while the reader's map waited for it."""
    running = _state["process"]
    if running is None or running.poll() is not None:
        return False
    with contextlib.suppress(OSError):  # PermissionError where lowering a niceness is not allowed
        os.setpriority(os.PRIO_PROCESS, running.pid, os.getpriority(os.PRIO_PROCESS, 0))
    on_wait()
    running.wait()
    return True


def _spawn() -> subprocess.Popen:
    root = Path(__file__).resolve().parents[2]  # the folder andrea_viz is imported from (this file is maps/compile.py)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH")) if p)}
    return subprocess.Popen([sys.executable, "-c", COMPILE_COMMAND], cwd=root, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)  # its errors in the server's log


def run_compile_process() -> int:
    """The compiling process's body: lowest priority, then ``compile_all``; prints its counts as JSON."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WARM_NICE)
    print(json.dumps(compile_all()))
    return 0
