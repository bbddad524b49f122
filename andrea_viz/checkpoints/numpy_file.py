"""``.npy`` (one table) and ``.npz`` (named tables), read with allow_pickle=False. Each array's
declared shape is checked against the bytes that hold it before anything is allocated."""

from __future__ import annotations

import zipfile
from functools import partial
from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from .tables import Found

NPY_MAGIC = b"\x93NUMPY"
MAX_RATIO = 50  # a table of floats compresses to about half its size at best; zip bombs to a millionth
RATIO_FROM = 64 * 2**20  # members declaring less than this are read whatever their ratio
COMPRESSION_NAMES = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "lzma"}


DAMAGED_ZIP = (zipfile.BadZipFile, NotImplementedError, EOFError, OSError, ValueError)  # a bad CRC, method or member


def _header(fp, name: str) -> tuple[tuple[int, ...], np.dtype, bool]:
    try:
        version = np.lib.format.read_magic(fp)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fp)
        else:
            raise CheckpointError("unsupported .npy version {version}", version=str(version))
    except (ValueError, EOFError, SyntaxError, TypeError, zipfile.BadZipFile) as exc:  # numpy's own complaints
        raise CheckpointError("{name}: the .npy header cannot be read ({detail}); the file is truncated or damaged",
                              name=name, detail=str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__) from exc
    if dtype.hasobject:
        raise CheckpointError("the array holds Python objects; only numeric tables are read (no pickles)")
    return shape, dtype, fortran


def _check_size(name: str, shape, dtype: np.dtype, available: int) -> None:
    need = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
    if need > available:
        raise CheckpointError("{name} declares shape {shape} ({need:,} bytes) but only {available:,} bytes hold it: the "
                              "file is truncated or its header is wrong", name=name, shape=str(list(shape)), need=need,
                              available=available)


def read_npy(path: Path, found: Found) -> None:
    with open(path, "rb") as f:
        shape, dtype, _ = _header(f, path.name)
        data_start = f.tell()
    _check_size(path.name, shape, dtype, path.stat().st_size - data_start)
    found.add(path.stem, shape, str(dtype), lambda: np.load(path, mmap_mode="r", allow_pickle=False))


def read_npz(path: Path, found: Found) -> None:
    try:
        with zipfile.ZipFile(path) as z:
            infos = [i for i in z.infolist() if i.filename.endswith(".npy")]
            if not infos:
                raise CheckpointError("{name} is a zip archive without .npy members: not an .npz of tables",
                                      name=path.name)
            for info in infos:
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    # zipfile inflates a bzip2 or lzma chunk whole, unbounded: 1.6 KB can become 2 GB before one byte
                    raise CheckpointError("{name} is compressed with {method}; numpy writes .npz members stored or "
                                          "deflated (np.savez, np.savez_compressed), and only those are read",
                                          name=info.filename,
                                          method=COMPRESSION_NAMES.get(info.compress_type, str(info.compress_type)))
                with z.open(info) as fp:
                    shape, dtype, _ = _header(fp, f"{path.name}/{info.filename}")
                    header_len = fp.tell()
                _check_size(info.filename, shape, dtype, info.file_size - header_len)
                declared = int(np.prod(shape, dtype=np.float64)) * dtype.itemsize
                if info.compress_type != zipfile.ZIP_STORED and declared > RATIO_FROM and \
                        declared > MAX_RATIO * max(info.compress_size, 1):
                    raise CheckpointError("{name} declares {declared:,} bytes compressed into {packed:,} ({ratio:,.0f}×): "
                                          "a table of numbers does not compress like that, so it is refused unread (a "
                                          "zip bomb?)", name=info.filename, declared=declared, packed=info.compress_size,
                                          ratio=declared / max(info.compress_size, 1))
                found.add(info.filename[: -len(".npy")], shape, str(dtype), partial(_read_member, path, info.filename))
    except DAMAGED_ZIP as exc:
        raise _damaged_npy(path, exc) from exc


def _damaged_npy(path: Path, exc: Exception) -> CheckpointError:
    return CheckpointError("{name} is a damaged .npz: {detail}", name=path.name, detail=str(exc)[:200] or type(exc).__name__)


def _read_member(path: Path, member: str) -> np.ndarray:
    try:
        with zipfile.ZipFile(path) as z, z.open(member) as fp:
            return np.lib.format.read_array(fp, allow_pickle=False)
    except DAMAGED_ZIP as exc:
        raise _damaged_npy(path, exc) from exc
