"""Streamlit glue, and the only place in the library that imports Streamlit."""

from ..i18n import tr
from ..web import hooks as server_hooks
from . import audit_view, classroom, compare, exercise, grow, lesson, live, map_view, models, naming, nav, state, uploads, url
from .charts import chart
from .cache import cached, cached_with_progress, figure, get_model, remember
from .errors import explain_errors, show_error
from .fragments import fragment
from .models import current_model, model_card, model_label, offer_trained_example, page_setup
from .report import checkpoint_report
from .tables import dataframe, height_for, localized
from .timeline import timeline_view
from .uploader_text import file_uploader
from .widgets import MAX_TEXT_CHARS, default_words, metric_columns, number_slider, token_chips, token_picker

server_hooks.install()  # the guards on every request from now on, where streamlit_app.py did not install them already

__all__ = ["audit_view", "cached", "cached_with_progress", "chart", "checkpoint_report", "classroom", "compare", "current_model",
           "dataframe", "height_for",
           "exercise",
           "explain_errors", "figure", "file_uploader", "fragment", "get_model", "grow", "lesson", "live", "localized", "map_view", "model_card", "model_label", "models", "naming", "nav",
           "offer_trained_example", "page_setup", "remember", "show_error", "state", "timeline_view", "token_picker", "token_chips", "metric_columns", "MAX_TEXT_CHARS", "default_words",
           "number_slider",
           "tr", "uploads", "url"]
