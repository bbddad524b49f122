"""UMAP's numba code compiled once per machine: a second fresh process loads it from disk (numba's own hit
counters and index files), a file the code did not write is never used, and the cache off is as before."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from andrea_viz.maps import compile as umap_compile
from andrea_viz.maps.compile import COMPILE_COMMAND, MANIFEST, _digests, _trusted, numba_folder

ROOT = Path(__file__).resolve().parents[2]
# the functions every whole-table map runs, each of which must come from disk in a later process
MUST_LOAD = ["umap.layouts._optimize_layout_euclidean_single_epoch", "umap.umap_.smooth_knn_dist",
             "umap.umap_.compute_membership_strengths", "umap.distances.cosine"]


def _compile(cache: Path) -> dict:
    r = subprocess.run([sys.executable, "-c", COMPILE_COMMAND], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "ANDREA_VIZ_CACHE_DIR": str(cache)})
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _compile_as_the_server_does(cache: Path, monkeypatch) -> dict:
    """The compile the server starts as it starts (``start_compile_process``: its own process, its own import path),
    waited for; what it wrote in its folder's DONE file."""
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(cache))
    monkeypatch.setitem(umap_compile._state, "process", None)
    started = umap_compile.start_compile_process()
    assert started is not None and started.wait(600) == 0
    folder = numba_folder()
    return {**json.loads((folder / umap_compile.DONE).read_text()), "folder": str(folder)}


@pytest.mark.slow
def test_a_second_fresh_process_loads_the_code_from_disk_and_a_corrupt_file_is_compiled_again(tmp_path, monkeypatch):
    first = _compile_as_the_server_does(tmp_path, monkeypatch)
    folder = Path(first["folder"])
    assert folder.parent == tmp_path / "numba" and first["misses"] > 0
    index = sorted(p.name for p in folder.rglob("*.nbi"))
    assert any(n.startswith("layouts._optimize_layout_euclidean_single_epoch") for n in index), index
    assert (folder / "compiled.json").is_file() and json.loads((folder / MANIFEST).read_text()) == _digests(folder)

    second = _compile(tmp_path)
    assert set(MUST_LOAD) <= set(second["loaded"]), second
    assert second["hits"] > 0 and not set(MUST_LOAD) & set(second["made"])

    (victim,) = [p for p in folder.rglob("*.nbi") if p.name.startswith("layouts._optimize_layout_euclidean_single")]
    victim.write_bytes(b"not numba's")  # corrupt: numba would fail to read it; it must never be read
    assert not _trusted(folder)
    third = _compile(tmp_path)
    assert "umap.layouts._optimize_layout_euclidean_single_epoch" in third["made"]  # compiled again, not read
    assert set(MUST_LOAD[1:]) <= set(third["loaded"])  # the rest still came from disk
    assert victim.read_bytes() != b"not numba's" and _trusted(folder)


def test_an_unreadable_manifest_distrusts_every_file_and_a_listed_one_with_its_bytes_is_kept(tmp_path):
    (tmp_path / "a.nbi").write_bytes(b"index")
    (tmp_path / "b.nbc").write_bytes(b"data")
    (tmp_path / MANIFEST).write_text("{not json")
    assert umap_compile._untrusted(tmp_path) == ["a.nbi", "b.nbc"]
    (tmp_path / MANIFEST).write_text(json.dumps({"a.nbi": _digests(tmp_path)["a.nbi"]}))
    assert umap_compile._untrusted(tmp_path) == ["b.nbc"]


def test_the_layouts_parallel_twin_never_gets_the_sequential_code_from_disk(tmp_path):
    """umap-learn makes its epoch twice from one Python function, sequential and parallel; numba's cache names code by
    the function's name alone, so the parallel twin (a large map's epochs on every core) is left out of the disk cache
    and compiles its own code, while the sequential one is cached."""
    code = ("from andrea_viz.maps import compile as c; c.enable_disk_cache(); import umap.layouts as L; "
            "from numba.core.caching import NullCache; "
            "print(isinstance(L._nb_optimize_layout_euclidean_single_epoch_parallel._cache, NullCache), "
            "isinstance(L._nb_optimize_layout_euclidean_single_epoch._cache, NullCache))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "ANDREA_VIZ_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split()[-2:] == ["True", "False"]  # the parallel twin: no disk cache; the sequential: cached


def test_only_files_the_manifest_lists_with_their_bytes_are_trusted(tmp_path):
    assert _trusted(tmp_path)  # nothing yet
    (tmp_path / "a.nbi").write_bytes(b"index")
    assert not _trusted(tmp_path)  # no manifest
    (tmp_path / MANIFEST).write_text(json.dumps(_digests(tmp_path)))
    assert _trusted(tmp_path)
    (tmp_path / "b.nbc").write_bytes(b"foreign")
    assert not _trusted(tmp_path)  # a file nobody listed
    (tmp_path / "b.nbc").unlink()
    (tmp_path / "a.nbi").write_bytes(b"indey")
    assert not _trusted(tmp_path)  # listed, other bytes


def test_no_second_compile_starts_while_another_process_compiles_into_the_folder(tmp_path, monkeypatch):
    """Two servers on one machine: the second finds the first's compile under way (its pid in the folder's lock) and
    starts none of its own; once that process has gone, a stale lock stops nothing."""
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(umap_compile._state, "process", None)
    monkeypatch.setattr(umap_compile, "_spawn", lambda: subprocess.Popen([sys.executable, "-c", "pass"]))
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        folder = numba_folder()
        folder.mkdir(parents=True)
        (folder / umap_compile.LOCK).write_text(str(other.pid))
        assert umap_compile.start_compile_process() is None
    finally:
        other.kill()
        other.wait()
    started = umap_compile.start_compile_process()
    assert started is not None
    end = time.monotonic() + 60
    while started.returncode is None and time.monotonic() < end:  # set by the reaping thread's wait
        time.sleep(0.05)
    assert started.returncode == 0


def test_a_reader_waiting_on_the_compile_gives_it_the_servers_priority_back(monkeypatch):
    """The compile runs at niceness 19 so pages win the CPU from it; once a reader's map waits on it, it runs at the
    server's own niceness where the system allows that (as root here: lowering a niceness needs CAP_SYS_NICE)."""
    child = subprocess.Popen([sys.executable, "-c", "import os, sys, time; os.nice(19); print(1, flush=True); "
                              "sys.stdin.readline()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == "1\n"  # at niceness 19 now
    monkeypatch.setitem(umap_compile._state, "process", child)
    seen = []

    def on_wait():
        seen.append(os.getpriority(os.PRIO_PROCESS, child.pid))
        child.stdin.write("\n")
        child.stdin.flush()

    try:
        assert umap_compile.wait_for_compile_process(on_wait) is True
    finally:
        child.kill()
        child.wait()
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert seen == [ours if os.geteuid() == 0 else umap_compile.WARM_NICE]
    assert umap_compile.wait_for_compile_process(on_wait) is False  # it has ended: nothing to wait on


def test_the_cache_off_keeps_no_code_and_starts_no_process(monkeypatch):
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", "off")
    assert numba_folder() is None and umap_compile.start_compile_process() is None


def test_a_folder_others_may_write_is_not_used(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert not umap_compile._private(shared)
    mine = tmp_path / "mine"
    assert umap_compile._private(mine) and (mine.stat().st_mode & 0o777) == 0o700
