"""The embedding matrix as the lookup table it is."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.forward_pass import block_input_formula, block_input_steps
from andrea_viz.i18n import _, num, sentences, tr
from andrea_viz.lookup import one_hot_product, value_stats
from andrea_viz.plots import lookup as plots
from andrea_viz.safe_text import in_code, md

emb = ui.page_setup(__file__)
table = emb.token_table
V, d = table.shape

st.title(_("The embedding layer is a lookup table"))
st.markdown(_("The token table of this model has shape **(V, d_model) = ({V}, {d})**. Token id *i* selects row *i*: "
              "no arithmetic, no activation, just an index.", V=V, d=d))

q = ui.token_picker(emb, key="lookup:token", url_name="word", mean_note=False)  # one row is looked up: the first
token_id = q.ids[0] if q is not None else 0
if q is not None and len(q.ids) > 1:
    st.info(_("“{text}” is {n} tokens; the page shows the first, `{piece}` (id {id}).", text=md(q.text), n=len(q.ids),
              piece=in_code(q.pieces[0]), id=token_id))

marks = st.toggle(_("Mark the under-trained rows"), value=False, key="lookup:undertrained",
                  help=_("Ticks beside the rows whose under-trained score (the Anatomy page's, from Magikarp) is at or "
                         "above its threshold: rows that training hardly moved."))
ui.chart(ui.cached(emb, plots.overview_of, token_id, marks), key="lookup:overview")

st.subheader(_("A window at full resolution"))
c1, c2 = st.columns(2)
n_rows = c1.select_slider(_("Rows in the window"), options=[16, 32, 64, 128, 256], value=32,
                          help=_("How many consecutive rows of the table to draw cell by cell."))
centre = c2.checkbox(_("Centre the window on the looked-up token"), value=True,
                     help=_("Untick to choose the first row yourself."))
start_default = min(max(token_id - n_rows // 2, 0), max(V - n_rows, 0))
start = start_default if centre else int(c2.number_input(
    _("First row of the window"), 0, max(V - n_rows, 0), start_default, step=n_rows, key=f"lookup:start:{emb.key}",
    help=_("Any row from 0 to {last}.", last=max(V - n_rows, 0))))
ui.chart(ui.cached(emb, plots.window_of, start, n_rows, token_id), key="lookup:window")

st.subheader(_("Row {id}: what the embedding layer hands on", id=token_id))
ui.chart(ui.cached(emb, plots.row_of, token_id), key="lookup:row")
steps = block_input_steps(emb)
if emb.position_table is not None or not emb.block_input.plain:
    st.markdown(_("This row is the first term of what block 1 receives; for this model:"))
    st.latex(block_input_formula(emb))
    for step in steps:
        st.markdown("- " + tr(step, escape=md))
    st.caption(_("The Forward pass page draws each term and step for a sentence."))

st.subheader(_("The same row, the long way: one-hot × table"))
check = ui.cached(emb, one_hot_product, token_id, part="token_table")
V_tex = num(V).replace(",", "{,}").replace(".", "{.}")
st.latex(rf"\mathrm{{onehot}}({token_id})\,(1 \times {V_tex}) \cdot E\,({V_tex} \times {d}) = E[{token_id}]")
c = ui.metric_columns(3)
c[0].metric(_("max |one-hot·E − E[id]|"), num(check.max_abs_diff, "g"),
            help=_("Largest difference between the matrix product and the row lookup, over all d entries."))
c[1].metric(_("Multiply-adds for the product"), num(check.multiply_adds), help=_("V × d: the product touches every entry."))
c[2].metric(_("Numbers the lookup reads"), num(d), help=_("d: the lookup copies one row."))
ui.dataframe({_("dimension"): list(range(6)), _("one-hot · E"): [float(x) for x in check.product[:6]],
              "E[id]": [float(x) for x in check.row[:6]]}, decimals={_("one-hot · E"): 6, "E[id]": 6},
             width="content")  # both columns to 6 places, so equal rows read equal

st.subheader(_("Trained or untrained? Every entry, every row"))
init = emb.card.init_std
stats = ui.cached(emb, value_stats, init, part="token_table")
h1, h2 = st.columns(2)
log_y = h1.toggle(_("Log scale"), value=True, help=_("On a log scale a normal curve is a parabola, so heavy tails show."))
ui.chart(ui.cached(emb, plots.values_of, log_y), where=h1, key="lookup:values")
ui.chart(ui.cached(emb, plots.norms_of), where=h2, key="lookup:norms")
family = emb.card.family
if init is None:
    st.markdown(_("This table: mean {mean:+.4f}, standard deviation {std:.4f}, excess kurtosis {k:.2f} (0 for a normal "
                  "distribution). How this model's family initialises its table is not known here, so no init curve is "
                  "drawn.", mean=stats.mean, std=stats.std, k=stats.excess_kurtosis))
else:
    how = (_("ANDREA draws every entry from a normal distribution with standard deviation 1/√d = {std:.4f}, so every "
             "row starts with length close to 1.", std=init) if family == "ANDREA" else
           _("The {family} family draws every entry from a normal distribution with standard deviation {std:.4f}.",
             family=md(family or "?"), std=init))
    st.markdown(sentences([how, _(
        "This table: mean {mean:+.4f}, standard deviation {std:.4f} ({ratio:.2f}× the init's), excess kurtosis {k:.2f} "
        "(0 for a normal distribution). Training moves rows apart: frequent and rare tokens end with different lengths "
        "and the values grow heavy tails, so a trained table leaves the orange marks; an untrained one sits on them.",
        mean=stats.mean, std=stats.std, ratio=stats.std / init, k=stats.excess_kurtosis)]))
