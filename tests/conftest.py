import atexit
import functools
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass

import pytest

# Maps kept on disk (andrea_viz.maps.cache) go to a folder of this test run only, so that no test reads a map
# some earlier run (or the developer's app) left behind; set before anything is imported, so that the app
# servers the browser tests start inherit it too. One folder for the whole run, as one machine's servers share one:
# made by the process that loads this file first (under pytest-xdist the controller, before it starts its workers,
# which inherit it) and removed by that process when the run ends. Two workers with a folder each compiled UMAP's
# code twice and laid out the same maps twice.
_RUN_CACHE = "ANDREA_VIZ_TEST_RUN_CACHE"
if not (os.environ.get("PYTEST_XDIST_WORKER") and os.path.isdir(os.environ.get(_RUN_CACHE, ""))):  # else fresh, even
    os.environ[_RUN_CACHE] = tempfile.mkdtemp(prefix="andrea-viz-test-maps-")  # where a shell exported an old one
    atexit.register(shutil.rmtree, os.environ[_RUN_CACHE], True)
os.environ["ANDREA_VIZ_CACHE_DIR"] = os.environ[_RUN_CACHE]
# The compiled kernel is built where a test needs it (as a first visit did before the server built it in the
# background), so that no page test meets a build under way; tests/e2e/test_kernel_build_browser.py checks the
# background build on a server of its own.
os.environ["ANDREA_VIZ_KERNEL_BUILD"] = "inline"
# Under pytest-xdist (the README's `-n 2`) each worker, and each app server or child process it starts, computes on
# one thread: two workers already fill two cores, and OpenMP's threads spin while they wait for a core another
# process holds (a 600-step training took 85.7 s with two threads beside two busy processes, 35.4 s with one).
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(_var, "1")

import andrea_viz  # noqa: E402 (after the cache folder is chosen)


def pytest_collection_modifyitems(config, items):
    """Every test under tests/e2e drives Chromium: marked ``browser``, so ``-m "not browser"`` runs the rest."""
    for item in items:
        if "/tests/e2e/" in str(item.path).replace("\\", "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def _english_between_tests():
    """Every test starts in English: an AppTest runs its pages in this thread, and their language (a context variable
    set by page_setup) would otherwise stay for the tests after it."""
    andrea_viz.i18n.set_language(andrea_viz.i18n.DEFAULT_LANGUAGE)
    yield


@functools.cache
def _model(name: str):
    return andrea_viz.load(name)


@pytest.fixture(scope="session")
def minilm():
    return _model("minilm-l6")


@pytest.fixture(scope="session")
def load_model():
    """Load a built-in model once per test session."""
    return _model


@dataclass
class CliRun:
    """What ``python -m andrea_viz ARGS`` gave: its exit status and what it wrote (subprocess's result's fields)."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys):
    """``cli(*args)`` runs ``python -m andrea_viz *args`` in this process, through ``andrea_viz.cli.main(argv)`` as
    ``__main__`` calls it, and returns a ``CliRun``. An exception that escapes main fails the test with its
    traceback (a process would have printed it and exited 1); argparse's own refusals exit 2 as in a process. Each
    call starts in English, as a fresh process does; loaded models stay cached between calls (the time saved)."""
    from andrea_viz.cli import main

    def run(*args) -> CliRun:
        capsys.readouterr()  # what the test printed before is not the command's
        andrea_viz.i18n.set_language(andrea_viz.i18n.DEFAULT_LANGUAGE)
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse (usage errors, --help) and commands that exit
            code = exc.code if isinstance(exc.code, int) or exc.code is None else 1
            if not isinstance(exc.code, int | None):
                print(exc.code, file=sys.stderr)
        out, err = capsys.readouterr()
        return CliRun(int(code or 0), out, err)

    return run
