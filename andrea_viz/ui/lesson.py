"""The Lesson page's steps: one function per step, each the lesson's claim with its live picture, drawn
for the model the step names (andrea_viz.lesson). Every number is computed here from the models."""

from __future__ import annotations

import functools
import html

import plotly.graph_objects as go
import streamlit as st

from .. import lexicon
from ..byte_tokens import shown_token
from ..lesson.angles import case_of, plane_pair
from ..family import FAMILY, count_shape
from ..geometry import cosine, dot, jaccard, neighbours, norm, resolve
from ..grow import tying
from ..lesson.handout import PAGES as HANDOUT_PAGES
from ..lesson.handout import handout_html
from ..i18n import N_, _, language, listed, num, render, set_language, tex, tr, unhyphenated
from ..lesson import (EXAMPLE_IDS, LARGE, SHAPES, SOURCE_TYING, STEPS, models_of, nominal_gap, pair_changes, params,
                      row_updates, start_of, trained_of)
from ..lookup import one_hot_product
from ..plots import lesson as lesson_plots
from ..plots import lookup as lookup_plots
from ..plots import positions as position_plots
from ..plots import similarity as similarity_plots
from ..plots.sizing import params_treemap, parts_key
from ..plots.style import for_projector
from ..plots.words import words_kept
from ..positions import SCHEME_COLUMNS, order_blindness, schemes
from ..lesson.quiz import make_pair, score_round
from ..sizing import product_arithmetic, tying_saving
from ..lesson.sizing_claims import block_share
from ..model_words import lesson_word
from . import classroom, exercise
from .cache import cached, figure, get_model
from .charts import chart
from ..errors import QueryError
from ..safe_text import md
from .errors import explain_errors
from .models import model_label, run_language
from .widgets import number_slider, token_chips, token_picker
from .presenter import PROJECTOR_CSS
from .tables import shown_table

ANDREA_120M = FAMILY["ANDREA-120M"]
PRESENT = "lesson:present"  # session_state: presenter mode (a classroom screen of 1,280 × 720)
PRESENT_WIDGET = "lesson:present:toggle"  # its toggle's own key: a widget's state Streamlit may drop, the mode's not
TYING_K = 8  # the tying step's neighbour lists (the Neighbours page compares 10: its Jaccard says @10)


def copy_present() -> None:
    """The toggle changed: the mode follows it."""
    st.session_state[PRESENT] = bool(st.session_state[PRESENT_WIDGET])
QUIZ = "lesson:quiz:"  # prefix of the quiz's sliders and its placed pairs
REVEALED = "lesson:revealed"


def lesson_language() -> str:
    """The language of the lesson's run and words (andrea_viz.ui.models.run_language)."""
    return run_language()


def step_models(step) -> tuple[str, ...]:
    """The models a step shows, in the lesson's language."""
    return models_of(step, lesson_language())


def presenting() -> bool:
    return bool(st.session_state.get(PRESENT))


def h(normal: int, present: int) -> int:
    """A figure's height: smaller in presenter mode, so that a step's claim and picture share one screen."""
    return present if presenting() else normal


WORDS_PX = 52  # px: a chart's collapsed words in presenter mode (their one line and the gap above), taken from its height


def draw(where, fig, **kw) -> None:
    """A figure drawn in ``where`` (st or a column) with its words: in presenter mode a copy with every text at least
    18 px (andrea_viz.plots.style.for_projector), its words still under it in their collapsed expander (a projected
    lesson is read by a screen reader too), the chart that much shorter, so that the step still fits one screen."""
    if presenting():
        if "height" in kw:
            kw["height"] -= WORDS_PX
        chart(for_projector(fig, height=kw.get("height")), where=where, **kw)
    else:
        chart(fig, where=where, **kw)


def table(where, rows, **kw) -> None:
    """``rows`` as a table in ``where``: as HTML in presenter mode (``tables.shown_table``)."""
    shown_table(rows, where, presenting(), **kw)


def reset_quiz() -> None:
    """The guesses and the reveal go together: leaving the step forgets both."""
    for k in [k for k in st.session_state if str(k).startswith(QUIZ) or k == REVEALED]:
        del st.session_state[k]


LOOKUP_SAID = {  # step 1's sentence over the row drawn: a word of one token, or of several (one row each)
    False: N_("“{text}” → ids {ids} → row {id} of the ({V}, {d}) table:"),
    True: N_("“{text}” → ids {ids}, one row for each → row {id}, the first, of the ({V}, {d}) table:"),
}


def lookup() -> None:
    emb = get_model(SHAPES)
    draw(st, cached(emb, lesson_plots.rows_heatmap, EXAMPLE_IDS), key="lesson:example-rows",
         height=h(240, lesson_plots.ROWS_PRESENT))
    i = EXAMPLE_IDS[-1]
    if not presenting():
        q = token_picker(emb, key="lesson:lookup", preferred=lexicon.word(lesson_language(), "cat"), mean_note=False)
        if q is None:
            return
        i = q.ids[0]  # a word of several tokens is several lookups, one row each: the first is drawn
        st.markdown(render(LOOKUP_SAID[q.multi_piece], {"text": md(q.text), "ids": list(q.ids), "id": i,
                                                        "V": emb.vocab_size, "d": emb.d_model}))
        draw(st, cached(emb, lookup_plots.row_of, i), key="lesson:row")
    check = cached(emb, one_hot_product, i, part="token_table")
    c = st.columns(3)
    c[0].metric(_("max |one-hot·E − E[id]|"), num(check.max_abs_diff, "g"),
                help=_("The one-hot vector times the table gives exactly the row: the same numbers, by arithmetic."))
    c[1].metric(_("Multiply-adds for the product"), num(check.multiply_adds))
    c[2].metric(_("Numbers the lookup reads"), num(emb.d_model))


def values_histogram(where, emb, key: str) -> None:
    """A table's values against its init curve. In presenter mode the spread (the chart's subtitle) is written above
    the chart, where it can wrap: at 18 px it is wider than a third of the screen; the title ("Values of every
    entry", still in the chart's words) gives its height to the curve, under the column's own heading."""
    fig = cached(emb, lookup_plots.values_of, True)
    if presenting():
        where.markdown(md(fig.layout.title.subtitle.text))
        fig = words_kept(go.Figure(fig).update_layout(title={"text": None, "subtitle": {"text": None}},
                                                      margin={"t": 10}), fig)
    draw(where, fig, key=key, height=h(420, 300))  # on a projector the slide's room under step 2


def floats() -> None:
    lang = lesson_language()
    run, run0 = trained_of(lang), start_of(lang)  # the step's run in the lesson's language: final and step 0
    # before and after are one run, its step-0 table and its final one (ANDREA-120M at init beside the grown model
    # read as if training had changed 768 columns into 64); ANDREA-120M's own 1/√768 is said in the caption
    start, trained_emb = get_model(run0), get_model(run)
    c1, c2, c3 = st.columns([1.2, 1.2, 1.7]) if presenting() else (*st.columns(2), st.container())
    c1.markdown("**" + _("At step 0: {label}", label=unhyphenated(model_label(run))) + "**")  # the run's name: "step 0" once
    values_histogram(c1, start, "lesson:values:start")
    c2.markdown("**" + _("After training: {label}", label=unhyphenated(model_label(run))) + "**")
    values_histogram(c2, trained_emb, "lesson:values:trained")
    ru = row_updates(start, trained_emb)
    shown = listed([f"{i}" for i in ru.unmoved[:12]] + (["…"] if ru.unmoved.size > 12 else []))
    st.markdown(_("**A row updates only when its id is an input.** After {steps} steps, {n} of {V} rows of {label} are "
                  "still exactly their step-0 values (ids {ids}: bytes that never occur in its corpus){same}.",
                  steps=(trained_emb.card.step if trained_emb.card.step is not None else "?"), n=ru.unmoved.size, V=ru.V, label=model_label(run),
                  ids=shown, same=_(", the very ids its run recorded as never an input") if ru.never_input is not None
                  and ru.never_input.tolist() == ru.unmoved.tolist() else ""))
    with explain_errors():
        changes = pair_changes(start, trained_emb, lang)  # four pairs: cheap, nothing to cache
        table(c3, [{_("pair"): unhyphenated(f"{c.a} / {c.b}"), _("cosine at step 0"): round(c.before, 3),
                              _("cosine after training"): round(c.after, 3)} for c in changes], width="content")
        said = functools.reduce(lambda first, then: _("{first} {then}", first=first, then=then),  # Chinese: no space
                                [tr(c.verdict, escape=md) for c in changes if not c.related])
        c3.markdown(said if presenting() else "**" + _("The unrelated pairs over training:") + "** " + said)
    if presenting():  # the histograms' titles give both standard deviations
        return
    init = get_model(SHAPES)
    st.caption(_("The standard deviation at step 0 is 1/√d: {std:.4f} for d = {d} (ANDREA-120M), {std_m:.4f} for "
                 "d = {d_m} ({label}, whose step-0 table ships beside its final one). Training spreads the values "
                 "and gathers the animals.", std=init.card.init_std, d=init.d_model, std_m=trained_emb.card.init_std,
                 d_m=trained_emb.d_model, label=model_label(run)))


def cost() -> None:
    s = ANDREA_120M
    pc = count_shape(s)
    table(st, [{_("quantity"): "V", _("value"): num(s.V)}, {_("quantity"): "d_model", _("value"): num(s.d)},
                         {_("quantity"): _("parameters"), _("value"): num(pc.token)}], width="content")
    st.markdown(_("{arithmetic}: about {share_n:.1%} of the nominal {size} in ANDREA-120M's name, and {share_c:.1%} of "
                  "the {total} that its layout computes.", arithmetic=product_arithmetic(s.V, s.d),
                  share_n=pc.token / s.nominal, size=num(s.nominal / 1e6, "g") + "M", share_c=pc.token / pc.total,
                  total=num(pc.total)))


def sizing() -> None:
    exercise.sizing_exercise("lesson:exercise")


def dot_product() -> None:
    if presenting():  # the angle beside the arrows, over their numbers: the arrows take the screen's height
        c1, c2 = st.columns([1, 1])
        theta = c2.slider(_("θ, the angle between u and v (degrees)"), 0, 180, 60, 5, key="lesson:theta")
    else:
        theta = st.slider(_("θ, the angle between u and v (degrees)"), 0, 180, 60, 5, key="lesson:theta")
        c1, c2 = st.columns([1, 1])
    p = plane_pair(1.0, 1.0, theta)
    draw(c1, figure(similarity_plots.arrows_at, 1.0, 1.0, float(theta), presenting()), key="lesson:arrows",
         height=h(420, similarity_plots.ARROWS_PRESENT))  # in presenter mode each arrow named at its tip, no legend
    with c2:
        st.latex(rf"u\cdot v = |u|\,|v|\cos\theta = 1 \times 1 \times ({tex(p.cos, '+.3f')}) = {tex(p.dot, '+.3f')}")
        st.info(tr(case_of(theta)))
    classroom.give_choice("dot", case_of(theta))  # to the teacher, when this tab joined a class
    rows = []
    for name in (trained_of(lesson_language()), LARGE):
        emb = get_model(name)
        cat = resolve(emb, lesson_word(emb, "cat"))
        for other in ("dog", "tuesday"):
            q = resolve(emb, lesson_word(emb, other))
            rows.append({_("pair"): f"{cat.text} / {q.text}",  # the numbers first and the model's name last, so
                         "|u|": round(norm(cat.vector), 3), "|v|": round(norm(q.vector), 3),  # a narrow column cuts
                         "u·v": round(dot(cat.vector, q.vector), 3),  # the name (the caption above says it), never
                         _("cosine"): round(cosine(cat.vector, q.vector), 3), _("model on screen"): name})  # a number
    table(c2, rows, width="stretch")  # beside the arrows: one screen in presenter mode
    note = st if presenting() else c2  # in presenter mode under both columns, on one line: the step stays on one screen
    note.caption(_("u·v = |u| × |v| × cos θ on the real rows: the dot product carries the two lengths, the cosine only "
                   "the direction."))


def attention() -> None:
    lang = lesson_language()
    emb = get_model(trained_of(lang))
    c1, c2 = st.columns([3, 1])
    text = c1.text_input(_("A sentence"), lexicon.order_sentence(lang), max_chars=120, key=f"lesson:attn:text:{lang}",
                         label_visibility="collapsed" if presenting() else "visible")
    heads = int(emb.card.heads or 1)
    head = c2.selectbox(_("Head"), list(range(heads)), format_func=lambda i: f"{i + 1} / {heads}", key="lesson:attn:head",
                        label_visibility="collapsed" if presenting() else "visible")
    with explain_errors():
        ids = tuple(emb.tokenizer.encode(text))[: emb.context]
        if not ids:
            raise QueryError("the sentence gives no tokens; type a few words")
        draw(st, cached(emb, lesson_plots.attention_of, ids, int(head), 330, presenting()), key="lesson:attn",
             height=h(420, WORDS_PX + lesson_plots.attention_height(len(ids), lesson_plots.ATTENTION_PRESENT - WORDS_PX)))
        if presenting():  # the grids take the screen's height: the formula under them is the page's, not the slide's
            return
        st.caption(_("{label}'s first layer on {n} tokens: h = RMSNorm(x), q = h·W_q, k = h·W_k, both read from its "
                     ".bin; a score is q_i · k_j / √{dh}.", label=model_label(emb.key), n=len(ids),
                     dh=emb.d_model // heads))


def predict() -> None:
    lang = lesson_language()
    emb = get_model(trained_of(lang))
    pairs = [make_pair(emb, a, b) for a, b in lexicon.lesson_pairs(lang)]
    placed = st.session_state.setdefault(QUIZ + "placed", set())

    def mark(i: int) -> None:
        placed.add(i)
        st.session_state.pop(REVEALED, None)  # a new guess hides the old answer

    cols = st.columns(len(pairs)) if presenting() else [st.container() for _p in pairs]
    guesses = [number_slider(p.label, 0.0, 1.0, 0.5, 0.05, container=cols[i], key=f"{QUIZ}{i}", on_change=mark,
                             args=(i,), help=_("0: unrelated, 1: the same meaning.")) for i, p in enumerate(pairs)]
    missing = len(pairs) - len(placed)
    if st.button(_("Reveal the cosines"), type="primary", key="lesson:reveal", disabled=missing > 0):
        st.session_state[REVEALED] = True
        classroom.give_ordering(pairs, guesses)  # to the teacher, when this tab joined a class
    if missing:
        st.caption(_("Place every pair first: {n} of {total} still at the start.", n=missing, total=len(pairs)))
    if st.session_state.get(REVEALED) and not missing:
        score = score_round(guesses, pairs)
        (st.success if score.points >= 70 else st.warning)(tr(score.message))
        fig = similarity_plots.quiz_reveal(pairs, guesses)
        if presenting():  # every pair's label needs the height a legend under the axes takes at 18 px: the legend
            # goes in the title's line, at its right end (the chart spans the screen)
            fig = words_kept(go.Figure(fig).update_layout(legend={"yref": "container", "y": 1, "yanchor": "top",
                                                                  "x": 1, "xanchor": "right"}), fig)
        draw(st, fig, key="lesson:reveal-chart", height=h(420, 330))  # the slide's last 30 px: 5 pairs of bars


def positions() -> None:
    lang = lesson_language()
    emb = get_model(trained_of(lang))
    c1, c2 = st.columns(2)
    a = c1.text_input(_("One order"), lexicon.order_sentence(lang), key=f"lesson:order:a:{lang}")
    b = c2.text_input(_("Another order of the same words"), lexicon.order_scrambled(lang), key=f"lesson:order:b:{lang}")
    with explain_errors():
        check = order_blindness(emb, a, b)
        m = st.columns(2)
        m[0].metric(_("Without positions: same rows after sorting?"), _("yes") if check.same_rows_without_positions
                    else _("no"))
        m[1].metric(_("With positions: largest difference after sorting"), num(check.max_diff_with_positions, ".4f"))
    table(st, [{tr(c): tr(v) for c, v in zip(SCHEME_COLUMNS, row, strict=True)}
                         for row in schemes(get_model(SHAPES))], width="stretch")


def learned() -> None:
    run = trained_of(lesson_language())  # the lesson's language's run
    shapes, trained_emb = get_model(SHAPES), get_model(run)
    T, d = shapes.context, shapes.d_model
    st.markdown(_("ANDREA-120M's position table: T × d_model = {T:,} × {d} = {n:,} parameters; with the token table, "
                  "{emb:,} embedding parameters.", T=T, d=d, n=T * d, emb=count_shape(ANDREA_120M).embeddings))
    c1, c2 = st.columns(2)
    for where, kind, key in ((c1, "learned", "lesson:cos:learned"), (c2, "sinusoidal", "lesson:cos:sin")):
        fig = cached(trained_emb, position_plots.cosines_of, kind, model_label(run))
        if presenting():  # as tall as the screen allows, and only as wide as its square and its colour bar beside it
            high = position_plots.COSINE_PRESENT
            draw(where, fig, key=key, height=high, width=position_plots.square_width(fig, high - WORDS_PX))
        else:
            draw(where, fig, key=key, height=420)
    if presenting():  # the squares take the screen's height; their titles say which table each is
        return
    st.caption(_("Left: the learned table of {label} after training; right: the sinusoidal table of the same size, a "
                 "formula.", label=model_label(run)))


def where() -> None:
    pc = count_shape(ANDREA_120M)
    c1, c2 = st.columns([7, 5], vertical_alignment="center")  # the key's names each on one line, in every language
    draw(c1, figure(params_treemap, pc, _("ANDREA-120M: {n} parameters", n=num(pc.total))), key="lesson:treemap",
         height=h(420, 300))
    c2.markdown(parts_key(pc), unsafe_allow_html=True)  # every part named (our words only); its swatches are HTML
    g = nominal_gap()
    st.markdown(_("**The nominal 120M, part by part:** embeddings {emb:.2%} + output table {out:.2%} + blocks {blocks:.2%} "
                  "= {have:.2%}. The other {none:.2%} is the part of the nominal 120M that the layout doesn't have: it "
                  "computes {total} parameters, not {nominal}.", emb=g["embeddings"], out=g["output"],
                  blocks=g["blocks"], have=1 - g["none"], none=g["none"], total=num(g["computed"]),
                  nominal=num(g["nominal"])))
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
    run = trained_of(lesson_language())  # the lesson's language's run
    emb = get_model(run)
    cat = lesson_word(emb, "cat")
    _q, nin = neighbours(emb, cat, k=TYING_K, space="input")
    _q, nout = neighbours(emb, cat, k=TYING_K, space="output")
    c1, c2 = st.columns(2)
    c1.markdown("**" + _("Input table: nearest to “{word}”", word=md(cat)) + "**")
    c1.write(listed(md(shown_token(n.token)) for n in nin))
    c2.markdown("**" + _("Output table: nearest to “{word}”", word=md(cat)) + "**")
    c2.write(listed(md(shown_token(n.token)) for n in nout))
    st.caption(_("{label}'s two tables are trained apart: their lists of the {k} nearest overlap by Jaccard@{k} "
                 "{j:.2f}.", label=model_label(run), k=TYING_K, j=jaccard([n.id for n in nin], [n.id for n in nout])))
    st.markdown(_("Tying saves {saving} of ANDREA-120M's {total} parameters ({share:.1%}). That it “often helps quality” "
                  "is the finding of {source}: on language models of their time the tied models reached a lower "
                  "perplexity than the untied ones.",
                  saving=num(tying_saving(s.V, s.d)), total=num(untied.total),
                  share=tying_saving(s.V, s.d) / untied.total, source=SOURCE_TYING))
    measured = tying.kept()
    if measured is not None:
        st.markdown(tr(tying.finding(measured)))
        if not presenting():  # the command is an engineer's provenance, not a projected slide's
            st.caption(_("Made by python -m andrea_viz bench-tying --write; the held-out text is the generator's "
                         "sentences of another seed ({n:,} tokens).", n=measured["held_out_tokens"]))
        if lesson_language() != lexicon.ENGLISH:  # the pair of runs was grown on the English corpus only
            st.caption(_("These two runs were grown on the English corpus; no tied and untied pair was grown in this "
                         "language, so the figures above are the English model's."))


def flow() -> None:
    lang = lesson_language()
    run = trained_of(lang)  # the lesson's language's run
    emb, shapes = get_model(run), get_model(SHAPES)
    a, b = st.columns([1, 1]) if presenting() else (st.container(), st.container())
    text = a.text_input(_("A sentence"), lexicon.order_sentence(lang), max_chars=120, key=f"lesson:flow:text:{lang}")
    with explain_errors():
        ids = tuple(emb.tokenizer.encode(text))[: emb.context]
        if not ids:
            raise QueryError("the sentence gives no tokens; type a few words")
        cat = emb.tokenizer.encode(lexicon.word(lang, "cat"))
        default = ids.index(cat[0]) if len(cat) == 1 and cat[0] in ids else len(ids) - 1
        t = b.slider(_("Position t"), 0, len(ids) - 1, default, key=f"lesson:flow:t:{len(ids)}")
        if not presenting():
            st.markdown(_("**Tokens:** ") + token_chips([emb.token(i) for i in ids], list(ids)))
        c1, c2 = st.columns([1, 1])
        high = h(620, position_plots.SUM_PRESENT)  # the three rows laid out for the height they are drawn at
        draw(c1, cached(emb, position_plots.sum_of, int(ids[t]), "learned", int(t),
                        high - WORDS_PX if presenting() else high, presenting()), key="lesson:sum", height=high)
        draw(c2, cached(emb, lesson_plots.x_heatmap, ids, int(t)), key="lesson:x", height=h(420, position_plots.SUM_PRESENT))
        if presenting():  # the charts take the screen's height; the sentence's numbers are in their titles and words
            return
        st.caption(_("Left: x_{t} of {label} for id {id} (“{token}”) at position {t}, its own row plus position row {t}. "
                     "Right: all {n} rows of x. ANDREA-120M does the same with a full context: {ids} ids → a ({T}, {d}) "
                     "matrix x.", t=t, label=model_label(run), id=int(ids[t]), token=md(shown_token(emb.token(ids[t]))),
                     n=len(ids), ids=num(shapes.context), T=shapes.context, d=shapes.d_model))


DRAW = {"lookup": lookup, "floats": floats, "cost": cost, "exercise": sizing, "dot": dot_product, "attention": attention,
        "predict": predict,
        "positions": positions, "learned": learned, "where": where, "tied": tied, "flow": flow}


PRESENTER_CSS = "<style>" + PROJECTOR_CSS + """
[data-testid="stMainBlockContainer"] h2 { padding: 0.2rem 0 0.2rem 0; font-size: 1.6rem; }
[data-testid="stMarkdownContainer"] p { margin-bottom: 0.3rem; }
[data-testid="stVerticalBlock"] { gap: 0.45rem; }
.st-key-lesson-head { margin: -0.3rem 0; }
[class*="st-key-chart-words"] summary { padding-top: 0.1rem; padding-bottom: 0.1rem; }
[class*="st-key-chart-words"] summary p { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
</style>"""  # a chart's words on one line (a long title cut with an ellipsis on screen, read whole by a screen reader)

KEYS_JS = """<script>
const doc = window.parent.document;
if (!doc.__andreaLessonKeys) {
  doc.__andreaLessonKeys = true;
  doc.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const which = e.key === "ArrowRight" ? "next" : e.key === "ArrowLeft" ? "back" : null;
    if (!which) return;
    const a = doc.activeElement;  // keys typed into a field or a slider stay there
    if (a && a.matches("input, textarea, select, [contenteditable], [role=slider], [role=combobox], [role=listbox]")) return;
    const b = doc.querySelector(".st-key-lesson-" + which + " button");
    if (b && !b.disabled) { e.preventDefault(); b.click(); }
  });
}
</script>"""


def presenter_style() -> None:
    st.html(PRESENTER_CSS)


def keyboard() -> None:
    """← and → move one step when nothing that takes arrow keys has the focus (a script on the page itself)."""
    head = f'<!doctype html><html lang="{html.escape(language())}"><head><meta charset="utf-8"><title>'
    st.iframe(f"{head}{html.escape(_('The lesson: embeddings'))}</title></head><body>{KEYS_JS}</body></html>", height=1)


def handout(lang: str) -> str:
    """The printable handout in the reader's language (``andrea_viz.handout``): the lesson's figures, the exercise
    and its answers, every step's claim, the charts. Made when the button is clicked, outside the page's run, so
    the language is set here again."""
    set_language(lang)

    micro, shapes = get_model(trained_of(lang)), get_model(SHAPES)
    ids = tuple(micro.tokenizer.encode(lexicon.order_sentence(lang)))
    pc = count_shape(ANDREA_120M)
    figs = [cached(shapes, lesson_plots.rows_heatmap, EXAMPLE_IDS), cached(micro, lesson_plots.x_heatmap, ids, 2),
            cached(micro, lesson_plots.attention_of, ids, 0),
            figure(params_treemap, pc, _("ANDREA-120M: {n} parameters", n=num(pc.total)))]
    steps = [(tr(s.title), _(s.text, **params())) for s in STEPS]
    return handout_html(_("The lesson: embeddings"), language(), steps, figs)


def handout_download() -> None:
    lang = language()
    st.download_button(_("Handout"), data=lambda: handout(lang), file_name="andrea-embeddings-handout.html",
                       mime="text/html", key="lesson:handout", on_click="ignore",
                       help=_("An HTML file: every figure of the lesson, the exercise with its worked answers and every step's claim in "
                              "this language, to print on {pages} A4 pages.", pages=HANDOUT_PAGES),
                       type="tertiary")
