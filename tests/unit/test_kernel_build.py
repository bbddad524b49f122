"""The kernel build never makes a visit wait forever: the loader's own lock, planted stale locks, a bounded wait, the
background build, and its reasons reaching the screen through the catalogue."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cuda_ext
from andrea_viz import i18n
from andrea_viz.forward_pass import KERNEL_REASONS, kernel_reason
from cuda_ext import loader

ROOT = Path(__file__).resolve().parents[2]


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def plant(folder: Path, text: str, age: float = 0.0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / loader.OWN_LOCK
    path.write_text(text)
    if age:
        t = time.time() - age
        os.utime(path, (t, t))
    return path


def test_a_lock_of_a_dead_process_is_taken_over_at_once(tmp_path):
    plant(tmp_path, f"{dead_pid()} {loader.socket.gethostname()}\n")
    torch_lock = tmp_path / "lock"
    torch_lock.write_text("")  # left by the killed build: torch's FileBaton.wait() would poll it forever
    taken, holder = cuda_ext.acquire_build_lock(tmp_path, timeout=0)
    assert taken and holder is None
    assert not torch_lock.exists()
    assert (tmp_path / loader.OWN_LOCK).read_text().split()[0] == str(os.getpid())
    loader.release_build_lock(tmp_path)
    assert not (tmp_path / loader.OWN_LOCK).exists()


def test_a_live_builder_is_waited_for_only_so_long(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        plant(tmp_path, f"{sleeper.pid} {loader.socket.gethostname()}\n")
        assert loader.lock_owner(tmp_path) == (sleeper.pid, True)
        taken, holder = cuda_ext.acquire_build_lock(tmp_path, timeout=0.5, poll=0.05)
        assert not taken and holder == sleeper.pid
        sleeper.kill()
        sleeper.wait()
        # the builder died while we waited: its lock is removed during the wait and the build is ours
        taken, holder = cuda_ext.acquire_build_lock(tmp_path, timeout=0)
        assert taken
    finally:
        if sleeper.poll() is None:
            sleeper.kill()


def test_an_old_or_empty_lock_is_stale(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        plant(tmp_path, f"{sleeper.pid}\n", age=loader.STALE_LOCK_SECONDS + 60)  # alive, but hung for too long
        assert loader.lock_owner(tmp_path) == (sleeper.pid, False)
    finally:
        sleeper.kill()
        sleeper.wait()
    plant(tmp_path, "")  # being written this instant: live
    assert loader.lock_owner(tmp_path) == (0, True)
    plant(tmp_path, "", age=loader.UNWRITTEN_LOCK_SECONDS + 5)  # its writer was killed before writing its pid
    assert loader.lock_owner(tmp_path) == (0, False)
    assert cuda_ext.acquire_build_lock(tmp_path, timeout=0) == (True, None)


def test_a_page_does_not_wait_on_a_background_build(tmp_path, monkeypatch):
    """While another process holds the CPU folder's lock, the CPU backend is 'being built' (no wait), auto runs on
    torch, and the reason reaches the screen translated."""
    from andrea_viz.forward_pass import choose_backend, status_of

    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    monkeypatch.setattr(loader, "_results", {})
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        plant(cuda_ext.build_dir("cpu"), f"{sleeper.pid} {loader.socket.gethostname()}\n")
        assert cuda_ext.building("cpu")
        status = status_of("cpu")
        assert not status.available and status.reason.msgid == KERNEL_REASONS["building"]
        assert choose_backend("auto") in ("cuda", "torch")
        i18n.set_language("nl")
        try:
            text = i18n.tr(status.reason)
        finally:
            i18n.set_language("en")
        assert "CPU" in text and str(sleeper.pid) in text and "being built" not in text
    finally:
        sleeper.kill()
        sleeper.wait()
    assert not cuda_ext.building("cpu")  # its builder is gone


@pytest.mark.parametrize("reason", [
    cuda_ext.Reason("no_torch", detail="No module named 'torch'"), cuda_ext.Reason("cpu_torch"),
    cuda_ext.Reason("no_device"), cuda_ext.Reason("build_failed", kind="CPU", detail="g++: error: x.cpp"),
    cuda_ext.Reason("building", kind="CPU", pid=12), cuda_ext.Reason("wait_timeout", seconds=1200, pid=12, kind="CPU"),
])
@pytest.mark.parametrize("lang", ["zh-TW", "nl", "pt-BR"])
def test_every_loader_reason_is_translated(reason, lang):
    msg = kernel_reason(reason)
    assert i18n.tr(msg) == str(reason)  # English: the loader's own sentence
    assert set(loader.TEXTS) == set(KERNEL_REASONS)
    i18n.set_language(lang)
    try:
        text = i18n.tr(msg)
    finally:
        i18n.set_language("en")
    assert text != str(reason) and "this torch is a CPU build" not in text and "could not be built" not in text


def test_the_background_build_locks_at_once_and_leaves_no_lock(tmp_path, monkeypatch):
    """start_background_build writes the child's pid before the child runs, so no page starts a build of its own;
    the child takes the lock over as its own and leaves none behind. BUILD_COMMAND is swapped for one that only
    takes the lock and releases it (the real build is test_forward's)."""
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))
    monkeypatch.setattr(loader, "_results", {})
    monkeypatch.setattr(loader, "_background", {"process": None})
    monkeypatch.setattr(loader, "BUILD_COMMAND", "import cuda_ext.loader as l, sys, time; d = l.build_dir('cpu'); "
                        "ok = l.acquire_build_lock(d, timeout=0)[0]; time.sleep(1); l.release_build_lock(d); "
                        "sys.exit(0 if ok else 3)")
    process = cuda_ext.start_background_build()
    assert process is not None
    assert loader.lock_owner(cuda_ext.build_dir("cpu")) == (process.pid, True) and cuda_ext.building("cpu")
    assert cuda_ext.start_background_build() is process  # once
    assert process.wait(timeout=120) == 0
    assert not (cuda_ext.build_dir("cpu") / loader.OWN_LOCK).exists() and not cuda_ext.building("cpu")
