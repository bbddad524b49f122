"""The lesson's sizing exercise, with the learner's answer checked (the Sizing page and the Lesson page)."""

from __future__ import annotations

import streamlit as st

from ..family import FAMILY
from ..i18n import _, num
from ..sizing import product_arithmetic, token_table_params

EXERCISE = ("ANDREA-480M", "ANDREA-12M")  # the lesson's two tables to size


def check(answer: int | None, size: str) -> tuple[bool, str]:
    """(right?, the feedback sentence) for an answer to "how many parameters does its token table hold"."""
    s = FAMILY[size]
    want = token_table_params(s.V, s.d)
    if answer is None:
        return False, _("Type a number first.")
    if answer == want:
        return True, _("Right: {arithmetic}.", arithmetic=product_arithmetic(s.V, s.d))
    if answer == s.V + s.d:
        return False, _("That is V + d. A table has V rows of d numbers each: multiply.")
    if answer in (s.V * s.d * 2, want + s.d * s.T):
        return False, _("That counts more than the token table: only V × d here.")
    return False, _("Not quite: V = {V} and d_model = {d}; multiply them.", V=num(s.V), d=num(s.d))


def sizing_exercise(key: str) -> None:
    """Each of the lesson's tables: V and d, a box for the learner's answer, and feedback on Check."""
    for size in EXERCISE:
        s = FAMILY[size]
        c1, c2, c3 = st.columns([3, 2, 1], vertical_alignment="bottom")
        c1.markdown(_("**{name}**: V = {V} ({segments} segments + 256 bytes + 1 BOS), d_model = {d}", name=size,
                      V=num(s.V), segments=num(s.segments), d=num(s.d)))
        answer = c2.number_input(_("Parameters in its token table"), min_value=0, value=None, step=1,
                                 key=f"{key}:{size}", placeholder=_("your answer"))
        if c3.button(_("Check"), key=f"{key}:{size}:check"):
            st.session_state[f"{key}:{size}:checked"] = answer
        if f"{key}:{size}:checked" in st.session_state:
            ok, text = check(st.session_state[f"{key}:{size}:checked"], size)
            (st.success if ok else st.warning)(text, icon="✅" if ok else "✏️")
