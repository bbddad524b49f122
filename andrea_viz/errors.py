"""The library's error types: one per boundary, each carrying a sentence a person can act on.

Each error keeps its sentence as a msgid with parameters (``exc.msg``), so the app can show it in
the reader's language; ``str(exc)`` is the English sentence.
"""

from __future__ import annotations

from typing import Any

from .i18n import Msg, N_


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


CHOICE = N_("{what} must be one of {allowed}; got '{got}'")  # the one sentence of a choice outside its list


def not_one_of(what: str, got: Any, allowed, error: type[_Sentence] = QueryError) -> _Sentence:
    """The error of ``got`` for ``what`` (a parameter's name as the code spells it), which is not one of ``allowed``."""
    return error(CHOICE, what=what, allowed=", ".join(str(a) for a in allowed), got=got)


def choices(what: str, got: Any, allowed, error: type[_Sentence] = QueryError) -> Any:
    """``got`` when it is one of ``allowed`` (any collection; a mapping's keys); else ``not_one_of``, raised."""
    if got not in allowed:
        raise not_one_of(what, got, allowed, error)
    return got
