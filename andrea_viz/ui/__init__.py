"""Streamlit glue, and the only place in the library that imports Streamlit."""

from . import compare, grow, nav, state, uploads
from .cache import cached, cached_with_progress, get_model, remember
from .errors import explain_errors, show_error
from .models import current_model, model_card, model_label, offer_trained_example, page_setup
from .report import checkpoint_report
from .timeline import timeline_view
from .widgets import token_picker
from ..i18n import tr

__all__ = ["cached", "cached_with_progress", "remember", "checkpoint_report", "current_model", "explain_errors", "get_model",
           "model_card", "model_label", "offer_trained_example", "nav", "page_setup", "show_error", "state", "timeline_view", "token_picker", "tr", "uploads", "grow", "compare"]
