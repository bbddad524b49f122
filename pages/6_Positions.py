"""Position information: x_t = tok + pos, learned versus sinusoidal, RoPE, and the three schemes."""

import numpy as np
import streamlit as st

from andrea_viz import ui
from andrea_viz.plots import positions as plots
from andrea_viz.positions import position_cosines, position_path, position_table_of, rope_rotate, rope_scores, schemes

emb = ui.page_setup(__file__)
T, d = emb.context or 1024, emb.d_model
kinds = ["learned", "sinusoidal"] if emb.position_table is not None else ["sinusoidal"]
st.title("Where is each token? Position embeddings")
st.markdown(
    "Without position information a transformer sees *the cat sat on a mat* and *mat a on sat cat the* as the "
    "same set of tokens. ANDREA adds a learned position row to every token row: "
    "$x_t = \\mathrm{token\\_embedding}[id_t] + \\mathrm{position\\_embedding}[t]$, element by element; "
    "the model never separates the two again."
)


@st.fragment
def sum_panel() -> None:
    c1, c2 = st.columns([2, 1])
    with c1:
        q = ui.token_picker(emb, key="pos:token")
    t = c2.slider("Position t", 0, T - 1, 3, help=f"Any row of the position table, 0 to {T - 1:,}.")
    if q is not None:
        pos = position_table_of(emb, kinds[0])[t]
        st.plotly_chart(plots.three_rows(q.vector, pos, q.text, t))


st.subheader("x_t = token + position")
st.caption("Drag the slider: only this panel reruns." + ("" if emb.position_table is not None else
           " This model has no learned table, so the sinusoidal row is added."))
sum_panel()

st.subheader(f"Learned versus sinusoidal, for T = {T:,} and d = {d}")
if emb.position_table is None:
    st.info(f"This model has no learned position table (its positions are **{emb.position_kind}**), "
            "so only the sinusoidal side is shown.")
step = max(1, -(-T // 256))
for col, kind in zip(st.columns(2), kinds, strict=False):
    with col:
        table = position_table_of(emb, kind)
        st.markdown("**Learned**: trained like the token table" if kind == "learned"
                    else "**Sinusoidal**: a fixed sin/cos formula, never trained")
        st.plotly_chart(plots.table_heatmap(table, f"The {kind} table, {T:,} × {d}"))
        cos, pos = ui.cached(emb, position_cosines, kind, step)
        st.plotly_chart(plots.cosine_heatmap(cos, pos, f"cos between positions ({kind})"
                                             + (f", positions 0, {step}, {2 * step}, …" if step > 1 else "")))
        coords, ratio = ui.cached(emb, position_path, kind)
        st.plotly_chart(plots.position_path(coords, ratio, f"Positions 0…{T - 1:,} through PC1 and PC2 ({kind})"))
st.plotly_chart(plots.row_norms(emb.position_table, position_table_of(emb, "sinusoidal")))

st.subheader("RoPE in one picture")
st.markdown("RoPE adds nothing to the input. It rotates each pair of dimensions of a query by m·θ and of a key by "
            "n·θ, so their dot product depends only on the offset m − n.")
r1, r2 = st.columns([1, 2])
offset = r1.slider("Offset m − n", -6, 6, 2, help="The distance between the query's and the key's positions.")
theta = r1.slider("θ (radians per position)", 0.05, 0.6, 0.3, 0.05)
q_vec, k_vec = np.array([1.0, 0.2]), np.array([0.8, 0.6])
pairs = [(n + offset, n) for n in (0, 3, 6)]
scores = rope_scores(q_vec, k_vec, pairs, theta)
r1.dataframe([{"m (query)": m, "n (key)": n, "m − n": m - n, "q·k after rotation": round(s, 6)}
              for (m, n), s in zip(pairs, scores, strict=True)], hide_index=True)
r1.caption("Same offset, same score, wherever the pair sits.")
r2.plotly_chart(plots.rope_picture(q_vec, k_vec, pairs, theta, rope_rotate))

st.subheader("Three ways to add position")
st.dataframe(schemes(emb), hide_index=True, width="stretch")
st.caption("ANDREA uses learned positions (from microGPT ← nanoGPT ← GPT-2): no special math in attention, its "
           "CUDA engine treats both lookups the same way with no sin/cos kernel, and the context is fixed at "
           "T = 1,024.")
