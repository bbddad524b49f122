"""Maps kept on disk between processes and server restarts.

A computed map (its sample, coordinates, trust scores and the method's note) is written as one ``.npz`` file
named by a key: the model's content fingerprint (the bytes of its token table and its token strings) and the
settings that method reads (``methods.settings_for``). The folder is ``$ANDREA_VIZ_CACHE_DIR``, else
``$XDG_CACHE_HOME/andrea_viz``, else ``~/.cache/andrea_viz``; ``ANDREA_VIZ_CACHE_DIR=off`` turns it off.
The folder is kept under ``$ANDREA_VIZ_CACHE_MB`` megabytes (default CACHE_MB): the files read or written
longest ago go first.

The folder is private, like UMAP's numba folder (``maps.compile``): made 0700, and used only while it belongs to the
user running the code and neither group nor others may write it; otherwise a sentence is logged and maps are
computed and not kept. A map is written through ``tempfile.mkstemp`` in the folder (a fresh name, created, never a
planted link followed) and renamed into place; on any failure the temp file goes, and temp files older than
TEMP_MAX_AGE_S are evicted.

A file is read without pickles, never through a link, and trusted only when every member is sized from the zip
directory and its ``.npy`` header before a byte of data is read (stored, not compressed: a small member that would
inflate to gigabytes is refused without inflating it), its header names the key asked for, and its ids (int64,
unique, inside the vocabulary), arrays (dtype, shape, range) and header (keys and types) are what this code writes.
Anything else is refused in a logged sentence saying what was expected and what came, counted in
``STATS["rejected"]``, and the map computed again: nothing a planted file holds raises out of ``load_map``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import stat
import string
import tempfile
import time
import weakref
import zipfile
from pathlib import Path

import numpy as np

from ..i18n import Msg
from ..model import Embeddings
from ..os_errors import os_error_msg

FORMAT = 6  # bump when what a file holds or how a map is made changes (2: UMAP on 50 PCs above 50,000 points;
# 3: UMAP's neighbour graph exact up to 50,000 points; 4: above, approximate cell by cell instead of NN-descent;
# 5: that approximate graph kept in the file, "graph", for the labels' clusters; 6: a sample's word groups in the
# language of the model's words, so a grown Dutch model's maps kept before would show English groups)
GRAPH_MOST_K = 64  # a kept graph has at most this many neighbours a point
CACHE_MB = 1_024
OFF = "off"
STATS = {"hits": 0, "misses": 0, "writes": 0, "rejected": 0, "evicted": 0}  # this process's counts

_fingerprints: dict[int, tuple[weakref.ref, str]] = {}
log = logging.getLogger(__name__)


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
    (pass ``methods.settings_for(method, …)``: only what the method reads)."""
    text = json.dumps({"format": FORMAT, "model": model_fingerprint, "method": method,
                       "settings": {k: _plain(v) for k, v in sorted(settings.items())}}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:40]


def _path(key: str) -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / f"map-{key}.npz"


def folder_refusal(folder: Path) -> str | None:
    """Why ``folder`` may not hold maps (made 0700 if missing), or None when it is private: a directory owned by
    the user running this code that neither group nor others may write (so nobody else can plant a map)."""
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = folder.stat()
    except (OSError, ValueError) as e:  # ValueError: a NUL in the variable's path
        why = (e.strerror if isinstance(e, OSError) else None) or e
        return f"the map cache folder {folder} could not be made or read ({why}); maps are not kept"
    if not stat.S_ISDIR(st.st_mode):
        return f"the map cache folder {folder} is not a folder; maps are not kept"
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        return (f"the map cache folder {folder} belongs to user {st.st_uid}, not to the user running the app "
                f"({os.getuid()}); maps are not kept")
    if st.st_mode & 0o022:
        return (f"the map cache folder {folder} may be written by others (mode {stat.S_IMODE(st.st_mode):o}, "
                f"expected 700); maps are not kept")
    if st.st_mode & 0o077:
        with contextlib.suppress(OSError):  # readable by others: ours, so made private
            folder.chmod(0o700)
    return None


_said: set[str] = set()


def _refuse(sentence: str, once: bool = False) -> None:
    """Log a refusal (``once``: once per process, for a folder's, which every map would repeat)."""
    if sentence not in _said:
        log.warning(sentence)
        if once:
            _said.add(sentence)


def _private_folder() -> Path | None:
    folder = cache_dir()
    if folder is None:
        return None
    why = folder_refusal(folder)
    if why is not None:
        _refuse(why, once=True)
        return None
    return folder


MEMBERS = {"meta": "U", "ids": "i", "groups": "U", "coords": "f", "trust": "f", "ratio": "f",  # name: dtype kind
           "graph": "i"}
MAX_RATIO = 4_096  # explained-variance shares kept (one per PCA component shown)


class Refused(ValueError):
    """A cache file that is not a map this code wrote for this key; the message says what was expected and what came."""


def _npy_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> np.ndarray:
    """One ``.npy`` member, its size taken from the zip directory and its header checked before a byte of data is
    read: stored (np.savez never compresses), no larger than its bytes in the file, a plain dtype, and a header whose
    shape accounts for exactly the member's bytes."""
    name = info.filename
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
        raise Refused(f"member {name} is compressed ({info.compress_size:,} bytes said to hold {info.file_size:,}); "
                      f"maps are written uncompressed")
    with zf.open(info) as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            raise Refused(f"member {name} is .npy version {version}, expected 1.0 or 2.0")
        if dtype.hasobject or dtype.kind not in "iufU":
            raise Refused(f"member {name} holds {dtype}, expected plain numbers or text")
        count = int(np.prod(shape, dtype=object))
        data = info.file_size - f.tell()
        if count * dtype.itemsize != data:
            raise Refused(f"member {name} says {shape} of {dtype} ({count * dtype.itemsize:,} bytes) but holds "
                          f"{data:,} bytes")
        raw = f.read(data)
    flat = np.frombuffer(raw, dtype=dtype)
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)


def _scalar(value) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def _check_meta(meta, key: str) -> dict:
    """The header as project_model reads it: key, format, method, seconds, trust_mean, note."""
    if not isinstance(meta, dict):
        raise Refused(f"its header is {type(meta).__name__}, expected a JSON object")
    missing = [k for k in ("key", "format", "method", "seconds", "trust_mean", "note") if k not in meta]
    if missing:
        raise Refused(f"its header lacks {', '.join(missing)}")
    if meta["key"] != key or meta["format"] != FORMAT:
        raise Refused(f"its header names key {str(meta['key'])[:40]!r} format {str(meta['format'])[:8]!r}, expected "
                      f"{key} format {FORMAT}")
    for name in ("seconds", "trust_mean"):
        v = meta[name]
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise Refused(f"its header's {name} is {type(v).__name__}, expected a number")
    if not (math.isfinite(meta["seconds"]) and meta["seconds"] >= 0):
        raise Refused(f"its header's seconds is {meta['seconds']}, expected a finite number ≥ 0")
    if not (math.isnan(meta["trust_mean"]) or 0 <= meta["trust_mean"] <= 1):
        raise Refused(f"its header's trust_mean is {meta['trust_mean']}, expected a share from 0 to 1")
    if not isinstance(meta["method"], str):
        raise Refused(f"its header's method is {type(meta['method']).__name__}, expected text")
    note = meta["note"]
    if note is not None:
        if not (isinstance(note, dict) and isinstance(note.get("msgid"), str) and set(note) <= {"msgid", "params"}
                and isinstance(note.get("params") or {}, dict)):
            raise Refused("its header's note is not a message (msgid text and a params object)")
        params = note.get("params") or {}
        if not all(isinstance(k, str) and _scalar(v) for k, v in params.items()):
            raise Refused("its header's note has parameters that are not plain values")
        try:
            parts = [(f, spec) for _, f, spec, _ in string.Formatter().parse(note["msgid"]) if f is not None]
        except ValueError as e:
            raise Refused(f"its header's note is not a message template ({e})") from None
        if not all(f.isidentifier() and f in params and "{" not in (spec or "") for f, spec in parts):
            raise Refused("its header's note names fields that are not its own parameters")
        try:
            template = note["msgid"]
            str(Msg(template, **params))  # drawn on the page later: it must format now
        except (ValueError, TypeError, KeyError, IndexError) as e:
            raise Refused(f"its header's note does not format ({e})") from None
    return meta


def _check_arrays(a: dict[str, np.ndarray], vocab_size: int | None) -> None:
    ids, coords = a["ids"], a["coords"]
    if ids.dtype != np.int64 or ids.ndim != 1:
        raise Refused(f"its ids are {ids.dtype} of shape {ids.shape}, expected int64 of one dimension")
    n = ids.shape[0]
    if vocab_size is not None and n and (ids.min() < 0 or ids.max() >= vocab_size):
        raise Refused(f"its ids run from {ids.min()} to {ids.max()}, expected 0 to {vocab_size - 1}")
    if np.unique(ids).size != n:
        raise Refused("its ids repeat, expected each token once")
    if coords.dtype != np.float32 or coords.shape not in ((n, 2), (n, 3)):
        raise Refused(f"its coordinates are {coords.dtype} of shape {coords.shape}, expected float32 ({n}, 2 or 3)")
    if not np.isfinite(coords).all():
        raise Refused("its coordinates are not all finite numbers")
    if a["groups"].shape != (n,):
        raise Refused(f"its groups have shape {a['groups'].shape}, expected ({n},)")
    trust = a["trust"]
    if trust.dtype != np.float64 or trust.shape != (n,):
        raise Refused(f"its trust scores are {trust.dtype} of shape {trust.shape}, expected float64 ({n},)")
    if ((trust < 0) | (trust > 1)).any():
        raise Refused("its trust scores leave the range 0 to 1")
    ratio = a["ratio"]
    if ratio.dtype != np.float64 or ratio.ndim != 1 or ratio.size > MAX_RATIO or not np.isfinite(ratio).all():
        raise Refused(f"its explained variance is {ratio.dtype} of shape {ratio.shape}, expected finite float64 "
                      f"of one dimension")
    if a["meta"].shape != ():
        raise Refused(f"its header has shape {a['meta'].shape}, expected one text")
    graph = a["graph"]
    if graph.dtype != np.int32 or not (graph.shape == (0, 0) or (
            graph.ndim == 2 and graph.shape[0] == n and 1 <= graph.shape[1] <= GRAPH_MOST_K)):
        raise Refused(f"its graph is {graph.dtype} of shape {graph.shape}, expected int32 ({n}, 1 to {GRAPH_MOST_K}) "
                      f"or (0, 0)")
    if graph.size and (graph.min() < -1 or graph.max() >= n):
        raise Refused(f"its graph names points {graph.min()} to {graph.max()}, expected -1 (none) to {n - 1}")


def read_map(path: Path, key: str, vocab_size: int | None = None) -> dict:
    """The map in ``path`` if it is one this code wrote for ``key`` (a regular file, not a link; members sized from
    the zip directory before any is read; every array and the header checked); raises Refused (a sentence) or
    OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Refused("it is not a regular file")
        try:
            zf = zipfile.ZipFile(f)
        except zipfile.BadZipFile as e:
            raise Refused(f"it is not a zip archive ({e})") from None
        with zf:
            infos = {i.filename: i for i in zf.infolist()}
            expected = {f"{m}.npy" for m in MEMBERS}
            if set(infos) != expected or len(zf.infolist()) != len(expected):  # a name twice: which one is read?
                raise Refused(f"it holds {sorted(infos)[:8]}, expected {sorted(expected)}")
            try:
                arrays = {m: _npy_member(zf, infos[f"{m}.npy"]) for m in MEMBERS}
            except (ValueError, zipfile.BadZipFile, EOFError) as e:
                if isinstance(e, Refused):
                    raise
                raise Refused(f"a member could not be read ({e})") from None
    for m, kind in MEMBERS.items():
        if arrays[m].dtype.kind != kind and not (m == "ids" and arrays[m].dtype.kind == "i"):
            raise Refused(f"its {m} are {arrays[m].dtype}, expected kind {kind!r}")
    _check_arrays(arrays, vocab_size)
    try:
        meta = json.loads(str(arrays["meta"]))
    except ValueError as e:
        raise Refused(f"its header is not JSON ({e})") from None
    arrays["meta"] = _check_meta(meta, key)
    return arrays


def load_map(key: str, vocab_size: int | None = None) -> dict | None:
    """The arrays kept under ``key`` (ids, groups, coords, trust, ratio) and its header (``meta``, a dict), or
    None when there is none, the folder is not private, or the file is not one this code wrote for this key (ids
    checked against ``vocab_size`` when given): then a sentence is logged and the map is computed again."""
    folder = _private_folder()
    path = None if folder is None else folder / f"map-{key}.npz"
    if path is None or not os.path.lexists(path):
        STATS["misses"] += 1
        return None
    try:
        arrays = read_map(path, key, vocab_size)
    except Exception as e:  # noqa: BLE001 (any file that is not a map is refused in a sentence and rebuilt)
        why = str(e) if isinstance(e, Refused) else f"it could not be read ({type(e).__name__}: {e})"
        _refuse(f"the cached map {path.name} was refused: {why}; the map is computed again")
        STATS["rejected"] += 1
        STATS["misses"] += 1
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # read now: the last to be evicted
    STATS["hits"] += 1
    return arrays


TEMP_PREFIX, TEMP_SUFFIX = ".map-", ".tmp"
TEMP_MAX_AGE_S = 3_600  # a temp file older than this was left by a write that failed or a process that died


def save_map(key: str, meta: dict, ids: np.ndarray, groups: tuple[str, ...], coords: np.ndarray,
             trust: np.ndarray, ratio: np.ndarray | None, graph: np.ndarray | None = None) -> Path | None:
    """Write a map under ``key`` (``graph``: (N, k) positions of each point's neighbours in a large map's approximate
    graph, kept for the labels' clusters; -1 none) (atomically: a whole file or none), then evict the oldest files beyond the
    size limit. The file is written under a fresh name ``tempfile.mkstemp`` makes in the folder (created, never
    opened through a link) and removed on any failure. Returns the file, or None when the cache is off, the
    folder is not private, or the write failed (a full disk: the sentence is logged)."""
    folder = _private_folder()
    if folder is None:
        return None
    path = folder / f"map-{key}.npz"
    tmp = None
    try:
        fd, name = tempfile.mkstemp(prefix=f"{TEMP_PREFIX}{key}.", suffix=TEMP_SUFFIX, dir=folder)
        tmp = Path(name)
        with os.fdopen(fd, "wb") as f:
            np.savez(f, meta=np.array(json.dumps({**meta, "key": key, "format": FORMAT})),
                     ids=np.asarray(ids, np.int64), groups=np.array(groups, dtype=str).reshape(len(ids)),
                     coords=np.asarray(coords, np.float32), trust=np.asarray(trust, np.float64),
                     ratio=np.asarray([] if ratio is None else ratio, np.float64),
                     graph=np.zeros((0, 0), np.int32) if graph is None else np.asarray(graph, np.int32))
        os.replace(tmp, path)
        tmp = None
    except Exception as e:  # noqa: BLE001 (a map not kept is computed again next time; the app goes on)
        _refuse(f"the map {path.name} was not kept: {os_error_msg(e) if isinstance(e, OSError) else e}")
        return None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
    STATS["writes"] += 1
    evict(folder, size_limit(), keep=path)
    return path


def evict(folder: Path, limit: int, keep: Path | None = None, now: float | None = None) -> list[Path]:
    """Delete temp files older than TEMP_MAX_AGE_S (left by a write that failed or a process that died), then
    maps, the least recently used first, until the folder's maps fit in ``limit`` bytes (the file just written is
    kept even when it alone is larger). Returns what was deleted."""
    now = time.time() if now is None else now
    gone = []
    for p in folder.glob(f"{TEMP_PREFIX}*{TEMP_SUFFIX}"):
        with contextlib.suppress(OSError):
            if now - p.lstat().st_mtime > TEMP_MAX_AGE_S:
                p.unlink()
                gone.append(p)
    files = []
    for p in folder.glob("map-*.npz"):
        with contextlib.suppress(OSError):
            st = p.lstat()
            files.append((st.st_mtime, p, st.st_size))
    files.sort()
    total = sum(size for _, _, size in files)
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
