"""The benchmark commands of ``python -m andrea_viz``, from one table: each row a name, its help, the function that
runs it (called with the command's options as keywords, each under its argparse dest) and its options."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from ..cli_options import Common, whole
from ..errors import QueryError
from ..family import CONTEXT, FAMILY
from ..grow.trainer import DEFAULT_PRESET, PRESETS
from . import anatomy as bench_anatomy
from . import audit as bench_audit
from . import class_idle as bench_class_idle
from . import class_teacher as bench_class_teacher
from . import classroom as bench_class
from . import drift as bench_drift
from . import forward as bench_forward
from . import geometry as bench_geometry
from . import gpu as bench_gpu
from . import grow as bench_grow
from . import load as bench_load
from . import map_compute as bench_map
from . import map_methods as bench_map_methods
from . import map_view as bench_map_view
from . import memory as bench_memory
from . import precision as bench_precision
from . import tying as bench_tying

NOT_OPTIONS = ("command", "func")  # what argparse's Namespace holds besides the options


def option(*flags: str, **settings) -> tuple[tuple[str, ...], dict]:
    """One option of a bench command: ``add_argument``'s arguments, kept for later."""
    return flags, settings


@dataclass(frozen=True)
class Bench:
    name: str
    help: str
    run: Callable[..., object]  # the options as keywords; an int it returns is the exit code, anything else was printed
    options: tuple[tuple[tuple[str, ...], dict], ...] = ()

    def __call__(self, args: argparse.Namespace) -> int:
        got = self.run(**{k: v for k, v in vars(args).items() if k not in NOT_OPTIONS})
        return got if type(got) is int else 0


def _run_pages(repeats: int) -> int:
    """``ui/bench_pages.py`` in a process of its own, as bench-map-view serves ``ui/bench_map_app.py``: it drives the
    pages under Streamlit's AppTest, and only ``ui/`` imports Streamlit (the other commands never pay its import)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", PAGES_MODULE, "--repeats", str(repeats)]).returncode


PAGES_MODULE = "andrea_viz.ui.bench_pages"


def _run_map(repeats: int, no_big: bool, no_browser: bool, sizes: list[int], methods: bool, tables: list[str],
         full_quality: bool, lock_only: bool, card: bool, planted: bool) -> None:
    if planted:  # the planted 262k table alone: its map and its region labels
        bench_map.run_planted_only(browser=not no_browser)
        return
    if lock_only:  # the server's lock probe alone
        bench_map.run_lock_only(not no_big)
        return
    if card:  # the full quality card's time alone
        bench_map.run_card(repeats)
        return
    if methods:  # the methods side by side instead of the UMAP map's timings
        bench_map_methods.run(tables=tuple(tables), full=True if full_quality else None)
        return
    bench_map.run(repeats, not no_big, planted=not no_big, browser=not no_browser)
    if not no_browser:  # the browser half in the same run: the renderers side by side
        bench_map_view.run(sizes=tuple(sizes))


def _run_forward(B: int, T: int, d: int, V: int, dtype: str, repeats: int, no_compile: bool, json: bool) -> None:
    if min(B, T, d, V, repeats) < 1:
        raise QueryError("B, T, d, V and --repeats must all be at least 1")
    bench_forward.run(B=B, T=T, d=d, V=V, dtype=dtype, repeats=repeats, as_json=json, compile_torch=not no_compile)


def _run_class(n: list[int], trainings: bool, steps: int, only: str | None, teacher: bool, idle: bool, servers: int,
               store: str) -> None:
    if trainings:
        bench_class.run_trainings(steps=steps, only=only)
        return
    if not n or min(n) < 1:
        raise QueryError("give one or more class sizes of at least 1 learner, e.g. bench-class 5 10 20 30")
    if idle:
        if teacher or servers != 1 or store != "sqlite":
            raise QueryError("--idle runs one server of each kind on SQLite by itself: give it without --teacher, "
                             "--servers and --store, e.g. bench-class 30 --idle")
        for size in n:
            bench_class_idle.run(size)
        return
    if not teacher:
        if servers != 1 or store != "sqlite":
            raise QueryError("--servers and --store go with --teacher, e.g. bench-class 30 --teacher --servers 2 "
                             "--store postgresql")
        bench_class.run(n)
        return
    if servers < 1:
        raise QueryError("--servers must be at least 1: one server, or more for the learners to be split across")
    for size in n:
        bench_class_teacher.run(size, servers=servers, store=store)


def _run_anatomy(threads: int | None) -> None:
    if threads:
        import torch

        torch.set_num_threads(threads)
    bench_anatomy.run()


def _repeats(n: int) -> tuple[tuple[str, ...], dict]:
    return option("--repeats", type=int, default=n)


BENCHES = (
    Bench("bench-precision", "exact top-10 of every MiniLM row at one precision, beside plain numpy",
          lambda repeats, dtype: bench_precision.run(repeats=repeats, precision=dtype),
          (_repeats(3), option("--dtype", default="q4_0", help="the precision timed (default q4_0)"))),
    Bench("bench-pages", "every page's warm rerun in AppTest, medians per page and model", _run_pages, (_repeats(7),)),
    Bench("bench-map-view", "the map renderers in headless Chromium: pan fps, hover ms, payload bytes",
          lambda sizes, renderers: bench_map_view.run(sizes=tuple(sizes), renderers=tuple(renderers)),
          (option("--sizes", type=int, nargs="+", default=list(bench_map_view.SIZES)),
           option("--renderers", nargs="+", choices=bench_map_view.RENDERERS, default=list(bench_map_view.RENDERERS),
                  help="the renderers drawn (default: all three)"))),
    Bench("bench-drift", "time to compare two 50,257 × 768 tables (Procrustes, drift, overlap)", bench_drift.run,
          (_repeats(3),)),
    Bench("bench-audit", "the audit of a 128,256 × 4,096 bf16 table with 1,000 added rows, the alignment of 50,000 "
          "anchors × 4,096, and held-out cosines of grown runs beside a baseline", bench_audit.run,
          (_repeats(3), option("--grow-steps", type=int, default=600, help="steps of the seed-2 micro run (0: skip it)"),
           option("--rows", type=int, default=bench_audit.V), option("--d", type=int, default=bench_audit.D),
           option("--added", type=int, default=bench_audit.ADDED),
           option("--anchors", type=int, default=bench_audit.ANCHORS))),
    Bench("bench-grow", "steps per second and time until cat's neighbours include dog, beside plain torch",
          bench_grow.run, (_repeats(3),)),
    Bench("bench-geometry", "medians of neighbour search, PCA and t-SNE (openTSNE vs scikit-learn)", bench_geometry.run,
          (_repeats(5), option("--tsne-points", type=int, default=5000), option("--tsne-repeats", type=int, default=3),
           option("--no-whole", dest="whole", action="store_false",
                  help="skip the whole-table maps (UMAP, openTSNE, scikit-learn)"),
           option("--no-sklearn-whole", dest="sklearn_all", action="store_false",
                  help="skip scikit-learn's t-SNE of the whole table (minutes)"))),
    Bench("bench-map", "the whole-table UMAP map of MiniLM and a 128,256 × 4,096 bf16 table: cold, code cached and map "
          "cached, each a fresh process; trustworthiness; then the renderers in headless Chromium (bench-map-view)",
          _run_map,
          (_repeats(1), option("--no-big", action="store_true", help="MiniLM only"),
           option("--no-browser", action="store_true", help="the compute half only (no headless Chromium)"),
           option("--sizes", type=int, nargs="+", default=list(bench_map_view.SIZES),
                  help="points of the browser half's maps"),
           option("--methods", action="store_true", help="PCA, UMAP, openTSNE FFT, PaCMAP and TriMap side by side: "
                  "wall time, T@10, C@10, triplet accuracy, kNN class accuracy"),
           option("--tables", nargs="+", default=list(bench_map_methods.TABLES),
                  help="with --methods: built-in tables, NAME:ROWS for a seeded sample of one"),
           option("--full-quality", action="store_true", help="with --methods: every card over every point"),
           option("--lock-only", action="store_true", help="only the probe of the server's interpreter lock while each "
                  "map computes (its longest stall, and where each over 0.1 s fell)"),
           option("--card", action="store_true", help="only MiniLM's full quality card, today's rank counting beside "
                  "the searchsorted one before it"),
           option("--planted", action="store_true", help="only the planted 262,144 × 2,560 table: its map cold and "
                  "cached, its region labels' time and adjusted Rand index against the planted classes"))),
    Bench("bench", "the forward pass on every backend and torch, side by side", _run_forward,
          (option("--B", type=int, default=8), option("--T", type=int, default=CONTEXT),
           option("--d", type=int, default=FAMILY["ANDREA-120M"].d), option("--V", type=int, default=FAMILY["ANDREA-120M"].V),
           option("--dtype", choices=bench_forward.DTYPES, default="float32"), _repeats(20),
           option("--no-compile", action="store_true", help="skip torch.compile (it takes a while to compile)"),
           option("--json", action="store_true"))),
    Bench("bench-gpu", "the GPU check: build the CUDA kernel, compare it with the reference, benchmark it",
          bench_gpu.gpu_check, (_repeats(50),)),
    Bench("bench-memory", "peak memory of a large table used as the pages use it, against its size", bench_memory.run,
          (option("--gb", type=float, default=4.0, help="size of the float32 table (default 4)"),
           option("-d", type=int, default=4096, help="its width (default 4,096)"),
           option("--folder", help="where to write it (default: the temporary folder)"))),
    Bench("bench-tying", "tied against untied: two grown ANDREAs that differ only in the head, their training and "
          "held-out losses side by side", bench_tying.run,
          (option("--preset", choices=list(PRESETS), default=DEFAULT_PRESET), option("--seed", type=int, default=0),
           option("--steps", type=int, help="training steps of each run (default: the preset's)"),
           option("--write", action="store_true", help="keep the figures for the Lesson (andrea_viz/data/tying.json)"))),
    Bench("bench-class", "N learners in one Chromium on one server: p50/p95 page times, peak memory", _run_class,
          (option("n", type=int, nargs="*", help="class sizes, each on a fresh server (e.g. 5 10 20 30)"),
           option("--trainings", action="store_true",
                  help="instead: three watched trainings, the settings before issue 22 against today's"),
           option("--steps", type=int, default=600, help="steps of each training with --trainings (default 600)"),
           option("--only", choices=["before", "gc", "today"], help="with --trainings: one row of settings only"),
           option("--teacher", action="store_true",
                  help="instead: the class joined and answering with its teacher's view open, against the same "
                  "learners without a class: answer→teacher and follow-me lags, memory, page times"),
           option("--idle", action="store_true",
                  help="instead: a joined class idle on the Lesson page and two steps followed, the class's route "
                  "against a 2 s timer: the machine's and the server's CPU, follow-me lags"),
           option("--servers", type=whole, default=1, help="with --teacher: servers, the learners split across them"),
           option("--store", choices=["sqlite", "postgresql"], default="sqlite",
                  help="with --teacher: the class store (postgresql: Debian's, started on loopback for the run)"))),
    Bench("bench-load", "time and peak memory of info, neighbors, a PCA and a warm query on a Llama-3-8B-shaped folder "
          "and a Gemma-3-shaped table, beside a plain safetensors read", bench_load.run,
          (_repeats(3), option("--folder", help="where to write the test files (default: the system temp folder)"))),
    Bench("bench-anatomy", "indicators and dimension stats of a 128,256 × 4,096 bf16 table, MiniLM's hubs", _run_anatomy,
          (option("--threads", type=whole, help="torch's CPU threads (default: torch's own choice)"),)),
)


def add_commands(sub, common: Common) -> None:
    """Every row of ``BENCHES`` as a command (they take none of the common options)."""
    for bench in BENCHES:
        p = sub.add_parser(bench.name, help=bench.help)
        for flags, settings in bench.options:
            p.add_argument(*flags, **settings)
        p.set_defaults(func=bench)
