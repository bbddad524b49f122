"""The compiled forward pass: a CUDA kernel, a C++ CPU kernel, and a loader with fallback."""

from .ladder import launch_for
from .loader import (Reason, acquire_build_lock, build_dir, building, clear_stale_lock, is_built, load_kernel,
                     start_background_build)

__all__ = ["Reason", "acquire_build_lock", "build_dir", "building", "clear_stale_lock", "is_built", "launch_for",
           "load_kernel", "start_background_build"]
