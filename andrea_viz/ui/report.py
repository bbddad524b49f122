"""What a checkpoint held and what was taken from it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ..i18n import _, num, tr, tr_md
from ..model import Embeddings
from ..safe_text import md
from .models import OUTPUT_KIND_LABELS, POSITION_KIND_LABELS
from .tables import dataframe


def checkpoint_report(emb: Embeddings) -> None:
    p = emb.provenance
    positions = "—" if emb.context is None else f"{num(emb.context)} × {emb.d_model}"
    st.markdown(_("**Format:** {format}  \n**Tables:** token {V:,} × {d}, positions {positions} ({kind}), output "
                  "{output}  \n**Tokenizer:** {tokenizer}", format=tr_md(p.format), V=emb.vocab_size, d=emb.d_model,
                  positions=positions, kind=tr(POSITION_KIND_LABELS[emb.position_kind]),
                  output=tr(OUTPUT_KIND_LABELS[emb.output_kind]), tokenizer=tr_md(emb.tokenizer.description)))
    for w in p.warnings:
        st.warning(tr(w, escape=md), icon=":material/warning:")
    st.markdown("**" + _("Taken as the model's tables") + "**")
    # a few rows whose "why" is a sentence: an HTML table wraps it, where the grid cut it at its edge
    st.table(pd.DataFrame([{_("role"): tr(r), _("tensor"): n, _("why"): tr(why)} for r, n, why in p.roles]),
             hide_index=True)
    if p.assumptions:
        st.markdown("**" + _("Assumed") + "**\n" + "\n".join(f"- {tr(a, escape=md)}" for a in p.assumptions))
    if p.notes:
        st.markdown("**" + _("Noted") + "**\n" + "\n".join(f"- {tr(n, escape=md)}" for n in p.notes))
    with st.expander(_("Every tensor in the file ({n:,})", n=len(p.tensors))):
        dataframe([{_("tensor"): n, _("shape"): " × ".join(num(s) for s in shape) or _("scalar"), _("dtype"): dt}
                      for n, shape, dt in p.tensors], width="stretch")
