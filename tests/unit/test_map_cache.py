"""Maps kept on disk: the key, hits across calls and processes, bad files, eviction, the folder."""

import dataclasses
import io
import json
import os
import stat
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pytest

from andrea_viz.maps import cache as map_cache
from andrea_viz.maps.cache import STATS, cache_dir, evict, fingerprint, load_map, map_key, save_map
from andrea_viz.maps.methods import METHODS, settings_for, SHARED_SETTINGS
from andrea_viz.maps.project import project_model

BASE = {"n": 500, "include": ("cat",), "seed": 0, "dims": 2, "axes": (0, 1), "perplexity": 30.0, "n_iter": 500}
CHANGED = {"n": "all", "include": ("dog",), "seed": 1, "dims": 3, "axes": (1, 0), "perplexity": 20.0, "n_iter": 750}


@pytest.fixture
def maps(tmp_path, monkeypatch):
    folder = tmp_path / "maps"
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(folder))
    return folder


@pytest.mark.parametrize("method", list(METHODS))
def test_the_key_changes_with_every_setting_the_method_reads_and_nothing_else(method):
    reads = {*SHARED_SETTINGS, *METHODS[method].uses}
    base = map_key("model-a", method, settings_for(method, **BASE))
    for name, value in CHANGED.items():
        key = map_key("model-a", method, settings_for(method, **{**BASE, name: value}))
        assert (key != base) == (name in reads), (method, name)
    assert map_key("model-b", method, settings_for(method, **BASE)) != base
    others = [m for m in METHODS if m != method]
    assert all(map_key("model-a", m, settings_for(m, **BASE)) != base for m in others)


def _slow_fingerprint(emb) -> str:
    """The fingerprint one row block at a time, in one thread: the blocks' digests, then every token string."""
    import hashlib

    h = hashlib.sha256()
    table = emb.token_table
    h.update(json.dumps([list(table.shape), str(table.dtype)]).encode())
    rows = max(1, map_cache.FINGERPRINT_BLOCK_BYTES // (table.shape[1] * table.dtype.itemsize))
    for i in range(0, table.shape[0], rows):
        h.update(hashlib.sha256(np.ascontiguousarray(table[i:i + rows]).tobytes()).digest())
    for i in range(emb.vocab_size):
        h.update(emb.token(i).encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()[:40]


def test_the_fingerprint_is_the_tables_bytes_and_the_token_strings(load_model):
    micro = load_model("andrea-micro")
    fp = fingerprint(micro)
    map_cache._fingerprints.clear()  # computed again, not the memoised value
    assert fingerprint(micro) == fp == _slow_fingerprint(micro)
    table = micro.token_table.copy()
    same = dataclasses.replace(micro, token_table=table, key="another key, same content")
    assert fingerprint(same) == fingerprint(micro)  # the content, not the name or key
    table2 = micro.token_table.copy()
    table2[554, 63] = np.nextafter(table2[554, 63], np.float32(1))  # one value, one ulp
    assert fingerprint(dataclasses.replace(micro, token_table=table2)) != fingerprint(micro)
    assert fingerprint(load_model("andrea-12m-init")) != fingerprint(micro)


def test_the_fingerprint_hashed_in_blocks_on_every_core_keeps_each_blocks_place(load_model, monkeypatch):
    micro = load_model("andrea-micro")
    row = micro.token_table.shape[1] * micro.token_table.dtype.itemsize
    monkeypatch.setattr(map_cache, "FINGERPRINT_BLOCK_BYTES", 50 * row)  # 555 rows: 12 blocks
    many = fingerprint(dataclasses.replace(micro, key="many cores"))
    monkeypatch.setattr(map_cache.os, "cpu_count", lambda: 1)
    assert fingerprint(dataclasses.replace(micro, key="one core")) == many  # the same on any machine
    swapped = micro.token_table.copy()
    swapped[:100] = np.concatenate([micro.token_table[50:100], micro.token_table[:50]])  # blocks 1 and 2 swapped
    assert fingerprint(dataclasses.replace(micro, token_table=swapped)) != many


def test_a_second_projection_is_read_from_disk_not_computed(maps, load_model, monkeypatch):
    micro = load_model("andrea-micro")
    before = dict(STATS)
    first = project_model(micro, "tsne", n="all", include=("the",), seed=3, perplexity=10.0, n_iter=250)
    assert not first.from_cache and STATS["writes"] == before["writes"] + 1 and len(list(maps.glob("map-*.npz"))) == 1

    def never(*a, **k):
        raise AssertionError("the map was computed again")

    monkeypatch.setitem(METHODS, "tsne", dataclasses.replace(METHODS["tsne"], run=never))
    seen = []
    second = project_model(micro, "tsne", n="all", include=("the",), seed=3, perplexity=10.0, n_iter=250,
                           progress=lambda f, s: seen.append(str(s)))
    assert second.from_cache and STATS["hits"] == before["hits"] + 1 and seen == ["read from the map cache"]
    assert np.array_equal(first.sample.ids, second.sample.ids) and first.sample.groups == second.sample.groups
    assert second.projection.coords.dtype == np.float32 and np.array_equal(first.projection.coords, second.projection.coords)
    assert np.array_equal(first.trust, second.trust, equal_nan=True) and first.trust_mean == second.trust_mean
    assert first.tokens == second.tokens and first.projection.note == second.projection.note
    assert str(second.title) == str(first.title)
    with pytest.raises(AssertionError, match="computed again"):  # another setting of t-SNE is another map
        project_model(micro, "tsne", n="all", include=("the",), seed=3, perplexity=11.0, n_iter=250)


def test_pca_keeps_its_explained_variance(maps, load_model):
    micro = load_model("andrea-micro")
    a = project_model(micro, "pca", n="all", axes=(1, 2))
    b = project_model(micro, "pca", n="all", axes=(1, 2))
    assert b.from_cache and np.array_equal(a.projection.explained_variance_ratio, b.projection.explained_variance_ratio)
    assert str(a.title) == str(b.title)


def _written(folder: Path) -> Path:
    (path,) = folder.glob("map-*.npz")
    return path


@pytest.mark.parametrize("bad", ["garbage", "truncated", "foreign key", "pickled object", "nan coordinates"])
def test_a_corrupt_or_foreign_file_is_ignored_and_rebuilt(maps, load_model, bad):
    micro = load_model("andrea-micro")
    first = project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    good = path.read_bytes()
    if bad == "garbage":
        path.write_bytes(b"not a map at all")
    elif bad == "truncated":
        path.write_bytes(good[: len(good) // 2])
    else:
        with np.load(path, allow_pickle=False) as f:
            arrays = {k: f[k] for k in f.files}
        meta = json.loads(str(arrays["meta"]))
        if bad == "foreign key":
            arrays["meta"] = np.array(json.dumps({**meta, "key": "0" * 40}))
        elif bad == "pickled object":
            arrays["groups"] = np.array([object()] * len(arrays["ids"]), dtype=object)
        else:
            arrays["coords"][0, 0] = np.nan
        with open(path, "wb") as f:
            np.savez(f, **arrays)
    rejected = STATS["rejected"]
    again = project_model(micro, "pca", n=200, seed=5)
    assert not again.from_cache and STATS["rejected"] == rejected + 1
    assert np.array_equal(again.projection.coords, first.projection.coords)
    assert load_map(path.name[4:-4]) is not None  # rebuilt: the file is good again


def test_the_oldest_maps_are_evicted_first_beyond_the_size_limit(tmp_path):
    def write(name: str, mtime: float) -> Path:
        p = tmp_path / f"map-{name}.npz"
        p.write_bytes(b"x" * 1000)
        os.utime(p, (mtime, mtime))
        return p

    old, middle, new = write("a", 100), write("b", 200), write("c", 300)
    assert evict(tmp_path, 2500) == [old] and middle.exists() and new.exists()
    assert evict(tmp_path, 0, keep=new) == [middle] and new.exists()


def test_save_keeps_the_folder_under_its_limit_and_a_read_makes_a_map_young(maps, monkeypatch):
    ids = np.arange(100)
    args = (("other",) * 100, np.zeros((100, 2), np.float32), np.zeros(100), None)
    meta = {"method": "pca", "seconds": 0.5, "trust_mean": 0.0, "note": None}
    one = save_map("z" * 40, meta, ids, *args)
    size = one.stat().st_size
    one.unlink()
    monkeypatch.setenv("ANDREA_VIZ_CACHE_MB", str(2.5 * size / 2**20))  # room for two of these maps
    for j, key in enumerate("abc"):
        save_map(key * 40, meta, ids, *args)
        os.utime(maps / f"map-{key * 40}.npz", (1000 + j, 1000 + j))
        if key == "b":
            assert load_map("a" * 40) is not None  # read now: younger than b
    assert sorted(p.name[4:5] for p in maps.glob("map-*.npz")) == ["a", "c"]


def test_off_keeps_nothing(tmp_path, monkeypatch, load_model):
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", "off")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() is None
    r = project_model(load_model("andrea-micro"), "pca", n=100)
    assert not r.from_cache and list(tmp_path.rglob("*.npz")) == []


def test_the_folder_is_the_variable_else_xdg_else_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(tmp_path / "mine"))
    assert cache_dir() == tmp_path / "mine"
    monkeypatch.delenv("ANDREA_VIZ_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "andrea_viz"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == tmp_path / ".cache" / "andrea_viz"


def test_the_test_run_has_its_own_cache_folder():
    assert "andrea-viz-test-maps-" in os.environ["ANDREA_VIZ_CACHE_DIR"] and map_cache.cache_dir() is not None


def test_the_cli_reads_a_map_another_process_wrote_and_writes_the_same_tsv(cli, tmp_path, monkeypatch):
    """6,000 points of MiniLM: trust scored on 5,000 of them, so empty trust cells are kept byte for byte too. The
    map is written here (in-process, the cli fixture) and read by a fresh process on purpose: a map another process
    wrote comes from the disk, never from this one's memory."""
    monkeypatch.setenv("ANDREA_VIZ_CACHE_DIR", str(tmp_path / "maps"))
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    first = cli("project", "minilm-l6", "--method", "pca", "--n", "6000", "--include", "cat", "--out", str(a))
    assert first.returncode == 0, first.stderr
    assert "map cache" not in first.stdout
    second = subprocess.run([sys.executable, "-m", "andrea_viz", "project", "minilm-l6", "--method", "pca", "--n", "6000",
                             "--include", "cat", "--out", str(b)], capture_output=True, text=True, env=dict(os.environ))
    assert second.returncode == 0, second.stderr
    assert "read from the map cache" in second.stdout
    assert a.read_bytes() == b.read_bytes()
    assert sum(line.endswith("\t\n") for line in a.read_text().splitlines(keepends=True)) == 1000


# Planted files: a map cache folder is private (0700, this user's), and a file in it is trusted only after every
# member's size (from the zip directory), dtype, shape, range and the header's keys and types are checked.

def _plant(path: Path, **changes) -> None:
    """Rewrite the map in ``path`` with some arrays replaced (``meta`` as a dict or as raw text)."""
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    for name, value in changes.items():
        if name == "meta" and isinstance(value, dict):
            value = np.array(json.dumps(value))
        elif name == "meta":
            value = np.array(value)
        if value is None:
            arrays.pop(name)
        else:
            arrays[name] = value
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _meta(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as f:
        return json.loads(str(f["meta"]))


def _ids(path: Path) -> np.ndarray:
    with np.load(path, allow_pickle=False) as f:
        return f["ids"]


PLANTED = {
    "id out of range": lambda p, v: {"ids": np.where(np.arange(_ids(p).size) == 0, v, _ids(p))},
    "negative id": lambda p, v: {"ids": np.where(np.arange(_ids(p).size) == 0, -1, _ids(p))},
    "ids int32": lambda p, v: {"ids": _ids(p).astype(np.int32)},
    "ids float": lambda p, v: {"ids": _ids(p).astype(np.float64)},
    "ids two-dimensional": lambda p, v: {"ids": _ids(p).reshape(-1, 1)},
    "ids repeated": lambda p, v: {"ids": np.zeros_like(_ids(p))},
    "ids missing": lambda p, v: {"ids": None},
    "seconds as text": lambda p, v: {"meta": {**_meta(p), "seconds": "fast"}},
    "trust_mean a list": lambda p, v: {"meta": {**_meta(p), "trust_mean": [0.5]}},
    "trust_mean above one": lambda p, v: {"meta": {**_meta(p), "trust_mean": 7.0}},
    "note params an object": lambda p, v: {"meta": {**_meta(p), "note": {"msgid": "{a}", "params": {"a": {"b": 1}}}}},
    "note a list": lambda p, v: {"meta": {**_meta(p), "note": ["x"]}},
    "note reaching attributes": lambda p, v: {"meta": {**_meta(p), "note": {"msgid": "{a.__class__}", "params": {"a": 1}}}},
    "note field not given": lambda p, v: {"meta": {**_meta(p), "note": {"msgid": "{missing}", "params": {}}}},
    "note that cannot format": lambda p, v: {"meta": {**_meta(p), "note": {"msgid": "{a:,}", "params": {"a": "x"}}}},
    "note with a nested field": lambda p, v: {"meta": {**_meta(p), "note": {"msgid": "{a:{b.real}}", "params": {"a": 1, "b": 2}}}},
    "missing trust_mean": lambda p, v: {"meta": {k: x for k, x in _meta(p).items() if k != "trust_mean"}},
    "missing seconds": lambda p, v: {"meta": {k: x for k, x in _meta(p).items() if k != "seconds"}},
    "meta not JSON": lambda p, v: {"meta": "{'key': not json"},
    "meta a list": lambda p, v: {"meta": "[1, 2]"},
    "trust as text": lambda p, v: {"trust": np.array(["x"] * _ids(p).size)},
    "coords 1-D": lambda p, v: {"coords": np.zeros(_ids(p).size, np.float32)},
    "an extra member": lambda p, v: {"extra": np.zeros(3)},
}


@pytest.mark.parametrize("bad", list(PLANTED))
def test_a_planted_file_with_bad_ids_or_meta_is_refused_in_a_sentence_and_rebuilt(maps, load_model, caplog, bad):
    micro = load_model("andrea-micro")
    first = project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    _plant(path, **PLANTED[bad](path, micro.vocab_size))
    rejected = STATS["rejected"]
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        again = project_model(micro, "pca", n=200, seed=5)  # no exception out of project_model
    assert not again.from_cache and STATS["rejected"] == rejected + 1
    (said,) = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert said.startswith(f"the cached map {path.name} was refused: it"), said
    assert "Traceback" not in said and said.endswith("the map is computed again")
    assert np.array_equal(again.projection.coords, first.projection.coords)
    assert load_map(path.name[4:-4], micro.vocab_size) is not None  # rebuilt


def test_the_sentence_says_what_was_expected_and_what_came(maps, load_model, caplog):
    micro = load_model("andrea-micro")
    project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    _plant(path, **PLANTED["id out of range"](path, micro.vocab_size))
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        assert load_map(path.name[4:-4], micro.vocab_size) is None
    assert f"expected 0 to {micro.vocab_size - 1}" in caplog.text and f"to {micro.vocab_size}," in caplog.text


class _RepeatingDeflate:
    """zlib's deflate, but a block of zeros it has compressed once (after a full flush, so the output is the same
    every time) is not compressed again: a 2 GB member is written in a second."""

    def __init__(self):
        self._z = zlib.compressobj(9, zlib.DEFLATED, -15)
        self._seen: dict[int, bytes] = {}

    def compress(self, data) -> bytes:
        if id(data) in self._seen:
            return self._seen[id(data)]
        out = self._z.compress(data) + self._z.flush(zlib.Z_FULL_FLUSH)
        if len(data) > 1 << 20:
            self._seen[id(data)] = out
        return out

    def flush(self) -> bytes:
        return self._z.flush()


def test_a_zip_bomb_member_is_refused_from_the_zip_directory_without_inflating_it(maps, load_model, monkeypatch, caplog):
    micro = load_model("andrea-micro")
    project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<i8", "fortran_order": False, "shape": (2**28,)})
    zeros = bytes(64 << 20)
    bomb = maps / "bomb.npz"
    with monkeypatch.context() as m, zipfile.ZipFile(bomb, "w") as zf:
        m.setattr(zipfile, "_get_compressor", lambda kind, *a: _RepeatingDeflate() if kind == zipfile.ZIP_DEFLATED else None)
        for name, value in arrays.items():
            if name == "ids":
                info = zipfile.ZipInfo("ids.npy")
                info.compress_type = zipfile.ZIP_DEFLATED
                with zf.open(info, "w", force_zip64=True) as w:
                    w.write(header.getvalue())
                    for _ in range(32):
                        w.write(zeros)
            else:
                buf = io.BytesIO()
                np.lib.format.write_array(buf, value, allow_pickle=False)
                zf.writestr(f"{name}.npy", buf.getvalue())
    with zipfile.ZipFile(bomb) as zf:
        info = zf.getinfo("ids.npy")
    assert info.compress_type == zipfile.ZIP_DEFLATED and info.file_size > 2**31 and bomb.stat().st_size < 3 << 20
    os.replace(bomb, path)
    tracemalloc.start()
    try:
        with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
            assert load_map(path.name[4:-4], micro.vocab_size) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, peak  # not one of its 2 GB was inflated
    assert "member ids.npy is compressed" in caplog.text and f"{info.file_size:,}" in caplog.text
    again = project_model(micro, "pca", n=200, seed=5)  # refused, computed, written again
    assert not again.from_cache and load_map(path.name[4:-4], micro.vocab_size) is not None


def test_a_member_whose_header_claims_more_than_it_holds_is_refused_before_reading(maps, load_model, caplog):
    micro = load_model("andrea-micro")
    project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    with zipfile.ZipFile(path, "w") as zf:
        for name, value in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, value, allow_pickle=False)
            raw = buf.getvalue()
            if name == "trust":
                raw = raw.replace(f"({value.size},)".encode(), f"({value.size * 10**6},)".encode())
            zf.writestr(f"{name}.npy", raw)
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        assert load_map(path.name[4:-4], micro.vocab_size) is None
    assert "member trust.npy says" in caplog.text


def test_a_compressed_map_is_refused(maps, load_model):
    micro = load_model("andrea-micro")
    project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    with np.load(path, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)
    assert load_map(path.name[4:-4], micro.vocab_size) is None


def _outside_untouched(tmp_path: Path, maps: Path, before: dict) -> None:
    now = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and maps not in p.parents}
    assert now == before


def test_a_symlink_planted_at_a_temp_name_is_never_followed(maps, tmp_path, load_model):
    maps.mkdir(mode=0o700)
    outside = tmp_path / "precious.txt"
    outside.write_bytes(b"the server's own file")
    key = "e" * 40
    # the names the old code wrote through (``.map-<key>.npz.<pid>.tmp``) and mkstemp's prefix with a few suffixes
    for name in (f".map-{key}.npz.{os.getpid()}.tmp", f".map-{key}.npz.{os.getpid() + 1}.tmp", f".map-{key}.tmp"):
        (maps / name).symlink_to(outside)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and maps not in p.parents}
    ids = np.arange(50)
    written = save_map(key, {"method": "pca", "seconds": 0.1, "trust_mean": 0.5, "note": None}, ids, ("other",) * 50,
                       np.zeros((50, 2), np.float32), np.full(50, 0.5), None)
    assert written == maps / f"map-{key}.npz" and not written.is_symlink()
    _outside_untouched(tmp_path, maps, before)
    assert load_map(key, 100) is not None


def test_a_symlinked_map_is_neither_read_through_nor_written_through(maps, tmp_path, load_model):
    micro = load_model("andrea-micro")
    project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    outside = tmp_path / "elsewhere.npz"
    os.replace(path, outside)  # a good map, but outside the folder, reached by a link
    path.symlink_to(outside)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and maps not in p.parents}
    again = project_model(micro, "pca", n=200, seed=5)
    assert not again.from_cache  # the link is not followed
    _outside_untouched(tmp_path, maps, before)
    assert path.is_file() and not path.is_symlink()  # replaced by the map, the link's target untouched


def test_a_write_that_fails_leaves_no_temp_file_and_says_why(maps, monkeypatch, caplog):
    import errno

    def full(f, **arrays):
        f.write(b"PK" + bytes(1000))  # part of a file, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(map_cache.np, "savez", full)
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        assert save_map("f" * 40, {}, np.arange(5), ("other",) * 5, np.zeros((5, 2), np.float32), np.zeros(5),
                        None) is None
    assert list(maps.iterdir()) == []  # neither the map nor its temp file
    assert "disk is full" in caplog.text and "Errno" not in caplog.text


def test_temp_files_left_behind_are_evicted(maps):
    maps.mkdir(mode=0o700)
    old, fresh = maps / ".map-abc.x1y2.tmp", maps / ".map-def.z3w4.tmp"
    for p in (old, fresh):
        p.write_bytes(b"x" * 100)
    os.utime(old, (1000, 1000))
    assert evict(maps, 10**9) == [old] and fresh.exists()  # a write in progress now is left alone


@pytest.mark.parametrize("mode", [0o770, 0o777, 0o720])
def test_a_folder_others_may_write_is_refused_with_a_sentence(maps, load_model, caplog, mode):
    maps.mkdir()
    maps.chmod(mode)
    micro = load_model("andrea-micro")
    map_cache._said.clear()
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        r = project_model(micro, "pca", n=100, seed=2)
        again = project_model(micro, "pca", n=100, seed=2)
    assert not r.from_cache and not again.from_cache and list(maps.iterdir()) == []
    assert f"may be written by others (mode {mode:o}, expected 700); maps are not kept" in caplog.text


def test_a_folder_another_user_owns_is_refused_with_a_sentence(maps, load_model, caplog, monkeypatch):
    maps.mkdir(mode=0o700)
    monkeypatch.setattr(map_cache.os, "getuid", lambda: os.stat(maps).st_uid + 1)
    map_cache._said.clear()
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        r = project_model(load_model("andrea-micro"), "pca", n=100, seed=2)
    assert not r.from_cache and list(maps.iterdir()) == []
    assert "not to the user running the app" in caplog.text


def test_a_new_folder_is_made_private_and_a_readable_one_of_ours_is_made_private(maps, tmp_path):
    save_map("a" * 40, {}, np.arange(3), ("other",) * 3, np.zeros((3, 2), np.float32), np.zeros(3), None)
    assert stat.S_IMODE(maps.stat().st_mode) == 0o700
    other = tmp_path / "readable"
    other.mkdir()
    other.chmod(0o755)
    assert map_cache.folder_refusal(other) is None and stat.S_IMODE(other.stat().st_mode) == 0o700


def test_a_member_written_twice_is_refused(maps, load_model, caplog):
    import warnings

    micro = load_model("andrea-micro")
    project_model(micro, "pca", n=200, seed=5)
    path = _written(maps)
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.arange(200, dtype=np.int64))
    with warnings.catch_warnings(), zipfile.ZipFile(path, "a") as zf:
        warnings.simplefilter("ignore")  # zipfile's own "Duplicate name" warning
        zf.writestr("ids.npy", buf.getvalue())
    with caplog.at_level("WARNING", logger="andrea_viz.maps.cache"):
        assert load_map(path.name[4:-4], micro.vocab_size) is None
    assert "expected ['coords.npy'" in caplog.text
