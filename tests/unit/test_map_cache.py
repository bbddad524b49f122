"""Maps kept on disk: the key, hits across calls and processes, bad files, eviction, the folder."""

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from andrea_viz import map_cache
from andrea_viz.map_cache import STATS, cache_dir, evict, fingerprint, load_map, map_key, save_map
from andrea_viz.projection import METHODS, SHARED_SETTINGS, project_model, settings_for

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


def test_the_fingerprint_is_the_tables_bytes_and_the_token_strings(load_model):
    micro = load_model("andrea-micro")
    assert fingerprint(micro) == fingerprint(micro)
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
    one = save_map("z" * 40, {}, ids, *args)
    size = one.stat().st_size
    one.unlink()
    monkeypatch.setenv("ANDREA_VIZ_CACHE_MB", str(2.5 * size / 2**20))  # room for two of these maps
    for j, key in enumerate("abc"):
        save_map(key * 40, {}, ids, *args)
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


def _project(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "andrea_viz", "project", *args], capture_output=True, text=True,
                          env=env)


def test_the_cli_reads_a_map_another_process_wrote_and_writes_the_same_tsv(tmp_path):
    """6,000 points of MiniLM: trust scored on 5,000 of them, so empty trust cells are kept byte for byte too."""
    env = {**os.environ, "ANDREA_VIZ_CACHE_DIR": str(tmp_path / "maps")}
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    first = _project("minilm-l6", "--method", "pca", "--n", "6000", "--include", "cat", "--out", str(a), env=env)
    assert first.returncode == 0, first.stderr
    assert "map cache" not in first.stdout
    second = _project("minilm-l6", "--method", "pca", "--n", "6000", "--include", "cat", "--out", str(b), env=env)
    assert second.returncode == 0, second.stderr
    assert "read from the map cache" in second.stdout
    assert a.read_bytes() == b.read_bytes()
    assert sum(line.endswith("\t\n") for line in a.read_text().splitlines(keepends=True)) == 1000
