"""``load(source)``: one entry point from a name or a path to an ``Embeddings`` object."""

from __future__ import annotations

from pathlib import Path

from .builtin import BUILTINS, load_builtin
from .errors import CheckpointError
from .model import Embeddings
from .checkpoints import load_path


def load(source: str | Path, tokenizer: str | Path | list[str | Path] | None = None,
         tables: dict[str, str] | None = None) -> Embeddings:
    """Load a model's embedding tables.

    ``source`` is a built-in name (``minilm-l6``, ``andrea-120m-init``, ...) or a path to a
    checkpoint file or folder; ``tokenizer`` a tokenizer file, or GPT-2's vocab.json and merges.txt; ``tables``:
    tables named by hand (``{"token": KEY, "position": KEY, "output": KEY}``). Raises ``CheckpointError`` with a sentence saying what was
    expected when the source cannot be read.
    """
    if isinstance(source, str) and source in BUILTINS:
        if tokenizer is not None:
            raise CheckpointError("the built-in model '{source}' has its own tokenizer; do not pass one", source=source)
        return load_builtin(source)
    path = Path(source)
    if not path.exists():
        raise CheckpointError("'{source}' is neither a built-in model ({names}) nor an existing file or folder",
                              source=str(source), names=", ".join(BUILTINS))
    return load_path(path, tokenizer=tokenizer, tables=tables)
