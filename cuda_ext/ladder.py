"""Which kernel of the ladder ``andrea_viz.forward`` launches, per table dtype.

The versions (see embed_forward_thread.h): 1 one 16-byte unit per thread (llm.c's kernel 3, the
kernel until 2026-12-01), 2 four block-strided units per thread, 3 a position unit kept in
registers across the batch. ``python -m andrea_viz bench-gpu`` sweeps every version and block size
and prints a replacement for ``CHOICE`` from its own measurements.

NOT YET MEASURED: the entries below are v2 at 256 threads, the design's guess (more bytes in flight
per thread than v1, the same coalesced access), until bench-gpu has run on a GPU.
"""

from __future__ import annotations

VERSIONS = (1, 2, 3)
BLOCKS = (64, 128, 256, 512, 1024)  # the sweep bench-gpu runs
CHOICE: dict[str, tuple[int, int]] = {  # table dtype -> (version, threads per block)
    "float32": (2, 256),
    "bfloat16": (2, 256),
    "float16": (2, 256),
}
MEASURED = ""  # where CHOICE comes from: the device and date of the bench-gpu run, once there is one


def launch_for(dtype: str) -> tuple[int, int]:
    """(version, threads per block) for a table of ``dtype`` ("float32", "bfloat16" or "float16")."""
    if dtype not in CHOICE:
        raise ValueError(f"dtype must be one of {', '.join(CHOICE)}; got {dtype!r}")
    return CHOICE[dtype]


def choice_source(best: dict[str, tuple[int, int]], measured: str) -> str:
    """The lines of this file's CHOICE and MEASURED that ``best`` (dtype -> (version, block)) would give."""
    rows = "".join(f'    "{k}": ({v}, {b}),\n' for k, (v, b) in best.items())
    return f"CHOICE: dict[str, tuple[int, int]] = {{  # table dtype -> (version, threads per block)\n{rows}}}\n" \
           f"MEASURED = {measured!r}\n"
