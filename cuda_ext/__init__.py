"""The compiled forward pass: a CUDA kernel, a C++ CPU kernel, and a loader with fallback."""

from .ladder import launch_for
from .loader import build_dir, clear_stale_lock, is_built, load_kernel

__all__ = ["build_dir", "clear_stale_lock", "is_built", "launch_for", "load_kernel"]
