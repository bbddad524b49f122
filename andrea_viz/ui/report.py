"""What a checkpoint held and what was taken from it."""

from __future__ import annotations

import streamlit as st

from ..model import Embeddings


def checkpoint_report(emb: Embeddings) -> None:
    p = emb.provenance
    st.markdown(f"**Format:** {p.format}  \n**Tables:** token {emb.vocab_size:,} × {emb.d_model}, positions "
                f"{'—' if emb.context is None else f'{emb.context:,} × {emb.d_model}'} ({emb.position_kind}), "
                f"output {emb.output_kind}  \n**Tokenizer:** {emb.tokenizer.description}")
    for w in p.warnings:
        st.warning(w, icon="⚠️")
    st.markdown("**Taken as the model's tables**")
    st.dataframe([{"role": r, "tensor": n, "why": why} for r, n, why in p.roles], hide_index=True, width="stretch")
    if p.assumptions:
        st.markdown("**Assumed**\n" + "\n".join(f"- {a}" for a in p.assumptions))
    if p.notes:
        st.markdown("**Noted**\n" + "\n".join(f"- {n}" for n in p.notes))
    with st.expander(f"Every tensor in the file ({len(p.tensors):,})"):
        st.dataframe([{"tensor": n, "shape": " × ".join(f"{s:,}" for s in shape) or "scalar", "dtype": dt}
                      for n, shape, dt in p.tensors], hide_index=True, width="stretch")
