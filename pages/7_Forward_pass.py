"""The forward pass so far: a sentence to ids to the (T, d) matrix x that enters block 1."""

import numpy as np
import streamlit as st

from andrea_viz import ui
from andrea_viz.errors import QueryError
from andrea_viz.forward_pass import BACKENDS, backend_status, forward, kernels_ready, time_backends
from andrea_viz.plots.positions import matrix_heatmap
from andrea_viz.positions import order_blindness

emb = ui.page_setup(__file__)
T_max = emb.context
st.title("The forward pass so far")
st.markdown(
    f"{'1,024' if T_max == 1024 else f'Up to {T_max:,}' if T_max else 'The'} ids → as many token rows + position "
    f"rows → a (T, {emb.d_model}) matrix **x** that flows into transformer block 1."
)

if kernels_ready():
    statuses = backend_status()
else:
    with st.status("Building the compiled kernels (the first time only; about a minute)…", expanded=False) as box:
        statuses = backend_status()
        box.update(label="Kernels ready.", state="complete")

c1, c2 = st.columns([3, 1])
text = c1.text_input("A sentence", "the cat sat on a mat", help="Tokenized by the loaded model's tokenizer.")
available = [s.name for s in statuses if s.available]
backend = c2.selectbox("Backend", ["auto", *available], key="fwd:backend", help="auto: the fastest available, in the order "
                       + " → ".join(BACKENDS))

with ui.explain_errors():
    if emb.position_table is None:
        raise QueryError("this model has no learned position table (positions: {kind}); the forward pass here adds "
                         "learned position rows", kind=emb.position_kind)
    ids = emb.tokenizer.encode(text)
    if not ids:
        raise QueryError("the sentence gives no tokens; type a few words")
    st.markdown("**Tokens:** " + " ".join(f"`{emb.token(i)}`<sub>{i}</sub>" for i in ids), unsafe_allow_html=True)
    result = forward(emb, ids, backend)
    tok = forward(emb, ids, "numpy", positions=False).x
    pos = emb.position_table[: len(ids)]
    labels = [f"{t}: {emb.token(i)}" for t, i in enumerate(ids)]
    lim = float(np.percentile(np.abs(result.x), 99.5))
    h = st.columns(3)
    h[0].plotly_chart(matrix_heatmap(tok, labels, f"token part ({len(ids)} × {emb.d_model})", lim))
    h[1].plotly_chart(matrix_heatmap(pos, [f"t = {t}" for t in range(len(ids))], "+ position part", lim))
    h[2].plotly_chart(matrix_heatmap(result.x, labels, "= x, into block 1", lim))
    m = st.columns(3)
    m[0].metric("Backend used", result.backend)
    m[1].metric("Time of this run", f"{result.seconds * 1e6:.0f} µs" if result.seconds < 1e-3
                else f"{result.seconds * 1e3:.2f} ms")
    m[2].metric("Bandwidth", "—" if result.gbps is None else f"{result.gbps:.2f} GB/s",
                help="B·T·(3·d·4 + 8) bytes moved ÷ time; not shown below 4 MB moved, where the time is mostly call "
                "overhead (the full context below is not)")

st.subheader("Order blindness")
o1, o2 = st.columns(2)
text_a = o1.text_input("One order", "the cat sat on a mat")
text_b = o2.text_input("Another order of the same words", "mat a on sat cat the")
with ui.explain_errors():
    check = order_blindness(emb, text_a, text_b)
    b1, b2 = st.columns(2)
    b1.metric("Without positions: same rows after sorting?", "yes" if check.same_rows_without_positions else "no",
              help="The two token-part matrices, rows sorted, compared entry by entry.")
    b2.metric("With positions: largest difference after sorting", f"{check.max_diff_with_positions:.4f}",
              help=f"Frobenius norm of the difference: {check.frobenius_with_positions:.3f}")
    st.caption("Without position rows the two sentences are the same bag of vectors; adding position rows is what "
               "lets the model tell them apart.")

st.subheader("Backends")
st.dataframe([{"backend": s.name, "what": s.label, "available": "yes" if s.available else "no",
               "why not": s.reason} for s in statuses], hide_index=True, width="stretch")
if T_max and st.button(f"Run a full context: B = 8 sequences × T = {T_max:,} random ids",
                       help="Times every available backend on the same ids"):
    with st.spinner("Timing every available backend…"):
        rows = time_backends(emb, B=8)
    st.dataframe([{"backend": r["backend"], "best of 3 (ms)": round(r["seconds"] * 1e3, 2),
                   "GB/s": None if r["gbps"] is None else round(r["gbps"], 1)} for r in rows], hide_index=True)
    st.caption("For the median of many runs against torch eager and torch.compile: `python -m andrea_viz bench`.")
