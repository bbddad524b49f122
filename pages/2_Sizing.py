"""Sizing embedding tables, and where a model's parameters live."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.plots.sizing import params_treemap
from andrea_viz.family import FAMILY, count_params
from andrea_viz.sizing import human_bytes, product_arithmetic, table_bytes, token_table_params, tying_saving

emb = ui.page_setup(__file__)
st.title("Sizing embedding tables")
st.markdown("A token table holds **V × d_model** numbers; a learned position table **T × d_model**. "
            "Pick an ANDREA preset or type your own sizes.")

PRESETS = {**FAMILY, "the loaded model": None}


def _apply_preset() -> None:
    name = st.session_state["sizing:preset"]
    shape = FAMILY.get(name)
    if shape is None:  # the loaded model's own tables; layers from its card when known
        values = dict(V=emb.vocab_size, d=emb.d_model, T=emb.context or 0, L=int(emb.card.get("layers", 12)))
    else:
        values = dict(V=shape.V, d=shape.d, T=shape.T, L=shape.L)
    for k, v in values.items():
        st.session_state[f"sizing:{k}"] = v


if "sizing:V" not in st.session_state:
    st.session_state["sizing:preset"] = "ANDREA-120M"
    _apply_preset()

st.selectbox("Preset", list(PRESETS), key="sizing:preset", on_change=_apply_preset,
             help="Fills the four sizes below; change any of them afterwards.")
c = st.columns(5)
V = c[0].number_input("Vocabulary V", 1, 10_000_000, key="sizing:V", help="rows of the token table")
d = c[1].number_input("d_model", 1, 65_536, key="sizing:d", help="columns: the width of every vector")
T = c[2].number_input("Context T", 0, 1_000_000, key="sizing:T", help="rows of a learned position table (0: none)")
L = c[3].number_input("Layers L", 0, 1_000, key="sizing:L", help="transformer blocks (for the whole-model count)")
tied = c[4].toggle("Tied output", value=False, help="Tied: the output projection reuses the token table.")
pc = count_params(int(V), int(d), int(T), int(L), tied=tied)

m = st.columns(4)
m[0].metric("Token table", f"{pc.token:,}", help=product_arithmetic(int(V), int(d)))
m[1].metric("Position table", f"{pc.position:,}", help=f"{int(T):,} × {int(d):,}")
m[2].metric("Token + position", f"{pc.embeddings:,}")
m[3].metric("Whole model (ANDREA layout)", f"{pc.total:,}", help="2·V·d + T·d + 12·L·d² untied; V·d + T·d + 12·L·d² tied")

st.subheader("Exercise: sizing embedding tables")
st.markdown("How many parameters does each token table hold? Work it out, then open the answer.")
for name in ("ANDREA-120M", "ANDREA-480M", "ANDREA-12M"):
    s = FAMILY[name]
    with st.expander(f"{name}: V = {s.V:,} ({s.segments:,} segments + 256 bytes + 1 BOS), d_model = {s.d:,}"):
        st.markdown(f"**{product_arithmetic(s.V, s.d)}** parameters "
                    f"({human_bytes(table_bytes(token_table_params(s.V, s.d)))} in fp32)")

st.subheader("Untied versus tied embeddings")
saving = tying_saving(int(V), int(d))
untied, tied_pc = count_params(int(V), int(d), int(T), int(L)), count_params(int(V), int(d), int(T), int(L), tied=True)
t = st.columns(3)
t[0].metric("Untied (ANDREA)", f"{untied.total:,}", help="separate input table and output projection")
t[1].metric("Tied (GPT-2 style)", f"{tied_pc.total:,}", help="one V × d matrix for input and output logits")
t[2].metric("Tying saves", f"{saving:,}", f"-{saving / untied.total:.1%} of the untied model", delta_color="off")

st.subheader("Where the parameters live")
st.plotly_chart(params_treemap(pc, f"V={int(V):,}, d={int(d):,}, T={int(T):,}, L={int(L)}"
                               f"{', tied' if tied else ', untied'}: {pc.total:,} parameters"))

nominal = FAMILY.get(st.session_state["sizing:preset"])
nominal = nominal.nominal if nominal is not None else None
rows = []
for part, n in {**pc.parts(), "token + position": pc.embeddings}.items():
    row = {"part": part, "parameters": f"{n:,}", "fp32": human_bytes(table_bytes(n)),
           "bf16": human_bytes(table_bytes(n, "bf16")), "share of computed total": f"{n / pc.total:.2%}"}
    if nominal:
        row[f"share of nominal {nominal / 1e6:g}M"] = f"{n / nominal:.2%}"
    rows.append(row)
st.dataframe(rows, hide_index=True, width="stretch")
if nominal:
    st.caption(
        f"The lesson quotes shares of the nominal {nominal / 1e6:g}M in the model's name; the count from the "
        f"layout above is {pc.total:,}. Both columns are shown: the lesson's “5.4%” and “6%” for ANDREA-120M "
        "are the nominal column, the card's 98.7M gives the computed one."
    )
st.markdown(f"**Whole model in memory:** {human_bytes(table_bytes(pc.total))} in fp32, "
            f"{human_bytes(table_bytes(pc.total, 'bf16'))} in bf16.")
