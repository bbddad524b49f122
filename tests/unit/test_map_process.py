"""A large UMAP map is laid out in a child process, one at a time per server: the server's interpreter lock stays
free for other pages while it computes, its result is the map the server would have made, the child is reaped, and
a killed child is said in a sentence."""

from __future__ import annotations

import functools
import os
import signal
import threading
import time

import numpy as np
import psutil
import pytest

from andrea_viz.maps import process as map_process, umap_run
from andrea_viz.bench.map_compute import GilProbe  # a thread that naps 10 ms and keeps its longest wake
from andrea_viz.errors import QueryError
from andrea_viz.maps.process import Turns


def zombies() -> list[psutil.Process]:
    out = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                out.append(child)
        except psutil.NoSuchProcess:
            pass
    return out


def map_children() -> list[psutil.Process]:
    """This process's spawned children (multiprocessing's resource tracker left out)."""
    out = []
    for child in psutil.Process().children():
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                out.append(child)
        except psutil.NoSuchProcess:
            pass
    return out


def test_a_map_laid_out_in_a_child_is_the_map_laid_out_here_and_the_child_is_reaped():
    from andrea_viz.maps.umap_run import umap_map

    X = np.random.default_rng(0).standard_normal((600, 16)).astype(np.float32)
    seen = []
    there = umap_map(X, 2, seed=1, in_child=True, progress=lambda f, m: seen.append((f, m.msgid)))
    here = umap_map(X, 2, seed=1, in_child=False)
    assert there.coords.dtype == np.float32 and there.coords.shape == (600, 2)
    assert np.array_equal(there.coords, here.coords)  # seeded and single-threaded: the same map in either process
    assert there.note == here.note
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert "laying out: epoch {done} of {total}" in [m for _, m in seen]  # the child's epochs moved the bar
    assert not map_children() and not zombies()


def test_a_large_map_through_the_apps_path_is_laid_out_in_a_child_while_the_server_thread_runs(tmp_path):
    """The longest stall of the server's lock is a figure of `bench-map` (measured, not asserted here)."""
    from andrea_viz import load
    from andrea_viz.maps.project import project_model

    assert map_process.CHILD_ABOVE < 25_000  # the table below is a "large" map: laid out in a child
    np.save(tmp_path / "table.npy", np.random.default_rng(3).standard_normal((25_000, 64)).astype(np.float32))
    emb = load(tmp_path / "table.npy")
    seen = []
    with GilProbe() as probe:
        result = project_model(emb, "umap", n="all", seed=0, progress=lambda f, m: seen.append(m.msgid))
    assert result.projection.coords.shape == (25_000, 2) and np.isfinite(result.projection.coords).all()
    assert not result.from_cache and "laying out: epoch {done} of {total}" in seen
    assert probe.wakes > 100  # another thread kept running through the layout
    assert not map_children() and not zombies()


def test_maps_take_turns_first_come_first_served_and_a_waiting_one_knows_how_many_are_ahead():
    turns = Turns()
    order, aheads = [], {}
    release = threading.Event()
    first_in = threading.Event()

    def first():
        with turns.turn():
            first_in.set()
            order.append("a")
            release.wait(10)

    def later(name):
        with turns.turn(lambda ahead: aheads.setdefault(name, []).append(ahead)):
            order.append(name)

    a = threading.Thread(target=first)
    a.start()
    assert first_in.wait(5)
    b = threading.Thread(target=later, args=("b",))
    b.start()
    end = time.monotonic() + 10
    while not aheads.get("b") and time.monotonic() < end:  # b is queued before c starts (polled: a fixed 0.2 s
        time.sleep(0.01)  # could pass before b's thread ran on a busy machine)
    c = threading.Thread(target=later, args=("c",))
    c.start()
    end = time.monotonic() + 10
    while not (aheads.get("b") and aheads.get("c")) and time.monotonic() < end:
        time.sleep(0.05)
    assert turns.waiting == 2 and order == ["a"]
    assert aheads["b"][-1] == 1 and aheads["c"][-1] == 2
    release.set()
    for t in (a, b, c):
        t.join(10)
    assert order == ["a", "b", "c"] and turns.waiting == 0


def test_a_waiting_map_that_gives_up_leaves_the_queue():
    turns = Turns()
    release = threading.Event()
    holder_in = threading.Event()

    def hold():
        with turns.turn():
            holder_in.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holder_in.wait(5)

    def give_up(ahead):
        raise RuntimeError("the page stopped")

    with pytest.raises(RuntimeError):
        with turns.turn(give_up):
            pass
    assert turns.waiting == 0
    release.set()
    holder.join(10)


def test_a_map_process_killed_by_the_system_is_said_in_a_sentence_and_reaped():
    X = np.random.default_rng(1).standard_normal((600, 16)).astype(np.float32)
    killed = []

    def report(fraction, text):
        if not killed:
            for child in map_children():
                os.kill(child.pid, signal.SIGKILL)  # as the kernel's out-of-memory killer does
                killed.append(child.pid)

    with pytest.raises(QueryError) as err:
        map_process.layout_in_child(X, functools.partial(umap_run._umap_run, dims=2, seed=0, exact=True, pca_first=False),
                                    report, turns=Turns())
    assert killed
    assert str(err.value) == ("The map's process was stopped by the system (SIGKILL: out of memory, or killed) before "
                              "it finished. Try again, or map a sample of the table.")
    assert not map_children() and not zombies()


def test_the_servers_compile_process_is_reaped_when_it_ends(tmp_path, monkeypatch):
    import subprocess
    import sys

    from andrea_viz.maps import compile as umap_compile

    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(tmp_path))
    monkeypatch.setitem(umap_compile._state, "process", None)
    # the compile's own body takes a minute; a child that ends at once shows the reaping as well
    monkeypatch.setattr(umap_compile, "_spawn", lambda: subprocess.Popen([sys.executable, "-c", "pass"]))
    started = umap_compile.start_compile_process()
    assert started is not None
    end = time.monotonic() + 60
    while started.returncode is None and time.monotonic() < end:  # set by the reaping thread's wait, not by us
        time.sleep(0.05)
    assert started.returncode == 0
    assert not zombies()


def test_a_wide_tables_pca_first_runs_in_the_child_and_gives_the_map_made_here(monkeypatch):
    from andrea_viz.maps.umap_run import umap_map

    rng = np.random.default_rng(4)
    X = (rng.standard_normal((1_200, 8)) @ rng.standard_normal((8, 120)) + 0.1 * rng.standard_normal((1_200, 120)))
    X = X.astype(np.float32)
    monkeypatch.setattr(umap_run, "UMAP_PCA_FIRST", 1_000)  # read here: the child is told to run the PCA first
    seen = []
    there = umap_map(X, 2, seed=2, in_child=True, progress=lambda f, m: seen.append(m.msgid))
    here = umap_map(X, 2, seed=2, in_child=False)
    assert "PCA to {k} dimensions first" in seen and "principal components" in there.note.msgid
    assert there.note == here.note and np.array_equal(there.coords, here.coords)
    assert not map_children() and not zombies()
