"""The Lesson page's steps: one function per step, each the lesson's claim with its live picture, drawn
for the model the step names (andrea_viz.lesson). Every number is computed here from the models."""

from __future__ import annotations

import streamlit as st

from ..angles import case_of, plane_pair
from ..family import FAMILY, count_shape
from ..geometry import cosine, jaccard, neighbours, resolve
from ..i18n import _, num, tex, tr
from ..lesson import LARGE, SHAPES, TRAINED
from ..lookup import one_hot_product
from ..plots import lookup as lookup_plots
from ..plots import positions as position_plots
from ..plots import similarity as similarity_plots
from ..plots.sizing import params_treemap
from ..positions import SCHEME_COLUMNS, order_blindness, schemes
from ..quiz import LESSON_PAIRS, make_pair, score_round
from ..sizing import product_arithmetic, tying_saving
from ..sizing_claims import block_share
from . import exercise
from .cache import cached, figure, get_model
from .errors import explain_errors
from .models import model_label
from .widgets import token_picker
from ..grow.trainer import initial_token_table

ANDREA_120M = FAMILY["ANDREA-120M"]


def lookup() -> None:
    emb = get_model(SHAPES)
    q = token_picker(emb, key="lesson:lookup", preferred="cat")
    if q is None:
        return
    i = q.ids[0]
    st.markdown(_("“{text}” → ids {ids} → row {id:,} of the ({V:,}, {d}) table:", text=q.text, ids=list(q.ids), id=i,
                  V=emb.vocab_size, d=emb.d_model))
    st.plotly_chart(cached(emb, lookup_plots.row_of, i), key="lesson:row")
    check = cached(emb, one_hot_product, i, part="token_table")
    c = st.columns(3)
    c[0].metric(_("max |one-hot·E − E[id]|"), f"{check.max_abs_diff:g}",
                help=_("The one-hot vector times the table gives exactly the row: the same numbers, by arithmetic."))
    c[1].metric(_("Multiply-adds for the product"), num(check.multiply_adds))
    c[2].metric(_("Numbers the lookup reads"), num(emb.d_model))


def floats() -> None:
    init, trained = get_model(SHAPES), get_model(TRAINED)
    c1, c2 = st.columns(2)
    c1.markdown("**" + _("At step 0: {label}", label=model_label(SHAPES)) + "**")
    c1.plotly_chart(cached(init, lookup_plots.values_of, True), key="lesson:values:init")
    c2.markdown("**" + _("After training: {label}", label=model_label(TRAINED)) + "**")
    c2.plotly_chart(cached(trained, lookup_plots.values_of, True), key="lesson:values:trained")
    first = cached(trained, step_zero_table)
    rows = []
    for a, b in (("cat", "dog"), ("cat", "pet"), ("cat", "tuesday"), ("cat", "xylophone")):
        ia, ib = resolve(trained, a).ids[0], resolve(trained, b).ids[0]
        rows.append({_("pair"): f"{a} / {b}", _("cosine at step 0"): round(cosine(first[ia], first[ib]), 3),
                     _("cosine after training"): round(cosine(resolve(trained, a).vector, resolve(trained, b).vector), 3)})
    st.dataframe(rows, hide_index=True, width="content")
    st.caption(_("The standard deviation at step 0 is 1/√d: {std:.4f} for d = {d} (ANDREA-120M), {std_m:.4f} for "
                 "d = {d_m} ({label}, whose step-0 table is made again here from its seed). Training spreads the values "
                 "and gathers the animals.", std=init.card["init_std"], d=init.d_model, std_m=trained.card["init_std"],
                 d_m=trained.d_model, label=model_label(TRAINED)))


def step_zero_table(emb):
    """andrea-micro's token table at step 0, made again from the seed it was grown with."""
    return initial_token_table(emb)


def cost() -> None:
    s = ANDREA_120M
    pc = count_shape(s)
    st.dataframe([{_("quantity"): "V", _("value"): num(s.V)}, {_("quantity"): "d_model", _("value"): num(s.d)},
                  {_("quantity"): _("parameters"), _("value"): num(pc.token)}], hide_index=True, width="content")
    st.markdown(_("{arithmetic}: about {share_n:.1%} of the nominal {size} in ANDREA-120M's name, and {share_c:.1%} of "
                  "the {total} that its layout computes.", arithmetic=product_arithmetic(s.V, s.d),
                  share_n=pc.token / s.nominal, size=num(s.nominal / 1e6, "g") + "M", share_c=pc.token / pc.total,
                  total=num(pc.total)))


def sizing() -> None:
    exercise.sizing_exercise("lesson:exercise")


def dot_product() -> None:
    theta = st.slider(_("θ, the angle between u and v (degrees)"), 0, 180, 60, 5, key="lesson:theta")
    p = plane_pair(1.0, 1.0, theta)
    c1, c2 = st.columns([1, 1])
    c1.plotly_chart(figure(similarity_plots.arrows_at, 1.0, 1.0, float(theta)), key="lesson:arrows")
    with c2:
        st.latex(rf"u\cdot v = |u|\,|v|\cos\theta = 1 \times 1 \times ({tex(p.cos, '+.3f')}) = {tex(p.dot, '+.3f')}")
        st.info(tr(case_of(theta)))
        for name in (TRAINED, LARGE):
            emb = get_model(name)
            cd = cosine(resolve(emb, "cat").vector, resolve(emb, "dog").vector)
            ct = cosine(resolve(emb, "cat").vector, resolve(emb, "tuesday").vector)
            st.markdown(_("**{label}**: cos(cat, dog) = {cd:+.3f}, cos(cat, tuesday) = {ct:+.3f}",
                          label=model_label(name), cd=cd, ct=ct))


def predict() -> None:
    emb = get_model(TRAINED)
    pairs = [make_pair(emb, a, b) for a, b in LESSON_PAIRS]
    guesses = [st.slider(p.label, 0.0, 1.0, 0.5, 0.05, key=f"lesson:quiz:{i}",
                         help=_("0: unrelated, 1: the same meaning.")) for i, p in enumerate(pairs)]
    if st.button(_("Reveal the cosines"), type="primary", key="lesson:reveal"):
        st.session_state["lesson:revealed"] = True
    if st.session_state.get("lesson:revealed"):
        score = score_round(guesses, pairs)
        (st.success if score.points >= 70 else st.warning)(tr(score.message))
        st.plotly_chart(similarity_plots.quiz_reveal(pairs, guesses), key="lesson:reveal-chart")


def positions() -> None:
    emb = get_model(TRAINED)
    c1, c2 = st.columns(2)
    a = c1.text_input(_("One order"), "the cat sat on a mat", key="lesson:order:a")
    b = c2.text_input(_("Another order of the same words"), "mat a on sat cat the", key="lesson:order:b")
    with explain_errors():
        check = order_blindness(emb, a, b)
        m = st.columns(2)
        m[0].metric(_("Without positions: same rows after sorting?"), _("yes") if check.same_rows_without_positions
                    else _("no"))
        m[1].metric(_("With positions: largest difference after sorting"), num(check.max_diff_with_positions, ".4f"))
    st.dataframe([{tr(c): tr(v) for c, v in zip(SCHEME_COLUMNS, row, strict=True)} for row in schemes(get_model(SHAPES))],
                 hide_index=True, width="stretch")


def learned() -> None:
    shapes, trained = get_model(SHAPES), get_model(TRAINED)
    T, d = shapes.context, shapes.d_model
    st.markdown(_("ANDREA-120M's position table: T × d_model = {T:,} × {d} = {n:,} parameters; with the token table, "
                  "{emb:,} embedding parameters.", T=T, d=d, n=T * d, emb=count_shape(ANDREA_120M).embeddings))
    c1, c2 = st.columns(2)
    c1.plotly_chart(cached(trained, position_plots.cosines_of, "learned"), key="lesson:cos:learned")
    c2.plotly_chart(cached(trained, position_plots.cosines_of, "sinusoidal"), key="lesson:cos:sin")
    st.caption(_("Left: the learned table of {label} after training; right: the sinusoidal table of the same size, a "
                 "formula.", label=model_label(TRAINED)))


def where() -> None:
    pc = count_shape(ANDREA_120M)
    st.plotly_chart(figure(params_treemap, pc, _("ANDREA-120M: {n} parameters", n=num(pc.total))), key="lesson:treemap")
    b = block_share()
    st.markdown(_(
        "The embedding layer is {emb:.1%} of the nominal 120M (the lesson's “6%”), and the lesson's 94% is the rest. "
        "ANDREA is untied, so that rest holds the output table too ({out_n:.1%}); the transformer blocks themselves are "
        "{blocks_n:.1%} of the nominal 120M and {blocks_c:.1%} of the {total} that the layout computes.",
        emb=b.embeddings_of_nominal, out_n=b.output_of_nominal, blocks_n=b.blocks_of_nominal, blocks_c=b.blocks_of_computed,
        total=num(pc.total)))


def tied() -> None:
    s = ANDREA_120M
    untied, tied_pc = count_shape(s), count_shape(s, tied=True)
    m = st.columns(3)
    m[0].metric(_("Untied (ANDREA)"), num(untied.total))
    m[1].metric(_("Tied (GPT-2 style)"), num(tied_pc.total))
    m[2].metric(_("Tying saves"), num(tying_saving(s.V, s.d)))
    emb = get_model(TRAINED)
    _q, nin = neighbours(emb, "cat", k=8, space="input")
    _q, nout = neighbours(emb, "cat", k=8, space="output")
    c1, c2 = st.columns(2)
    c1.markdown("**" + _("Input table: nearest to “cat”") + "**")
    c1.write(", ".join(n.token for n in nin))
    c2.markdown("**" + _("Output table: nearest to “cat”") + "**")
    c2.write(", ".join(n.token for n in nout))
    st.caption(_("{label}'s two tables are trained apart: their neighbour lists overlap by Jaccard {j:.2f}.",
                 label=model_label(TRAINED), j=jaccard([n.id for n in nin], [n.id for n in nout])))


def flow() -> None:
    shapes = get_model(SHAPES)
    T = shapes.context
    t = st.slider(_("Position t"), 0, T - 1, 3, key="lesson:t")
    q = token_picker(shapes, key="lesson:flow", preferred="cat")
    if q is not None:
        st.plotly_chart(cached(shapes, position_plots.sum_of, q.text, "learned", t), key="lesson:sum")
    st.markdown(_("A full context: {n:,} ids → {n:,} token rows + {n:,} position rows → a ({n}, {d}) matrix x, into block "
                  "1.", n=T, d=shapes.d_model))


DRAW = {"lookup": lookup, "floats": floats, "cost": cost, "exercise": sizing, "dot": dot_product, "predict": predict,
        "positions": positions, "learned": learned, "where": where, "tied": tied, "flow": flow}
