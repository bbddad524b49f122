"""The library's error types: one per boundary, each carrying a sentence a person can act on.

Each error keeps its sentence as a msgid with parameters (``exc.msg``), so the app can show it in
the reader's language; ``str(exc)`` is the English sentence.
"""

from __future__ import annotations

from typing import Any

from .i18n import Msg


class _Sentence(ValueError):
    def __init__(self, msgid: str | Msg, /, **params: Any):
        self.msg = msgid if isinstance(msgid, Msg) else Msg(msgid, **params)
        super().__init__(str(self.msg))


class CheckpointError(_Sentence):
    """A source (built-in name, file or folder) could not be turned into embedding tables.

    The message says what was expected and what came instead.
    """


class QueryError(_Sentence):
    """A request on a loaded model (a word, an id, a size) cannot be answered as asked."""
