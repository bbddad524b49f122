"""Errors shown as a sentence on the page, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ..errors import CheckpointError, QueryError


@contextmanager
def explain_errors() -> Iterator[None]:
    """Run a block; a CheckpointError or QueryError inside it becomes one error box, and the
    rest of the block is skipped."""
    try:
        yield
    except (CheckpointError, QueryError) as exc:
        st.error(str(exc), icon="⚠️")
