"""The shared sidebar model picker and the model card.

Legacy ``pages/`` mode makes the same widget on two pages two widgets, so the real choice lives
in ``st.session_state["model"]``; the widget has its own key, is filled from it before it is
drawn, and writes back in ``on_change``. The choice is mirrored in the URL (``?model=...``) so
a view can be shared.
"""

from __future__ import annotations

import streamlit as st

from ..builtin import BUILTINS, DEFAULT_MODEL
from ..errors import CheckpointError
from ..model import Embeddings
from ..sizing import human_bytes
from .cache import get_model
from .nav import sidebar_menu
from .uploads import user_models

STATE_KEY = "model"
WIDGET_KEY = "_model"


def model_options() -> list[str]:
    return list(BUILTINS) + list(user_models())


def model_label(source: str) -> str:
    info = BUILTINS.get(source)
    if info:
        return info.label
    emb = user_models().get(source)
    return f"{emb.name} (your checkpoint)" if emb else source


def _copy_back() -> None:
    st.session_state[STATE_KEY] = st.session_state[WIDGET_KEY]


def model_picker() -> str:
    """Draw the sidebar picker and return the chosen source."""
    options = model_options()
    chosen = st.session_state.get(STATE_KEY)
    if chosen not in options:
        wanted = st.query_params.get("model")
        chosen = wanted if wanted in BUILTINS else DEFAULT_MODEL
        st.session_state[STATE_KEY] = chosen
    st.session_state[WIDGET_KEY] = chosen
    labels = {o: model_label(o) for o in options}  # fixed now: the widget may format outside a script run
    st.sidebar.selectbox(
        "Model", options, key=WIDGET_KEY, format_func=labels.__getitem__, on_change=_copy_back,
        help="Every page shows this model. The ANDREA tables are untrained (step 0); "
        "all-MiniLM-L6-v2 is a real trained table.",
    )
    info = BUILTINS.get(chosen)
    if info:
        st.sidebar.caption(info.summary)
    if chosen in BUILTINS:  # a checkpoint of the user's is not shareable by URL
        st.query_params["model"] = chosen
    else:
        st.query_params.pop("model", None)
    return chosen


def page_setup(title: str, icon: str = ":material/explore:") -> Embeddings:
    """Every page starts here: page config, the menu, the shared picker, the loaded model."""
    st.set_page_config(page_title=f"{title} · ANDREA Embedding Explorer", page_icon=icon, layout="wide")
    sidebar_menu()
    source = model_picker()
    if source in user_models():
        return user_models()[source]
    try:
        return get_model(source)
    except CheckpointError as exc:
        st.error(f"The model could not be loaded: {exc}", icon="⚠️")
        st.stop()


def model_card(emb: Embeddings) -> None:
    """The loaded model at a glance: sizes, position kind, output table, provenance."""
    c = st.columns(5)
    c[0].metric("Vocabulary V", f"{emb.vocab_size:,}", help="rows of the token table: one per token id")
    c[1].metric("d_model", f"{emb.d_model:,}", help="columns: the length of every embedding vector")
    c[2].metric("Context T", "none" if emb.context is None else f"{emb.context:,}",
                help=f"rows of the position table (position kind: {emb.position_kind})")
    c[3].metric("Positions", emb.position_kind)
    c[4].metric("Output table", emb.output_kind,
                help="untied: a separate (V, d) output projection; tied: the token table is reused; "
                "none: the model has no output head")
    p = emb.params
    total = sum(p.values())
    rows = [
        {"table": "token", "shape": f"{emb.vocab_size:,} × {emb.d_model:,}", "parameters": f"{p['token']:,}"},
        {"table": "position", "shape": "—" if emb.context is None else f"{emb.context:,} × {emb.d_model:,}",
         "parameters": f"{p['position']:,}"},
        {"table": "output", "shape": f"{emb.vocab_size:,} × {emb.d_model:,}" if p["output"] else f"— ({emb.output_kind})",
         "parameters": f"{p['output']:,}"},
        {"table": "all three", "shape": "", "parameters": f"{total:,} ({human_bytes(4 * total)} in fp32)"},
    ]
    st.dataframe(rows, hide_index=True, width="content")
    with st.expander("Where these tables came from", expanded=False):
        st.markdown(f"**Format:** {emb.provenance.format}")
        if emb.provenance.file:
            st.markdown(f"**File:** `{emb.provenance.file}`")
        st.markdown(f"**Tokenizer:** {emb.tokenizer.description}")
        for line in emb.provenance.assumptions:
            st.markdown(f"- assumed: {line}")
        for line in emb.provenance.notes:
            st.markdown(f"- {line}")
