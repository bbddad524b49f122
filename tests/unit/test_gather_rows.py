"""``gather_rows``: the map's sample rows taken from the table as stored, one block at a time (so the server's other
pages get the interpreter's lock between blocks), equal to numpy's own ``table[ids]`` for every kept dtype."""

import ml_dtypes
import numpy as np
import pytest

from andrea_viz import model
from andrea_viz.model import gather_rows


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_equals_fancy_indexing_across_many_blocks(monkeypatch, dtype):
    monkeypatch.setattr(model, "BLOCK_BYTES", 8 * 16 * 3)  # 3 rows of 16 per block: 334 blocks for 1,000 ids
    rng = np.random.default_rng(0)
    table = rng.standard_normal((500, 16)).astype(dtype)
    ids = rng.permutation(np.concatenate([np.arange(500), rng.integers(0, 500, 500)]))
    got = gather_rows(table, ids)
    assert got.dtype == table.dtype and got.shape == (1000, 16)
    assert np.array_equal(got.view(np.uint8), table[ids].view(np.uint8))


def test_no_ids_and_bad_ids():
    table = np.ones((4, 3), np.float32)
    assert gather_rows(table, np.array([], np.int64)).shape == (0, 3)
    with pytest.raises(IndexError):
        gather_rows(table, np.array([0, 4]))
