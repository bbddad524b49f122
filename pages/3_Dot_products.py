"""Dot products: similarity as an angle, on toy arrows and on the model's own vectors."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.angles import case_of, plane_pair
from andrea_viz.geometry import angle_degrees, cosine, dot, norm
from andrea_viz.plots import similarity as plots
from andrea_viz.quiz import draw_round, score_round

emb = ui.page_setup(__file__)
st.title("Dot products: how similar are two vectors?")
st.markdown(
    "Length: $\\|v\\| = \\sqrt{\\sum_i v_i^2}$. Dot product: $u\\cdot v = \\sum_i u_i v_i = \\|u\\|\\,\\|v\\|\\cos\\theta$. "
    "Same direction gives a large positive number, opposite a large negative one, perpendicular zero: "
    "the dot product is an unnormalised similarity, and attention (the next lesson) is built from it."
)


@st.fragment
def plane_panel() -> None:
    c1, c2 = st.columns([1, 1])
    with c1:
        len_u = st.slider("|u|, the length of u", 0.1, 2.0, 1.0, 0.1, help="Blue arrow.")
        len_v = st.slider("|v|, the length of v", 0.1, 2.0, 1.0, 0.1, help="Orange arrow.")
        theta = st.slider("θ, the angle between them (degrees)", 0, 180, 60, 5, help="Turn v away from u.")
        p = plane_pair(len_u, len_v, theta)
        m = st.columns(2)
        m[0].metric("|u|", f"{p.norm_u:.2f}")
        m[1].metric("|v|", f"{p.norm_v:.2f}")
        m[0].metric("cos θ", f"{p.cos:+.3f}")
        m[1].metric("u·v", f"{p.dot:+.3f}", help="u_x v_x + u_y v_y, computed from the coordinates")
        st.latex(rf"u\cdot v = |u|\,|v|\cos\theta = {p.norm_u:.2f}\times{p.norm_v:.2f}\times({p.cos:+.3f}) = {p.dot:+.3f}")
        st.info(case_of(theta))
    c2.plotly_chart(plots.arrows(p))


st.subheader("Two vectors in the plane")
plane_panel()

st.subheader("Turn v from 0° to 180°")
st.caption("Press ▶ Play (it runs in your browser) or drag the angle slider under the chart. Here |u| = 1.5 and "
           "|v| = 1.2, so u·v = 1.8 cos θ: the same shape as cos θ, stretched by the two lengths.")
st.plotly_chart(plots.turning_animation(1.5, 1.2), key="turning")

st.subheader(f"Real vectors of {ui.model_label(emb.key)}")
ui.offer_trained_example(emb, "dot")
c1, c2 = st.columns(2)
with c1:
    qu = ui.token_picker(emb, key="dot:u", label="First word (u)", preferred="cat")
with c2:
    qv = ui.token_picker(emb, key="dot:v", label="Second word (v)", preferred="dog")
if qu is not None and qv is not None:
    u, v = qu.vector, qv.vector
    m = st.columns(5)
    m[0].metric(f"|{qu.text}|", f"{norm(u):.3f}", help="the length of u")
    m[1].metric(f"|{qv.text}|", f"{norm(v):.3f}", help="the length of v")
    m[2].metric("cosine", f"{cosine(u, v):+.3f}", help="u·v / (|u||v|): direction only")
    m[3].metric("dot product", f"{dot(u, v):+.4f}", help="sum of the d products below")
    m[4].metric("angle", f"{angle_degrees(u, v):.1f}°")
    st.plotly_chart(plots.elementwise_products(u, v, qu.text, qv.text))

st.subheader("Predict similarity")
st.markdown("Place each pair on the scale **before** you reveal the real cosines. Only the order counts.")
round_no = st.session_state.setdefault("quiz:round", 0)
pairs = ui.cached(emb, draw_round, round_no)
guesses = [
    st.slider(p.label, 0.0, 1.0, 0.5, 0.05, key=f"quiz:{emb.key}:{round_no}:{i}",
              help="0: unrelated, 1: the same meaning. " + (f"Pieces: {' + '.join(p.pieces_a)} / "
                                                            f"{' + '.join(p.pieces_b)}" if p.multi_piece else ""))
    for i, p in enumerate(pairs)
]
b1, b2, _ = st.columns([1, 1, 4])
if b1.button("Reveal the cosines", type="primary"):
    st.session_state[f"quiz:revealed:{round_no}"] = True
if b2.button("New round", help="Other pairs from a curated list"):
    st.session_state["quiz:round"] = round_no + 1
    st.rerun()
if st.session_state.get(f"quiz:revealed:{round_no}"):
    score = score_round(guesses, pairs)
    st.metric("Score", f"{score.points} / 100")
    st.write(score.message)
    st.plotly_chart(plots.quiz_reveal(pairs, guesses))
    if any(p.multi_piece for p in pairs):
        st.caption("Multi-piece words are the mean of their pieces' rows.")
    if emb.card.get("untrained"):
        st.caption("An untrained table: every pair is near 0, random directions in many dimensions are almost "
                   "perpendicular. Training is what pulls related tokens together.")
