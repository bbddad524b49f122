"""Pictures answered in the browser: a frame holding its own data, redrawn there when its slider moves."""

from __future__ import annotations

import streamlit as st

from ..model import Embeddings
from ..plots.live_sum import FRAME_HEIGHT, sum_frame_of
from .cache import cached


def live_sum(emb: Embeddings, token_id: int, kind: str, t: int) -> None:
    """x_t = token + position for one id, with its position slider, in one frame (no server round trip)."""
    st.iframe(cached(emb, sum_frame_of, int(token_id), kind, int(t)), height=FRAME_HEIGHT)
