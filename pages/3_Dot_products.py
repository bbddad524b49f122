"""Dot products: similarity as an angle, on toy arrows and on the model's own vectors."""

import streamlit as st

from andrea_viz import ui
from andrea_viz.lesson.angles import case_of, plane_pair
from andrea_viz.geometry import angle_degrees, cosine, dot, norm
from andrea_viz.i18n import _, num, tex, tr
from andrea_viz.plots import similarity as plots
from andrea_viz.lesson.quiz import draw_round, score_round
from andrea_viz.safe_text import md

TURN = (1.5, 1.2)  # |u| and |v| of the turning animation

emb = ui.page_setup(__file__)
st.title(_("Dot products: how similar are two vectors?"))
st.markdown(_(
    "Length: $\\|v\\| = \\sqrt{\\sum_i v_i^2}$. Dot product: $u\\cdot v = \\sum_i u_i v_i = \\|u\\|\\,\\|v\\|\\cos\\theta$. "
    "Same direction gives a large positive number, opposite a large negative one, perpendicular zero: the dot product "
    "is an unnormalised similarity, and attention (the next lesson) is built from it."))


@ui.fragment
def plane_panel() -> None:
    c1, c2 = st.columns([1, 1])
    with c1:
        len_u = ui.number_slider(_("|u|, the length of u"), 0.1, 2.0, 1.0, 0.1, ".1f", help=_("Blue arrow."))
        len_v = ui.number_slider(_("|v|, the length of v"), 0.1, 2.0, 1.0, 0.1, ".1f", help=_("Orange arrow."))
        theta = st.slider(_("θ, the angle between them (degrees)"), 0, 180, 60, 5, help=_("Turn v away from u."))
        p = plane_pair(len_u, len_v, theta)
        m = st.columns(2)
        m[0].metric("|u|", num(p.norm_u, ".2f"))
        m[1].metric("|v|", num(p.norm_v, ".2f"))
        m[0].metric("cos θ", num(p.cos, "+.3f"))
        m[1].metric("u·v", num(p.dot, "+.3f"), help=_("u_x v_x + u_y v_y, computed from the coordinates"))
        st.latex(rf"\begin{{aligned}}u\cdot v &= |u|\,|v|\cos\theta \\ &= {tex(p.norm_u, '.2f')}\times"  # two lines:
                 rf"{tex(p.norm_v, '.2f')}\times({tex(p.cos, '+.3f')}) = {tex(p.dot, '+.3f')}\end{{aligned}}")  # fits its column
        st.info(tr(case_of(theta)))
    ui.chart(ui.figure(plots.arrows_at, len_u, len_v, float(theta)), where=c2, key="dot:arrows")


st.subheader(_("Two vectors in the plane"))
plane_panel()

st.subheader(_("Turn v from 0° to 180°"))
st.caption(_("Press {play} (it runs in your browser) or drag the angle slider under the chart. Here |u| = 1.5 and "
             "|v| = 1.2, so u·v = 1.8 cos θ: the same shape as cos θ, stretched by the two lengths.",
             play=_("▶ Play")))  # the button's own label, so the two always match
ui.chart(ui.figure(plots.turning_animation, *TURN), key="turning")

st.subheader(_("Real vectors of {label}", label=md(ui.model_label(emb.key))))
ui.offer_trained_example(emb, "dot")
c1, c2 = st.columns(2)
with c1:
    qu = ui.token_picker(emb, key="dot:u", label=_("First word (u)"), preferred="cat")
with c2:
    qv = ui.token_picker(emb, key="dot:v", label=_("Second word (v)"), preferred="dog")
if qu is not None and qv is not None:
    u, v = qu.vector, qv.vector
    m = st.columns(5)
    m[0].metric(f"|{md(qu.text)}|", num(norm(u), ".3f"), help=_("the length of u"))
    m[1].metric(f"|{md(qv.text)}|", num(norm(v), ".3f"), help=_("the length of v"))
    m[2].metric(_("cosine"), num(cosine(u, v), "+.3f"), help=_("u·v / (|u||v|): direction only"))
    m[3].metric(_("dot product"), num(dot(u, v), "+.4f"), help=_("the sum of the d products below"))
    m[4].metric(_("angle"), num(angle_degrees(u, v), ".1f") + "°")
    ui.chart(ui.cached(emb, plots.products_of, qu.text, qv.text), key="dot:products")

st.subheader(_("Predict similarity"))
st.markdown(_("Place each pair on the scale **before** you reveal the real cosines. Only the order counts."))
round_no = st.session_state.setdefault("quiz:round", 0)
pairs = ui.cached(emb, draw_round, round_no)
byte_level = emb.card.untrained or any(p.multi_piece for p in pairs)
if emb.card.untrained:
    st.caption(_("On this untrained table each word is the mean of the rows of its bytes, so a pair's cosine measures "
                 "the letters its two words share, not their meaning. Predict that, or try ANDREA-micro."))
revealed = f"quiz:revealed:{emb.key}:{round_no}"  # tied to the model: a new model asks again
placed = st.session_state.setdefault(f"quiz:placed:{emb.key}:{round_no}", set())


def mark(i: int) -> None:
    placed.add(i)
    st.session_state.pop(revealed, None)  # a new guess hides the old answer


guesses = [ui.number_slider(p.label + (_(" (several tokens)") if p.multi_piece else ""), 0.0, 1.0, 0.5, 0.05,
                            key=f"quiz:{emb.key}:{round_no}:{i}", on_change=mark, args=(i,),
                            help=_("0: unrelated, 1: the same meaning.") + (" " + _("Pieces: {a} / {b}", a=" + ".join(map(md, p.pieces_a)),
                                                                             b=" + ".join(map(md, p.pieces_b)))
                                                                    if p.multi_piece else ""))
           for i, p in enumerate(pairs)]
missing = len(pairs) - len(placed)
row = st.container(horizontal=True)  # each button as wide as its words ("Onthul de cosinussen" was cut in a sixth)
if row.button(_("Reveal the cosines"), type="primary", disabled=missing > 0):
    st.session_state[revealed] = True
    ui.classroom.give_ordering(pairs, guesses)  # to the teacher, when this tab joined a class
if row.button(_("New round"), help=_("Other pairs from a curated list")):
    st.session_state["quiz:round"] = round_no + 1
    st.rerun()
if missing:
    st.caption(_("Place every pair first: {n} of {total} still at the start.", n=missing, total=len(pairs)))
if st.session_state.get(revealed) and not missing:
    score = score_round(guesses, pairs)
    st.metric(_("Score"), f"{score.points} / 100")
    st.write(tr(score.message))
    ui.chart(plots.quiz_reveal(pairs, guesses), key="dot:reveal")
    if byte_level:
        st.caption(_("A word of several tokens is the mean of its pieces' rows."))
