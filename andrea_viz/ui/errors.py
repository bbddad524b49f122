"""Errors shown as a sentence on the page, in the reader's language, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ..errors import CheckpointError, QueryError
from ..i18n import tr
from ..safe_text import md


@contextmanager
def explain_errors() -> Iterator[None]:
    """Run a block; a CheckpointError or QueryError inside it becomes one error box, and the
    rest of the block is skipped."""
    try:
        yield
    except (CheckpointError, QueryError) as exc:
        show_error(exc)


def show_error(exc: CheckpointError | QueryError) -> None:
    st.error(tr(exc.msg, escape=md), icon=":material/warning:")
