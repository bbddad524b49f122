"""Streamlit glue, and the only place in the library that imports Streamlit."""

from .cache import cached, cached_with_progress, get_model
from .errors import explain_errors
from . import nav, uploads
from .models import model_card, page_setup
from .report import checkpoint_report
from .widgets import token_picker

__all__ = ["nav", "uploads", "checkpoint_report", "cached", "cached_with_progress", "explain_errors", "get_model", "model_card", "page_setup", "token_picker"]
