"""The library's error types: one per boundary, each carrying a sentence a person can act on."""

from __future__ import annotations


class CheckpointError(ValueError):
    """A source (built-in name, file or folder) could not be turned into embedding tables.

    The message says what was expected and what came instead.
    """


class QueryError(ValueError):
    """A request on a loaded model (a word, an id, a size) cannot be answered as asked."""
