"""``file_pages.release_pages``: a pass over a memory-mapped table hands its pages back to the kernel, the data stays what
the file holds, and memory that is not a read-only file map is never touched."""

from __future__ import annotations

import numpy as np
import pytest
from safetensors.numpy import save_file

from andrea_viz.checkpoints.safetensors_file import map_tensor, safetensors_header
from andrea_viz.file_pages import release_pages

MB = 1 << 20


def _resident_file_bytes() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("RssFile:"):
            return int(line.split()[1]) * 1024
    pytest.fail("/proc/self/status has no RssFile line")


@pytest.fixture
def mapped(tmp_path):
    table = np.random.default_rng(0).standard_normal((4_096, 4_096)).astype(np.float32)  # 64 MiB
    path = tmp_path / "model.safetensors"
    save_file({"wte": table}, str(path))
    head, base = safetensors_header(path)
    start = base + head["wte"]["data_offsets"][0]
    return table, map_tensor(path, start, np.dtype(np.float32), (4_096, 4_096))


def test_a_read_table_leaves_the_resident_set_and_reads_back_the_same(mapped):
    table, view = mapped
    before = _resident_file_bytes()
    total = float(view.sum(dtype=np.float64))  # every page read in
    read = _resident_file_bytes()
    assert read - before > 56 * MB
    for i in range(0, 4_096, 512):  # as a pass lets go of its blocks
        release_pages(view[i:i + 512])
    assert read - _resident_file_bytes() > 56 * MB
    assert float(view.sum(dtype=np.float64)) == total and np.array_equal(view[::97], table[::97])


def test_a_column_slice_lets_go_of_the_rows_it_spans(mapped):
    _, view = mapped
    view[:1_024].sum()
    before = _resident_file_bytes()
    release_pages(view[:1_024, :64])
    assert before - _resident_file_bytes() > 12 * MB  # 1,024 rows of 16 KiB


def test_memory_that_is_not_a_read_only_file_map_is_left_alone(tmp_path):
    ones = np.ones((1_024, 1_024), np.float32)  # anonymous memory: MADV_DONTNEED would turn it into zeros
    ones.flags.writeable = False
    release_pages(ones)
    assert ones.min() == 1.0
    path = tmp_path / "table.npy"
    np.save(path, np.zeros((1_024, 1_024), np.float32))
    changed = np.load(path, mmap_mode="c")  # copy-on-write: the change lives only in this process's pages
    changed[:] = 7.0
    seen = changed[:512]
    seen.flags.writeable = False  # a read-only view of it is still not the file's bytes
    release_pages(seen)
    assert changed.min() == 7.0
    release_pages(np.zeros((0, 4), np.float32))  # nothing to let go of
