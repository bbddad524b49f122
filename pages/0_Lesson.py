"""The lesson, step by step in its own order: each claim with its live picture, for the model that shows it."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.i18n import _, tr
from andrea_viz.lesson import STEPS, params, why

STEP = "lesson:step"

emb = ui.page_setup(__file__)
if STEP not in st.session_state:
    st.session_state[STEP] = ui.url.initial("step", 1, int, allowed=range(1, len(STEPS) + 1))


def go(delta: int) -> None:
    st.session_state[STEP] = min(max(st.session_state[STEP] + delta, 1), len(STEPS))


k = st.session_state[STEP]
ui.url.keep(step=k)
step = STEPS[k - 1]
st.title(_("The lesson: embeddings"))
st.progress(k / len(STEPS), text=_("Step {k} of {n}: {title}", k=k, n=len(STEPS), title=tr(step.title)))
b1, b2, _b = st.columns([1, 1, 6])
b1.button(_("← Back"), on_click=go, args=(-1,), disabled=k == 1, key="lesson:back")
b2.button(_("Next →"), on_click=go, args=(1,), disabled=k == len(STEPS), key="lesson:next", type="primary")

st.header(tr(step.title))
st.markdown(_(step.text, **params()))
st.caption(" ".join(_("On screen: {label}: {why}", label=ui.model_label(m), why=why(m)) for m in step.models))
ui.lesson.DRAW[step.key]()
