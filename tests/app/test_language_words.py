"""The language picks the model and the words: on a default start (no ?model=) in Dutch, Portuguese or Chinese,
every page that needs a trained table shows that language's grown model and its own words (kat and hond, not cat
and dog); a model named in the address still wins, with that model's words."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz import lexicon
from andrea_viz.builtin import BUILTINS, load_builtin
from andrea_viz.geometry import cosine, dot, norm, resolve
from andrea_viz.i18n import Msg, render, translate, unhyphenated
from andrea_viz.safe_text import md
from andrea_viz.lesson import STEPS, pair_changes, start_of, trained_of
from andrea_viz.ui.state import LANGUAGE, MODEL

from .conftest import ROOT, figures, no_exception, plain

OTHER = ["nl", "pt-BR", "zh-TW"]


def default_start(page: str, lang: str, model: str | None = None, query: dict | None = None) -> AppTest:
    """A fresh session opened on ``page`` in ``lang`` with no model chosen (or ``model`` in the address)."""
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=180)
    at.query_params["lang"] = lang
    if model is not None:
        at.query_params["model"] = model
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.switch_page(f"pages/{page}").run()
    no_exception(at)
    return at


def text_inputs(at: AppTest) -> list[str]:
    return [t.value for t in at.text_input]


def words(lang: str, *names: str) -> list[str]:
    return [lexicon.word(lang, n) for n in names]


@pytest.mark.parametrize("lang", OTHER)
def test_dot_products_starts_on_the_languages_model_and_words(lang):
    at = default_start("3_Dot_products.py", lang)
    assert at.session_state[MODEL] == lexicon.model_of(lang)
    cat, dog = words(lang, "cat", "dog")
    assert text_inputs(at)[:2] == [cat, dog]
    emb = load_builtin(lexicon.model_of(lang))
    u, v = resolve(emb, cat).vector, resolve(emb, dog).vector
    labels = [m.label for m in at.metric]
    k = labels.index(f"|{cat}|")  # then |v|, cosine, dot product, angle (those labels are translated)
    assert labels[k + 1] == f"|{dog}|" and len(resolve(emb, cat).ids) == 1
    value = [float(m.value.replace(",", ".")) for m in at.metric[k:k + 4]]
    assert value == pytest.approx([norm(u), norm(v), cosine(u, v), dot(u, v)], abs=6e-4)
    assert cosine(u, v) > 0.5  # the grown model's claim, not English byte soup (cos +0.010 at 89.4°)
    labels = [s.label for s in [*at.slider, *at.select_slider]]
    assert [f"{a} / {b}" for a, b in lexicon.lesson_pairs(lang)] == [x for x in labels if " / " in x]
    assert "cat / dog" not in " ".join(labels)


@pytest.mark.parametrize("lang", OTHER)
def test_neighbours_starts_on_the_languages_word_and_analogy(lang):
    at = default_start("4_Neighbours.py", lang)
    shown = text_inputs(at)
    assert shown[0] == lexicon.word(lang, "cat")
    assert shown[1:4] == words(lang, "king", "man", "woman")
    emb = load_builtin(lexicon.model_of(lang))
    assert all(len(resolve(emb, w).ids) == 1 for w in shown[:4])  # no byte answers: the words are the model's own
    first = at.dataframe[0].value
    assert lexicon.word(lang, "cat") not in list(first.iloc[:, 1])  # the query's own row is never counted
    assert len(first) == 10


@pytest.mark.parametrize("lang", OTHER)
def test_positions_and_projection_start_on_the_languages_word(lang):
    at = default_start("6_Positions.py", lang)
    assert text_inputs(at)[0] == lexicon.word(lang, "cat")
    intro = at.markdown[0].value  # the order-blindness sentence, in the reader's language as the Lesson's step 8 has it
    assert f"*{lexicon.order_sentence(lang)}*" in intro and f"*{lexicon.order_scrambled(lang)}*" in intro
    assert "the cat sat" not in intro and "$x_t = " in intro


CONTEXT_LINE = "{model}, on screen, has a learned table of {T:,} rows, so its context is fixed at T = {T:,}."


@pytest.mark.parametrize("lang,model,rows", [("nl", None, 32), ("zh-TW", None, 32), ("en", "minilm-l6", 512),
                                             ("pt-BR", "andrea-120m-init", None)])
def test_positions_says_the_context_of_the_model_on_screen_beside_andreas(lang, model, rows):
    """The page's last caption gives ANDREA-120M's T = 1,024; a model on screen with a learned table of another length
    gets its own line (andrea-micro-nl's 32 rows, MiniLM's 512), named as the sidebar names it, and ANDREA-120M's own
    table none."""
    at = default_start("6_Positions.py", lang, model)
    name = md(translate(BUILTINS[model or f"andrea-micro-{lang}"].label, lang))
    captions = [c.value for c in at.caption]
    assert any(render("T = {T:,}", {"T": 1024}, lang) in c for c in captions)  # ANDREA's, in every case
    if rows is None:  # ANDREA-120M's own 1,024 rows: the line above already says so
        assert render(CONTEXT_LINE, {"model": name, "T": 1024}, lang) not in captions, captions
    else:
        assert render(CONTEXT_LINE, {"model": name, "T": rows}, lang) in captions


@pytest.mark.parametrize("lang", OTHER)
def test_projection_starts_on_the_languages_word(lang):
    at = default_start("5_Projection.py", lang)
    assert lexicon.word(lang, "cat") in text_inputs(at)


@pytest.mark.parametrize("lang", OTHER)
def test_forward_pass_starts_on_the_languages_sentence(lang):
    at = default_start("7_Forward_pass.py", lang)
    assert text_inputs(at) == [lexicon.order_sentence(lang)] * 2 + [lexicon.order_scrambled(lang)]
    emb = load_builtin(f"andrea-micro-{lang}")
    chips = " ".join(m.value for m in at.markdown if "#" in m.value)
    ids = emb.tokenizer.encode(lexicon.order_sentence(lang))
    assert ids and all(f"#{i}" in chips for i in ids)
    rows = [list(f["data"][0]["y"]) for f in figures(at) if f["data"] and f["data"][0]["type"] == "heatmap"]
    spaces = [t for t, i in enumerate(ids) if emb.token(i) == "<0x20>"]  # the space byte, as the chips say it: ␣
    assert rows and all(r == [f"{t}: {'␣' if t in spaces else emb.token(i)}" for t, i in enumerate(ids)] for r in rows)


def test_an_untrained_table_offers_the_languages_grown_model():
    at = default_start("3_Dot_products.py", "zh-TW", model="andrea-12m-init")
    assert text_inputs(at)[:2] == ["cat", "dog"]  # an untrained table's words are English, split into bytes
    assert "cat / dog" + translate(" (several tokens)", "zh-TW") in [s.label for s in at.select_slider]  # said to be split
    [b] = [b for b in at.button if b.key == "dot:micro"]
    b.click().run()
    no_exception(at)
    assert at.session_state[MODEL] == "andrea-micro-zh-TW" and text_inputs(at)[:2] == ["貓", "狗"]


@pytest.mark.parametrize("lang", OTHER)
def test_compare_starts_on_the_languages_run(lang):
    at = default_start("10_Compare.py", lang)
    assert [at.selectbox(key=f"cmp:{side}:have").value for side in "AB"] == [start_of(lang), trained_of(lang)]
    assert at.radio(key="cmp:align").value == "none"  # one run: its snapshots share their axes


@pytest.mark.parametrize("lang", OTHER)
def test_anatomy_pairs_are_the_languages(lang):
    at = default_start("11_Anatomy.py", lang)
    assert text_inputs(at)[-1] == lexicon.word(lang, "cat")
    pairs = [df.value for df in at.dataframe if "cos" in df.value.columns and len(df.value) == 5]
    assert pairs and list(pairs[0].iloc[:, 0]) == [f"{a} / {b}" for a, b in lexicon.lesson_pairs(lang)]


def test_a_model_in_the_address_wins_with_its_own_words():
    at = default_start("3_Dot_products.py", "nl", model="andrea-micro")
    assert at.session_state[MODEL] == "andrea-micro"
    assert text_inputs(at)[:2] == ["cat", "dog"]
    assert "cat / dog" in [s.label for s in at.select_slider]
    at = default_start("4_Neighbours.py", "nl", model="minilm-l6")
    assert text_inputs(at)[:4] == ["cat", "king", "man", "woman"]


def test_changing_the_language_changes_the_default_model_but_not_a_chosen_one():
    at = default_start("3_Dot_products.py", "nl")
    at.selectbox(key="_lang").set_value("pt-BR").run()
    no_exception(at)
    assert at.session_state[MODEL] == "andrea-micro-pt-BR" and text_inputs(at)[:2] == ["gato", "cachorro"]
    at.selectbox(key="_model").set_value("andrea-micro-zh-TW").run()
    at.selectbox(key="_lang").set_value("nl").run()
    no_exception(at)
    assert at.session_state[MODEL] == "andrea-micro-zh-TW" and text_inputs(at)[:2] == ["貓", "狗"]


def step_at(at: AppTest, key: str) -> AppTest:
    at.session_state["lesson:step"] = [s.key for s in STEPS].index(key) + 1
    at.run()
    no_exception(at)
    return at


@pytest.mark.parametrize("lang", OTHER)
def test_the_lessons_trained_steps_use_the_languages_run_and_words(lang):
    at = default_start("0_Lesson.py", lang, query={"step": "2"})
    run, run0 = load_builtin(trained_of(lang)), load_builtin(start_of(lang))
    cat, dog, tuesday, xylophone = words(lang, "cat", "dog", "tuesday", "xylophone")
    # step 2: the pairs at step 0 and after training, and what the unrelated ones did, from the shipped tables
    table = at.dataframe[0].value
    changes = pair_changes(run0, run, lang)
    # each pair whole at its hyphens in the table (no-break hyphens: "terça-" over "feira" in a narrow cell)
    assert list(table.iloc[:, 0]) == [unhyphenated(f"{c.a} / {c.b}") for c in changes]
    assert {unhyphenated(f"{cat} / {x}") for x in (dog, tuesday, xylophone)} <= set(table.iloc[:, 0])
    assert np.allclose(table.iloc[:, 2], [round(c.after, 3) for c in changes])
    said = " ".join(plain(m.value) for m in at.markdown)
    for c in changes:
        if not c.related:
            assert f"{c.a} / {c.b}" in said
    # step 5: dot products with the two lengths beside the cosines, on the language's run and on MiniLM
    at = step_at(at, "dot")
    rows = at.dataframe[0].value
    u, v = resolve(run, cat).vector, resolve(run, dog).vector
    mine = rows[rows.iloc[:, 0] == f"{cat} / {dog}"].iloc[0]  # the pair, its numbers, then the model's name
    assert list(mine.iloc[1:5]) == pytest.approx([norm(u), norm(v), dot(u, v), cosine(u, v)], abs=6e-4)
    assert mine.iloc[5] == trained_of(lang)
    assert "cat / dog" in list(rows.iloc[:, 0])  # MiniLM beside it is English
    # step 6 and 12: the sentence is the language's own; step 7: the quiz pairs; step 11: the cat word's neighbours
    at = step_at(at, "attention")
    assert text_inputs(at)[0] == lexicon.order_sentence(lang)
    at = step_at(at, "predict")
    assert [s.label for s in at.select_slider] == [f"{a} / {b}" for a, b in lexicon.lesson_pairs(lang)]
    at = step_at(at, "positions")
    assert text_inputs(at) == [lexicon.order_sentence(lang), lexicon.order_scrambled(lang)]
    at = step_at(at, "tied")
    assert "**" + Msg("Input table: nearest to “{word}”", word=cat).render(lang) + "**" in [m.value for m in at.markdown]
    at = step_at(at, "flow")
    assert text_inputs(at)[0] == lexicon.order_sentence(lang)
    ids = run.tokenizer.encode(lexicon.order_sentence(lang))
    assert at.slider[0].value == ids.index(run.tokenizer.encode(cat)[0])  # x_t opens on the cat word


def test_the_lesson_follows_a_grown_model_in_the_address():
    at = default_start("0_Lesson.py", "nl", model="andrea-micro", query={"step": "2"})
    assert at.session_state[LANGUAGE] == "nl"
    assert "cat / dog" in list(at.dataframe[0].value.iloc[:, 0])


@pytest.mark.parametrize("lang", OTHER)
@pytest.mark.parametrize("page", [None, "1_Lookup_table.py"])
def test_home_and_the_lookup_table_look_up_the_languages_cat(lang, page):
    """Home's and the Lookup table's first box hold the language's word for cat, on its grown model."""
    if page is None:
        at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=180)
        at.query_params["lang"] = lang
        at.run()
        no_exception(at)
    else:
        at = default_start(page, lang)
    assert at.session_state[MODEL] == lexicon.model_of(lang)
    assert text_inputs(at)[0] == lexicon.word(lang, "cat")
