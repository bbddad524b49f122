"""Pickles read as plain data only: dict, list, tuple, set, str, bytes, int, float, bool and None.

``PlainUnpickler.find_class`` refuses every global, so a pickle that asks for any function or class
(the way a pickle runs code) stops before anything in it is called. nanoGPT's ``meta.pkl`` needs no
global at all (a dict of ints and strings).
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path

from .errors import CheckpointError

MAX_BYTES = 50_000_000


class PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        raise pickle.UnpicklingError(f"global {module}.{name}")


def load_plain(path: Path) -> object:
    """The plain data a pickle file holds, or a CheckpointError; nothing in the file runs."""
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise CheckpointError("{name} is {size:,} bytes; a pickle of plain data here is at most {most:,}", name=path.name,
                              size=size, most=MAX_BYTES)
    data = path.read_bytes()
    try:
        return PlainUnpickler(io.BytesIO(data)).load()
    except pickle.UnpicklingError as exc:
        text = str(exc)
        if text.startswith("global "):
            raise CheckpointError("{name} was refused: it asks for the Python object {what}, and loading it could run "
                                  "code; only plain data (dicts, lists, strings, numbers) is read from a pickle",
                                  name=path.name, what=text[len("global "):]) from exc
        raise CheckpointError("{name} is not a readable pickle: {detail}", name=path.name, detail=text[:200]) from exc
    except (EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError, MemoryError, RecursionError,
            OverflowError, UnicodeDecodeError) as exc:
        raise CheckpointError("{name} is not a readable pickle (it is damaged or cut short): {detail}", name=path.name,
                              detail=(str(exc) or type(exc).__name__)[:200]) from exc
