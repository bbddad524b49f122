"""A pass over a memory-mapped table leaves every page it has read in the process's resident set until the map is
closed: 2 GiB for the audit of two 128,256 × 4,096 bfloat16 tables. ``release_pages`` hands a block's pages back once a
pass is done with them; they stay in the kernel's page cache, so reading them again costs no disk."""

from __future__ import annotations

import mmap

import numpy as np
from numpy.lib.array_utils import byte_bounds


# A read of one row maps the whole stretch of the file around it that the page cache holds as one piece (up to 2 MiB
# here: 4,000 random 8 KiB rows of a 1 GiB file left 1,041 MiB resident), so whole aligned stretches are let go; what
# lies beside the view is read in again from the page cache when next touched.
STRETCH = 2 * 2**20


def _read_only_mapping(a: np.ndarray) -> mmap.mmap | None:
    """The file map under ``a`` (through its chain of bases: a view, a reshaped buffer and its memoryview, a ``np.memmap``), if every
    array on the way is read-only (a writable or copy-on-write map may hold changes the file does not)."""
    base = a
    while base is not None and not isinstance(base, mmap.mmap):
        if isinstance(base, np.ndarray) and base.flags.writeable:
            return None
        base = base.obj if isinstance(base, memoryview) else getattr(base, "base", None)  # frombuffer keeps a memoryview
    return base


def release_pages(view: np.ndarray) -> None:
    """Drop the pages under ``view`` from this process's resident set, when it is a read-only view of a file map
    (``MADV_DONTNEED``: the next read maps them in again from the page cache). Anything else is left alone: on
    anonymous or writable memory the same call would lose data. A no-op where the platform has no ``madvise``."""
    if view.size == 0 or not hasattr(mmap, "MADV_DONTNEED"):
        return
    mm = _read_only_mapping(view)
    if mm is None or len(mm) == 0:
        return
    origin = np.frombuffer(mm, np.uint8, count=1).ctypes.data
    low, high = byte_bounds(view)
    start = max(low - origin, 0)
    start -= start % STRETCH
    end = min(high - origin + (-(high - origin)) % STRETCH, len(mm))
    if end > start:
        try:
            mm.madvise(mmap.MADV_DONTNEED, start, end - start)
        except (OSError, ValueError):  # not a mapping the kernel lets go of: it stays resident, as before
            pass
