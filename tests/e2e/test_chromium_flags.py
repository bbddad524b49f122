"""The flags the tests and benchmarks launch Chromium with (andrea_viz.testing_harness.CHROMIUM_FLAGS): the browser
still disables every feature Playwright's own launcher asks it to (a second --disable-features replaces the first),
and a new page gets no renderer for the invisible window's address bar."""

from __future__ import annotations

import os
from pathlib import Path

from andrea_viz.testing_harness import NO_TOP_CHROME_WEBUI, descendants


def _arguments(pid: int) -> list[str]:
    """A process's arguments (Chromium's child processes write theirs back as one string); none once it has gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").split()
    except OSError:
        return []


def _features(cmd: list[str]) -> list[list[str]]:
    """Each --disable-features switch of a command line, as its list of features, in order."""
    return [a.split("=", 1)[1].split(",") for a in cmd if a.startswith("--disable-features=")]


def test_the_browser_disables_playwrights_features_and_builds_no_address_bar(browser):
    page = browser.new_page()
    try:
        page.set_content("<p>a page</p>")
        chromium = [cmd for cmd in map(_arguments, descendants(os.getpid())) if cmd and "chromium" in cmd[0]]
        mains = [cmd for cmd in chromium if not any(a.startswith("--type=") for a in cmd)]  # this worker's browsers
        assert mains
        playwrights = set()
        for cmd in mains:
            given = _features(cmd)
            assert len(given) == 2  # Playwright's, then ours (the one Chromium keeps)
            playwrights |= set(given[0])
        renderers = [cmd for cmd in chromium if "--type=renderer" in cmd]
        assert renderers  # the page's
        for cmd in renderers:  # what the browser resolved, as it hands it to its child processes
            (resolved,) = _features(cmd)
            assert playwrights - set(resolved) == set()
            assert set(NO_TOP_CHROME_WEBUI) - set(resolved) == set()
            assert "--top-chrome-webui" not in cmd
    finally:
        page.close()
