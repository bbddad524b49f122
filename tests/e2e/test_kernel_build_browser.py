"""No first-visit wait: a fresh server (no kernel built on this machine) starts building the CPU kernel in a process
of its own as it starts, before any visit, and the first visit to Forward pass shows its result at once, computed on torch, saying so in the reader's
language."""

import os
import signal

from andrea_viz.i18n import translate
from cuda_ext import loader

from andrea_viz.testing_harness import descendants

from .conftest import VIEWPORT, exceptions, open_page, serve

BUILDING = ("The compiled kernels are being built in the background (the server started it when it started); until "
            "they are ready this page runs on torch. Open the page again in a minute or two to use them.")


def end_build(builder: int | None) -> None:
    """The build the server started and everything under it (its process group's ninja and compilers) end here."""
    if builder:
        for pid in [*descendants(builder), builder]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_the_first_forward_pass_visit_runs_on_torch_while_the_kernel_builds(browser, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(tmp_path))  # a machine that never built the kernel
    cpu = loader.build_dir("cpu")
    page = browser.new_page(viewport=VIEWPORT)
    builder = None
    try:
        with serve({"ANDREA_VIZ_KERNEL_BUILD": "background", "TORCH_EXTENSIONS_DIR": str(tmp_path)}) as (url, _pid):
            builder, live = loader.lock_owner(cpu)  # started with the server, before any visit (andrea_viz.web.hooks.at_start)
            assert builder and live, "no build running on a server that no one has visited yet"
            open_page(page, f"{url}/Forward_pass?lang=nl")
            assert exceptions(page) == []
            page.get_by_text(translate(BUILDING, "nl")).wait_for()  # said only while the build runs
            metric = page.locator("[data-testid='stMetric']", has_text=translate("Backend used", "nl"))
            assert metric.locator("[data-testid='stMetricValue']").inner_text().strip() == "torch"
            end_build(builder)  # while the server runs, before its own stop
            builder = None
    finally:
        page.close()
        owner, live = loader.lock_owner(cpu)
        end_build(builder or (owner if live else None))
