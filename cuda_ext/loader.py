"""Build the kernels on first use with ``torch.utils.cpp_extension.load`` and cache them.

Every function returns ``(module, "")`` or ``(None, reason)``: a failure never raises. CUDA is
attempted only when ``torch.cuda.is_available()``. A build lock left by a killed build (older than
``STALE_LOCK_SECONDS``) is removed first, since torch would otherwise wait on it forever.
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
import threading
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
CPU_SOURCES = ["binding.cpp", "embed_forward_cpu.cpp"]
CUDA_SOURCES = ["binding.cpp", "embed_forward_cpu.cpp", "embed_forward.cu"]
HEADERS = ["embed_forward.h", "embed_convert.h", "embed_forward_thread.h"]
STALE_LOCK_SECONDS = 300
_results: dict[str, tuple[ModuleType | None, str]] = {}
_lock = threading.Lock()


def _source_hash(sources: list[str]) -> str:
    h = hashlib.sha256()
    for s in [*sources, *HEADERS]:
        h.update((HERE / s).read_bytes())
    return h.hexdigest()[:12]


def build_root() -> Path:
    default = Path.home() / ".cache" / "torch_extensions"
    return Path(os.environ.get("TORCH_EXTENSIONS_DIR", default))


def build_dir(kind: str) -> Path:
    sources = CUDA_SOURCES if kind == "cuda" else CPU_SOURCES
    return build_root() / f"andrea_embed_{kind}_{_source_hash(sources)}"


def clear_stale_lock(directory: Path, max_age: float = STALE_LOCK_SECONDS) -> bool:
    """Remove ``directory/lock`` when it is older than ``max_age`` seconds. True when removed."""
    lock = directory / "lock"
    try:
        if time.time() - lock.stat().st_mtime > max_age:
            lock.unlink()
            return True
    except FileNotFoundError:
        pass
    return False


def _ninja_on_path() -> None:
    """pip's ninja lives in the interpreter's scripts folder, which may not be on PATH."""
    dirs = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]
    path = os.environ.get("PATH", "")
    missing = [d for d in dirs if d and d not in path.split(os.pathsep)]
    if missing:
        os.environ["PATH"] = os.pathsep.join([*missing, path])


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    errors = [ln for ln in text if "error" in ln.lower()]
    return (errors or text or [type(exc).__name__])[0][:300]


def _build(kind: str, verbose: bool) -> tuple[ModuleType | None, str]:
    try:
        import torch
        from torch.utils.cpp_extension import load
    except Exception as exc:  # torch missing or broken
        return None, f"torch is not importable: {_first_line(exc)}"
    if kind == "cuda":
        if not torch.cuda.is_available():
            why = "this torch is a CPU build" if torch.version.cuda is None else "no CUDA device is visible"
            return None, f"no GPU: torch.cuda.is_available() is False ({why})"
        major, minor = torch.cuda.get_device_capability()
        os.environ.setdefault("TORCH_CUDA_ARCH_LIST", f"{major}.{minor}")
    _ninja_on_path()
    directory = build_dir(kind)
    directory.mkdir(parents=True, exist_ok=True)
    clear_stale_lock(directory)
    sources = [str(HERE / s) for s in (CUDA_SOURCES if kind == "cuda" else CPU_SOURCES)]
    cflags = ["-O3", "-march=native", "-fopenmp", "-std=c++17"] + (["-DWITH_CUDA"] if kind == "cuda" else [])
    try:
        module = load(
            name=f"andrea_embed_{kind}",
            sources=sources,
            extra_cflags=cflags,
            extra_cuda_cflags=["-O3", "--use_fast_math", "-std=c++17"],
            extra_ldflags=["-fopenmp"],
            extra_include_paths=[str(HERE)],
            build_directory=str(directory),
            verbose=verbose,
        )
    except Exception as exc:
        return None, f"the {kind.upper()} kernel could not be built: {_first_line(exc)}"
    return module, ""


def load_kernel(kind: str, verbose: bool = False) -> tuple[ModuleType | None, str]:
    """The built module for ``kind`` ("cpu" or "cuda"), or None and the reason. Built once per process."""
    if kind not in ("cpu", "cuda"):
        raise ValueError(f"kind must be 'cpu' or 'cuda', got {kind!r}")
    with _lock:
        if kind not in _results:
            _results[kind] = _build(kind, verbose)
        return _results[kind]


def is_built(kind: str) -> bool:
    """True when this process already holds the result (built or failed) for ``kind``."""
    return kind in _results
