"""The lesson's sizing exercise, with the learner's answer checked (the Sizing page and the Lesson page)."""

from __future__ import annotations

import streamlit as st

from ..family import FAMILY
from ..i18n import _, glued, num, tr_md
from ..sizing import check_table_answer
from . import classroom
from .fragments import fragment

EXERCISE = ("ANDREA-480M", "ANDREA-12M")  # the lesson's two tables to size


@fragment
def sizing_exercise(key: str) -> None:
    """Each of the lesson's tables: V and d, a box for the learner's answer, and feedback on Check. A fragment: typing
    and Check rerun the exercise alone, not the page around it, so a class's answers cost the server a few lines each."""
    for size in EXERCISE:
        s = FAMILY[size]
        c1, c2, c3 = st.columns([3, 2, 1], vertical_alignment="bottom")
        c1.markdown(glued(_("**{name}**: V = {V} ({segments} segments + 256 bytes + 1 BOS), d_model = {d}", name=size,
                            V=num(s.V), segments=num(s.segments), d=num(s.d))))
        answer = c2.text_input(_("Parameters in its token table"), key=f"{key}:{size}", placeholder=_("your answer"),
                               help=_("Digits, grouped the way this language writes them ({example}) or not.",
                                      example=num(1234567)))
        if c3.button(_("Check"), key=f"{key}:{size}:check"):
            st.session_state[f"{key}:{size}:checked"] = answer
            classroom.give_sizing(size, answer)  # to the teacher, when this tab joined a class
        if f"{key}:{size}:checked" in st.session_state:
            ok, text = check_table_answer(st.session_state[f"{key}:{size}:checked"], size)
            # the typed text escaped; Material icons, which draw without a colour emoji font (an emoji check mark is an empty box there)
            (st.success if ok else st.warning)(tr_md(text), icon=":material/check_circle:" if ok else ":material/edit:")
