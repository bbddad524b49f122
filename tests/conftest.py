import atexit
import functools
import os
import shutil
import tempfile

import pytest

# Maps kept on disk (andrea_viz.map_cache) go to a folder of this test run only, so that no test reads a map
# some earlier run (or the developer's app) left behind; set before anything is imported, so that the app
# servers the browser tests start inherit it too.
_MAP_CACHE = tempfile.mkdtemp(prefix="andrea-viz-test-maps-")
os.environ["ANDREA_VIZ_CACHE_DIR"] = _MAP_CACHE
atexit.register(shutil.rmtree, _MAP_CACHE, True)
# The compiled kernel is built where a test needs it (as a first visit did before the server built it in the
# background), so that no page test meets a build under way; tests/e2e/test_kernel_build_browser.py checks the
# background build on a server of its own.
os.environ["ANDREA_VIZ_KERNEL_BUILD"] = "inline"

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
