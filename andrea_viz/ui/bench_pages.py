"""``python -m andrea_viz bench-pages``: every page's warm rerun under Streamlit's AppTest, medians per
page and model, and each fragment's body timed where it runs.

A warm rerun is what a click that changes nothing heavy costs: the model is loaded and the page has
run once (its caches are filled); then the whole script runs again.
"""

from __future__ import annotations

import os
import platform
import time
from statistics import median

from ..registry import HOME, APP_ROOT, available_pages
from ..maps.umap_run import warm_umap
from .fragments import TIMINGS

MODELS = ("minilm-l6", "andrea-120m-init")
TARGET_MS = 100
FRAGMENT_TARGET_MS = 50


def measure_page(page: str, model: str, repeats: int) -> tuple[float, float, dict[str, float]]:
    """(first run seconds, median warm rerun seconds, fragment body seconds) of one page on one model."""
    from streamlit.testing.v1 import AppTest


    at = AppTest.from_file(str(APP_ROOT / HOME), default_timeout=600)
    at.session_state["model"] = model
    at.run()
    t = time.perf_counter()
    if page != HOME:
        at.switch_page(page).run()
    else:
        at.run()
    first = time.perf_counter() - t
    if at.exception:
        raise RuntimeError(f"{page} on {model}: {at.exception[0].value}")
    at.run()  # the second run fills what the first left (a cache read back once)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - t)
    return first, median(times), dict(at.session_state[TIMINGS]) if TIMINGS in at.session_state else {}


def run(repeats: int = 7, models: tuple[str, ...] = MODELS) -> list[dict]:
    import streamlit

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; streamlit {streamlit.__version__}; warm rerun = "
          f"median of {repeats} reruns after two runs; target {TARGET_MS} ms, fragment bodies {FRAGMENT_TARGET_MS} ms",
          flush=True)
    t = time.perf_counter()
    warm_umap(background=False)  # the Projection page starts it in the background; it would slow the pages after it
    print(f"UMAP's numba code compiled first, as the server does once: {time.perf_counter() - t:.1f} s", flush=True)
    rows = []
    print(f"{'page':<16}" + "".join(f"{m:>22}" for m in models) + "   fragments (body, ms)")
    for p in available_pages():
        cells, frags = [], {}
        for m in models:
            first, warm, f = measure_page(p.path, m, repeats)
            rows.append({"page": p.label, "model": m, "first_s": first, "warm_ms": warm * 1e3,
                         "fragments_ms": {k: v * 1e3 for k, v in f.items()}})
            cells.append(f"{warm * 1e3:>8.0f} ms (first {first:4.1f} s)")
            for k, v in f.items():
                frags[f"{k} on {m}"] = v * 1e3
        print(f"{p.label:<16}" + "".join(f"{c:>22}" for c in cells) + "   "
              + ", ".join(f"{k}: {v:.0f}" for k, v in frags.items()), flush=True)
    worst = max(rows, key=lambda r: r["warm_ms"])
    print(f"slowest warm rerun: {worst['page']} on {worst['model']}, {worst['warm_ms']:.0f} ms")
    return rows


if __name__ == "__main__":  # ``python -m andrea_viz bench-pages`` runs this module in a process of its own
    import argparse

    parser = argparse.ArgumentParser(prog="python -m andrea_viz bench-pages")
    parser.add_argument("--repeats", type=int, default=7)
    run(repeats=parser.parse_args().repeats)
