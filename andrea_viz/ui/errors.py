"""Errors shown as a sentence on the page, in the reader's language, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from ..errors import CheckpointError, QueryError
from ..i18n import tr
from ..os_errors import os_error_msg
from ..safe_text import md


@contextmanager
def explain_errors() -> Iterator[None]:
    """Run a block; a CheckpointError, QueryError or OSError inside it becomes one error box (an OSError as
    ``os_errors``' sentence), and the rest of the block is skipped."""
    try:
        yield
    except (CheckpointError, QueryError) as exc:
        show_error(exc)
    except OSError as exc:  # a full disk, a denied folder, a name too long: a sentence, not "[Errno 28]"
        show_error(exc)


def show_error(exc: CheckpointError | QueryError | OSError) -> None:
    msg = os_error_msg(exc) if isinstance(exc, OSError) else exc.msg
    st.error(tr(msg, escape=md), icon=":material/warning:")
