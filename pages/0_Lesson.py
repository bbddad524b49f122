"""The lesson, step by step in its own order: each claim with its live picture, for the model that shows it.
Presenter mode (``?present=1`` or the toggle) fits each step on a 1,280 × 720 classroom screen."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.i18n import _, tr
from andrea_viz.lesson import STEPS, params, why
from andrea_viz.ui import presenter
from andrea_viz.ui.lesson import (PRESENT, PRESENT_WIDGET, copy_present, handout_download, keyboard, presenter_style,
                                  reset_quiz, step_models)

STEP = "lesson:step"
N = len(STEPS)

emb = ui.page_setup(__file__)
if STEP not in st.session_state:
    st.session_state[STEP] = ui.url.initial("step", 1, ui.url.int_in(1, 99), allowed=range(1, N + 1))
if PRESENT not in st.session_state:
    st.session_state[PRESENT] = ui.url.initial("present", False, ui.url.flag)


def go_to(k: int) -> None:
    st.session_state[STEP] = min(max(k, 1), N)
    reset_quiz()  # the guesses reset when the step is left, and the reveal with them


def go(delta: int) -> None:
    go_to(st.session_state[STEP] + delta)


def from_menu() -> None:
    go_to(st.session_state["lesson:menu"])


@st.dialog(_("Reset this lesson?"))
def confirm_reset() -> None:
    st.write(_("This clears every answer and guess of this lesson and goes back to step 1."))
    c1, c2 = st.columns(2)
    if c1.button(_("Yes, reset"), type="primary", key="lesson:reset:yes"):
        for key in [k for k in st.session_state if str(k).startswith("lesson:") and k not in (PRESENT, STEP)]:
            del st.session_state[key]
        go_to(1)
        st.rerun()
    if c2.button(_("Cancel"), key="lesson:reset:no"):
        st.rerun()


ui.classroom.pace(STEP, go_to)  # a class's "follow me": the teacher's step written, a learner's page moved to it
k = st.session_state[STEP]
present = st.session_state[PRESENT]
ui.url.keep(step=k, present=1 if present else None)
step = STEPS[k - 1]
if present:
    presenter_style()
else:
    st.title(_("The lesson: embeddings"))
    st.progress(k / N, text=_("Step {k} of {n}: {title}", k=k, n=N, title=tr(step.title)))

nav = st.container(horizontal=True, vertical_alignment="center")
nav.button(_("← Back"), on_click=go, args=(-1,), disabled=k == 1, key="lesson:back", width="content")
st.session_state["lesson:menu"] = k
nav.selectbox(_("Step"), range(1, N + 1), key="lesson:menu", on_change=from_menu, label_visibility="collapsed",
              format_func={i: f"{i}. {tr(s.title)}" for i, s in enumerate(STEPS, 1)}.__getitem__,
              width=presenter.MENU_WIDTH[present])
nav.button(_("Next →"), on_click=go, args=(1,), disabled=k == N, key="lesson:next", type="primary", width="content")
st.session_state[PRESENT_WIDGET] = present  # the toggle shows the mode; the mode lives in PRESENT (not a widget
nav.toggle(_("Presenter mode"), key=PRESENT_WIDGET, on_change=copy_present,  # key, so no run can drop it)
           help=_("For a projector: one heading, larger type, ← and → keys."))
if nav.button(_("Reset this lesson"), key="lesson:reset", width="content", type="tertiary"):
    confirm_reset()
with nav:
    handout_download()
keyboard()

if present:  # the heading's line holds the language picker (the sidebar's is hidden), taking no line of its own
    head = st.container(horizontal=True, vertical_alignment="center", gap="medium", key="lesson-head")
    head.header(f"{k}. {tr(step.title)}", width="stretch")
    with head:
        presenter.language_on_screen()
else:
    st.header(tr(step.title))
st.markdown(_(step.text, **params()))
if present:  # one short line on a projector: the models' names (their reasons in the normal view and the handout)
    st.caption(_("On screen: {labels}", labels=" · ".join(ui.model_label(m) for m in step_models(step))))
else:
    st.caption(" ".join(_("On screen: {label}: {why}", label=ui.model_label(m), why=why(m)) for m in step_models(step)))
ui.lesson.DRAW[step.key]()
