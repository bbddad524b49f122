"""Maps kept on disk between processes and server restarts.

A computed map (its sample, coordinates, trust scores and the method's note) is written as one ``.npz`` file
named by a key: the model's content fingerprint (the bytes of its token table and its token strings) and the
settings that method reads (``projection.settings_for``). The folder is ``$ANDREA_VIZ_CACHE_DIR``, else
``$XDG_CACHE_HOME/andrea_viz``, else ``~/.cache/andrea_viz``; ``ANDREA_VIZ_CACHE_DIR=off`` turns it off.
The folder is kept under ``$ANDREA_VIZ_CACHE_MB`` megabytes (default CACHE_MB): the files read or written
longest ago go first.

A file is read with ``allow_pickle=False`` and trusted only when its own header names the key asked for and
its arrays agree in length; anything else (a truncated file, a foreign one, another format version) is
ignored, counted in ``STATS["rejected"]``, and the map computed again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import weakref
from pathlib import Path

import numpy as np

from .model import Embeddings

FORMAT = 4  # bump when what a file holds or how a map is made changes (2: UMAP on 50 PCs above 50,000 points;
# 3: UMAP's neighbour graph exact up to 50,000 points; 4: above, approximate cell by cell instead of NN-descent)
CACHE_MB = 1_024
OFF = "off"
STATS = {"hits": 0, "misses": 0, "writes": 0, "rejected": 0, "evicted": 0}  # this process's counts

_fingerprints: dict[int, tuple[weakref.ref, str]] = {}


def cache_dir() -> Path | None:
    """The folder maps are kept in, or None when ``ANDREA_VIZ_CACHE_DIR=off``."""
    chosen = os.environ.get("ANDREA_VIZ_CACHE_DIR", "").strip()
    if chosen.lower() == OFF:
        return None
    if chosen:
        return Path(chosen).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(xdg) if xdg else Path.home() / ".cache") / "andrea_viz"


def size_limit() -> int:
    """The folder's limit in bytes (``$ANDREA_VIZ_CACHE_MB``, default CACHE_MB)."""
    try:
        mb = float(os.environ.get("ANDREA_VIZ_CACHE_MB", CACHE_MB))
    except ValueError:
        mb = CACHE_MB
    return int(max(mb, 0) * 2**20)


FINGERPRINT_BLOCK_BYTES = 32 << 20  # the table is hashed in blocks of about this size, on every core


def _digest(block: np.ndarray) -> bytes:
    """SHA-256 of one block of rows as stored (a 16-bit table is hashed without widening it); hashlib lets go of
    the interpreter's lock while it hashes, so blocks are hashed side by side."""
    return hashlib.sha256(np.ascontiguousarray(block).reshape(-1).view(np.uint8)).digest()


def fingerprint(emb: Embeddings) -> str:
    """A content hash of the model as a map sees it: the token table's shape, dtype and bytes, and every
    token's string (the sample's words and labels come from them). Computed once per model object.

    The bytes go through SHA-256 (the processor's own instructions where it has them) one block at a time on
    every core; the fingerprint hashes the blocks' digests in order, so it depends on every byte and its place."""
    from concurrent.futures import ThreadPoolExecutor

    hit = _fingerprints.get(id(emb))
    if hit is not None and hit[0]() is emb:
        return hit[1]
    h = hashlib.sha256()
    table = emb.token_table
    h.update(json.dumps([list(table.shape), str(table.dtype)]).encode())
    n = max(1, FINGERPRINT_BLOCK_BYTES // max(1, table.shape[1] * table.dtype.itemsize))
    blocks = (table[i:i + n] for i in range(0, table.shape[0], n))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for digest in pool.map(_digest, blocks):
            h.update(digest)
    h.update(b"".join(emb.token(i).encode("utf-8", "surrogatepass") + b"\0" for i in range(emb.vocab_size)))
    fp = h.hexdigest()[:40]
    _fingerprints[id(emb)] = (weakref.ref(emb), fp)
    return fp


def _plain(value):
    """Settings as JSON: tuples as lists, numpy numbers as Python numbers."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def map_key(model_fingerprint: str, method: str, settings: dict) -> str:
    """The file name of a map: a hash of the format, the model's fingerprint, the method and its settings
    (pass ``projection.settings_for(method, …)``: only what the method reads)."""
    text = json.dumps({"format": FORMAT, "model": model_fingerprint, "method": method,
                       "settings": {k: _plain(v) for k, v in sorted(settings.items())}}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _path(key: str) -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / f"map-{key}.npz"


def load_map(key: str) -> dict[str, np.ndarray] | None:
    """The arrays kept under ``key`` (ids, groups, coords, trust, ratio) and its header (``meta``, a dict), or
    None when there is none or the file is not one this code wrote for this key."""
    path = _path(key)
    if path is None or not path.is_file():
        STATS["misses"] += 1
        return None
    try:
        with np.load(path, allow_pickle=False) as f:
            arrays = {name: f[name] for name in ("meta", "ids", "groups", "coords", "trust", "ratio")}
        meta = json.loads(str(arrays["meta"]))
        n = arrays["ids"].shape[0]
        ok = (isinstance(meta, dict) and meta.get("key") == key and meta.get("format") == FORMAT
              and arrays["ids"].dtype == np.int64 and arrays["coords"].dtype == np.float32
              and arrays["coords"].ndim == 2 and arrays["coords"].shape[0] == n
              and arrays["groups"].shape == (n,) and arrays["trust"].shape == (n,)
              and np.isfinite(arrays["coords"]).all())
    except Exception:  # noqa: BLE001 (any unreadable file is simply not a map: it is rebuilt)
        ok = False
    if not ok:
        STATS["rejected"] += 1
        STATS["misses"] += 1
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # read now: the last to be evicted
    STATS["hits"] += 1
    arrays["meta"] = meta
    return arrays


def save_map(key: str, meta: dict, ids: np.ndarray, groups: tuple[str, ...], coords: np.ndarray,
             trust: np.ndarray, ratio: np.ndarray | None) -> Path | None:
    """Write a map under ``key`` (atomically: a whole file or none), then evict the oldest files beyond the
    size limit. Returns the file, or None when the cache is off or the folder cannot be written."""
    path = _path(key)
    if path is None:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            np.savez(f, meta=np.array(json.dumps({**meta, "key": key, "format": FORMAT})),
                     ids=np.asarray(ids, np.int64), groups=np.array(groups, dtype=str).reshape(len(ids)),
                     coords=np.asarray(coords, np.float32), trust=np.asarray(trust, np.float64),
                     ratio=np.asarray([] if ratio is None else ratio, np.float64))
        os.replace(tmp, path)
    except OSError:
        return None
    STATS["writes"] += 1
    evict(path.parent, size_limit(), keep=path)
    return path


def evict(folder: Path, limit: int, keep: Path | None = None) -> list[Path]:
    """Delete maps, the least recently used first, until the folder's maps fit in ``limit`` bytes (the file
    just written is kept even when it alone is larger). Returns what was deleted."""
    files = []
    for p in folder.glob("map-*.npz"):
        with contextlib.suppress(OSError):
            st = p.stat()
            files.append((st.st_mtime, p, st.st_size))
    files.sort()
    total = sum(size for _, _, size in files)
    gone = []
    for _, p, size in files:
        if total <= limit:
            break
        if keep is not None and p == keep:
            continue
        with contextlib.suppress(OSError):
            p.unlink()
            total -= size
            gone.append(p)
    STATS["evicted"] += len(gone)
    return gone
