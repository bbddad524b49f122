"""The embedding matrix as the lookup table it is."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.lookup import block_average, expected_init_norm, one_hot_product, value_stats
from andrea_viz.plots import lookup as plots

emb = ui.page_setup(__file__)
table = emb.token_table
V, d = table.shape

st.title("The embedding layer is a lookup table")
st.markdown(
    f"The token table of this model has shape **(V, d_model) = ({V:,}, {d:,})**. "
    "Token id *i* selects row *i*: no arithmetic, no activation, just an index."
)

q = ui.token_picker(emb, key="lookup:token")
token_id = q.ids[0] if q is not None else 0
if q is not None and len(q.ids) > 1:
    st.info(f"“{q.text}” is {len(q.ids)} tokens; the page shows the first, `{q.pieces[0]}` (id {token_id:,}).")

avg, rb, cb = ui.cached(emb, block_average, 512, 384, part="token_table")
st.plotly_chart(plots.table_overview(avg, rb, cb, V, d, selected=token_id))

st.subheader("A window at full resolution")
c1, c2 = st.columns(2)
n_rows = c1.select_slider("Rows in the window", options=[16, 32, 64, 128, 256], value=32,
                          help="How many consecutive rows of the table to draw cell by cell.")
centre = c2.checkbox("Centre the window on the looked-up token", value=True,
                     help="Untick to choose the first row yourself.")
start_default = min(max(token_id - n_rows // 2, 0), max(V - n_rows, 0))
start = start_default if centre else int(
    c2.number_input("First row of the window", 0, max(V - n_rows, 0), start_default, step=n_rows,
                    help=f"Any row from 0 to {max(V - n_rows, 0):,}.", key=f"lookup:start:{emb.key}")
)
stop = min(start + n_rows, V)
labels = [emb.token(i) for i in range(start, stop)]
st.plotly_chart(plots.table_window(table[start:stop], start, labels, token_id))

st.subheader(f"Row {token_id:,}: what the embedding layer hands on")
st.plotly_chart(plots.row_bars(table[token_id], token_id, emb.token(token_id), float(emb.row_norms[token_id])))

st.subheader("The same row, the long way: one-hot × table")
check = one_hot_product(table, token_id)
V_tex = f"{V:,}".replace(",", "{,}")
st.latex(rf"\mathrm{{onehot}}({token_id})\,(1 \times {V_tex}) \cdot E\,({V_tex} \times {d}) = E[{token_id}]")
c = st.columns(3)
c[0].metric("max |one-hot·E − E[id]|", f"{check.max_abs_diff:g}",
            help="Largest difference between the matrix product and the row lookup, over all d entries.")
c[1].metric("Multiply-adds for the product", f"{check.multiply_adds:,}", help="V × d: the product touches every entry.")
c[2].metric("Numbers the lookup reads", f"{d:,}", help="d: the lookup copies one row.")
st.dataframe(
    {"dimension": list(range(6)), "one-hot · E": [float(x) for x in check.product[:6]],
     "E[id]": [float(x) for x in check.row[:6]]},
    hide_index=True, width="content",
)

st.subheader("Trained or untrained? Every entry, every row")
stats = ui.cached(emb, value_stats, part="token_table")
h1, h2 = st.columns(2)
log_y = h1.toggle("Log scale", value=True, help="On a log scale a normal curve is a parabola, so heavy tails show.")
h1.plotly_chart(plots.value_histogram(stats, d, log_y=log_y))
h2.plotly_chart(plots.norm_histogram(emb.row_norms, expected_init_norm(d)))
st.markdown(
    f"At step 0 every entry is drawn from N(0, 1/√d) = N(0, {stats.init_std:.4f}), so every row has length close "
    f"to 1. This table: mean {stats.mean:+.4f}, std {stats.std:.4f} ({stats.std / stats.init_std:.2f}× the init "
    f"scale), excess kurtosis {stats.excess_kurtosis:.2f} (0 for a normal). Training moves rows apart: frequent "
    "and rare tokens end with different lengths and the values grow heavy tails, so a trained table leaves "
    "the orange marks; an untrained one sits on them."
)
