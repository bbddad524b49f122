"""Sizing embedding tables, and where a model's parameters live."""

import dataclasses

import streamlit as st

from andrea_viz import ui
from andrea_viz.family import FAMILY, SHAPE_LABELS, count_params
from andrea_viz.i18n import _, num, tr
from andrea_viz.plots.sizing import PART_LABELS, params_treemap
from andrea_viz.sizing import human_bytes, product_arithmetic, table_bytes, tying_saving
from andrea_viz.safe_text import md
from andrea_viz.lesson.sizing_claims import block_share

emb = ui.page_setup(__file__)
st.title(_("Sizing embedding tables"))
st.markdown(_("A token table holds **V × d_model** numbers; a learned position table **T × d_model**. Pick an ANDREA "
              "preset or type your own sizes."))

LOADED = "the loaded model"


def _preset_values(name: str) -> dict[str, int | None]:
    if name == LOADED:  # the model's own sizes; layers only when its card knows them
        return dict(V=emb.vocab_size, d=emb.d_model, T=emb.context or 0, L=emb.card.layers)
    s = FAMILY[name]
    return dict(V=s.V, d=s.d, T=s.T, L=s.L)


def _apply_preset() -> None:
    for k, v in _preset_values(st.session_state["sizing:preset"]).items():
        if v is not None:
            st.session_state[f"sizing:{k}"] = v


if "sizing:V" not in st.session_state:
    st.session_state["sizing:preset"] = "ANDREA-120M"
    _apply_preset()

preset = st.selectbox(_("Preset"), [*FAMILY, LOADED], key="sizing:preset", on_change=_apply_preset,
                      format_func={**{k: tr(SHAPE_LABELS.get(k, k)) for k in FAMILY}, LOADED: _("the loaded model")}.__getitem__,
                      help=_("Fills the four sizes below; change any of them afterwards."))
c = st.columns(5)
whole = ui.widgets.whole_number_input
V = int(whole(_("Vocabulary V"), 1, 10_000_000, container=c[0], key="sizing:V", help=_("rows of the token table")))
d = int(whole("d_model", 1, 65_536, container=c[1], key="sizing:d", help=_("columns: the width of every vector")))
T = int(whole(_("Context T"), 0, 1_000_000, container=c[2], key="sizing:T",
              help=_("rows of a learned position table (0: none)")))
L = int(whole(_("Layers L"), 0, 1_000, container=c[3], key="sizing:L",
              help=_("transformer blocks (for the whole-model count)")))
tied = c[4].toggle(_("Tied output"), value=False, help=_("Tied: the output projection reuses the token table."))
pc = count_params(V, d, T, L, tied=tied)
no_head = preset == LOADED and emb.output_table is None and not emb.tied  # an encoder: no output head at all
if no_head:
    pc = dataclasses.replace(pc, output=0)
as_preset = _preset_values(preset)
is_preset = as_preset == dict(V=V, d=d, T=T, L=L) and not tied

if preset == LOADED:
    family = emb.card.family
    if emb.card.layers is None:
        st.warning(_("This model's layer count is not known: L keeps the value it had. Enter the model's own L."),
                   icon=":material/edit:")
    if family != "ANDREA":
        st.info(_("The whole-model count below uses ANDREA's layout (2·V·d + T·d + 12·L·d²). {model} is a {family} "
                  "model with another layout: its file holds {total} parameters.", model=md(ui.model_label(emb.key)),
                  family=md(family) if family else _("another"), total=num(emb.card.total_params) if emb.card.total_params
                  else _("an unknown number of")), icon=":material/info:")
    if no_head:
        st.info(_("{model} has no output head (an encoder): the counts below leave the output table out.",
                  model=md(ui.model_label(emb.key))), icon=":material/info:")

m = ui.metric_columns(4)
m[0].metric(_("Token table"), num(pc.token), help=product_arithmetic(V, d))
m[1].metric(_("Position table"), num(pc.position), help=_("{T} × {d}", T=num(T), d=num(d)))
m[2].metric(_("Token + position"), num(pc.embeddings))
m[3].metric(_("Whole model (ANDREA layout)"), num(pc.total),
            help=_("2·V·d + T·d + 12·L·d² untied; V·d + T·d + 12·L·d² tied"))

st.subheader(_("Exercise: sizing embedding tables"))
st.markdown(_("How many parameters does each token table hold? Work it out, type it, and check."))
ui.exercise.sizing_exercise("sizing:exercise")

st.subheader(_("Untied versus tied embeddings"))
saving = tying_saving(V, d)
untied, tied_pc = count_params(V, d, T, L), count_params(V, d, T, L, tied=True)
t = st.columns(3)
t[0].metric(_("Untied (ANDREA)"), num(untied.total), help=_("separate input table and output projection"))
t[1].metric(_("Tied (GPT-2 style)"), num(tied_pc.total), help=_("one V × d matrix for input and output logits"))
t[2].metric(_("Tying saves"), num(saving), _("−{share:.1%} of the untied model", share=saving / untied.total),
            delta_color="off", delta_arrow="down")

st.subheader(_("Where the parameters live"))
ui.chart(ui.figure(params_treemap, pc, _("V={V}, d={d}, T={T}, L={L}, {kind}: {n} parameters", V=num(V), d=num(d),
                                                  T=num(T), L=L, kind=_("tied") if tied else _("untied"),
                                                  n=num(pc.total))), key="sizing:treemap")

nominal = FAMILY[preset].nominal if preset in FAMILY and is_preset else None
rows = []
parts = {**pc.parts(), "token + position": pc.embeddings}
computed, of_nominal = pc.shares(parts=parts), pc.shares(nominal, parts) if nominal else {}
for part, n in parts.items():
    row = {_("part"): tr(PART_LABELS.get(part, part)) if part in PART_LABELS else _("token + position"),
           _("parameters"): num(n), "fp32": human_bytes(table_bytes(n)), "bf16": human_bytes(table_bytes(n, "bf16")),
           _("share of computed total"): num(computed[part], ".2%")}
    if nominal:
        row[_("share of nominal {size}", size=num(nominal / 1e6, "g") + "M")] = num(of_nominal[part], ".2%")
    rows.append(row)
ui.dataframe(rows, width="stretch")
if nominal:
    st.caption(_("The lesson quotes shares of the nominal {size}M in the model's name; the count from the layout above "
                 "is {total}. Both columns are shown: the lesson's “5.4%” and “6%” for ANDREA-120M are the nominal "
                 "column, the card's 98.7M gives the computed one.", size=num(nominal / 1e6, "g"), total=num(pc.total)))
elif preset in FAMILY:
    st.caption(_("The sizes no longer match {preset}, so there is no nominal size to compare with.", preset=preset))
if preset == "ANDREA-120M" and is_preset:
    b = block_share()
    st.markdown(_(
        "**“The other 94% live in the transformer blocks.”** The lesson's 94% is 100% minus the embeddings' "
        "{emb:.1%} of the nominal 120M, so it counts everything that is not the token or position table. ANDREA is "
        "untied: that rest includes the output table ({out_n:.1%} of the nominal, {out_c:.1%} of the computed total). "
        "The blocks themselves hold {blocks_n:.1%} of the nominal 120M and {blocks_c:.1%} of the computed "
        "{total}.", emb=b.embeddings_of_nominal, out_n=b.output_of_nominal, out_c=b.output_of_computed,
        blocks_n=b.blocks_of_nominal, blocks_c=b.blocks_of_computed, total=num(pc.total)))
st.markdown(_("**Whole model in memory:** {fp32} in fp32, {bf16} in bf16.", fp32=human_bytes(table_bytes(pc.total)),
              bf16=human_bytes(table_bytes(pc.total, "bf16"))))
