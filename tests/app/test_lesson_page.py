"""The Lesson page under AppTest: every step in the lesson's order, Next and Back, the step in the address,
and the numbers each step states computed for the model it shows."""

import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz.family import FAMILY
from andrea_viz.i18n import tr, translate
from andrea_viz.lesson import STEPS
from andrea_viz.ui.state import LANGUAGE

from .conftest import ROOT, button, no_exception, open_page

PAGE = "0_Lesson.py"


def step_shown(at: AppTest) -> int:
    return int(at.query_params["step"]) if "step" in at.query_params else 1


def test_next_and_back_walk_the_steps_in_the_lessons_order(app):
    at = open_page(app("minilm-l6"), PAGE)
    assert at.header[0].value == tr(STEPS[0].title) and step_shown(at) == 1
    assert button(at, "← Back").disabled
    for k in range(2, len(STEPS) + 1):
        button(at, "Next →").click().run()
        no_exception(at)
        assert at.header[0].value == tr(STEPS[k - 1].title), k
        assert step_shown(at) == k
        assert at.get("progress")[0].value == int(100 * k / len(STEPS))  # Streamlit keeps a percentage
    assert button(at, "Next →").disabled
    button(at, "← Back").click().run()
    assert at.header[0].value == tr(STEPS[-2].title) and step_shown(at) == len(STEPS) - 1


@pytest.mark.parametrize("wanted,shown", [("5", 5), ("11", 11), ("99", 1), ("two", 1)])
def test_the_step_in_the_address_opens_that_step(wanted, shown):
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=120)
    at.query_params["step"] = wanted
    at.switch_page(f"pages/{PAGE}").run()
    no_exception(at)
    assert at.header[0].value == tr(STEPS[shown - 1].title)
    assert at.query_params["step"] == str(shown)


def open_step(key: str, lang: str | None = None, present: bool = False) -> AppTest:
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=120)
    at.query_params["step"] = str([s.key for s in STEPS].index(key) + 1)
    if present:
        at.query_params["present"] = "1"
    if lang:
        at.session_state[LANGUAGE] = lang
    at.switch_page(f"pages/{PAGE}").run()
    no_exception(at)
    return at


@pytest.mark.parametrize("lang,product,share", [("en", "8,449 × 768 = 6,488,832", "5.4%"),
                                                ("nl", "8.449 × 768 = 6.488.832", "5,4%")])
def test_the_cost_step_states_andrea_120ms_numbers(lang, product, share):
    shown = " ".join(m.value for m in open_step("cost", lang).markdown)
    assert product in shown and share in shown


def test_the_exercise_step_checks_answers():
    at = open_step("exercise")
    plus = "That is V + d. A table has V rows of d numbers each: multiply."
    for size in ("ANDREA-12M", "ANDREA-480M"):
        s = FAMILY[size]
        at.text_input(key=f"lesson:exercise:{size}").set_value(f"{s.V + s.d:,}")
        at.button(key=f"lesson:exercise:{size}:check").click().run()
        no_exception(at)
        assert [w.value for w in at.warning].count(f"Read as {s.V + s.d:,}. {plus}") == 1
        at.text_input(key=f"lesson:exercise:{size}").set_value(str(s.V * s.d))
        at.button(key=f"lesson:exercise:{size}:check").click().run()
        assert f"Read as {s.V * s.d:,}. Right: {s.V:,} × {s.d:,} = {s.V * s.d:,}." in [x.value for x in at.success]
        assert not any(plus in w.value for w in at.warning)
    assert len(at.success) == 2


@pytest.mark.parametrize("lang", ["zh-TW", "nl", "pt-BR"])
def test_every_step_in_every_language(lang):
    at = open_step("lookup", lang)
    for k in range(1, len(STEPS) + 1):
        assert at.header[0].value == translate(STEPS[k - 1].title, lang), k
        assert at.header[0].value != STEPS[k - 1].title
        if k < len(STEPS):
            [b for b in at.button if b.key == "lesson:next"][0].click().run()
            no_exception(at)



@pytest.mark.parametrize("lang,right,mixed,forms", [("nl", "25.560.576", "25,560.576", "25.560.576 of 25560576"),
                                                     ("pt-BR", "25.560.576", "25,560,576", "25.560.576 ou 25560576"),
                                                     ("zh-TW", "25,560,576", "25.560.576", "25,560,576 或 25560576")])
def test_the_exercise_reads_a_number_typed_the_languages_way(lang, right, mixed, forms):
    at = open_step("exercise", lang)
    box, check = "lesson:exercise:ANDREA-480M", "lesson:exercise:ANDREA-480M:check"
    at.text_input(key=box).set_value(mixed)
    at.button(key=check).click().run()
    no_exception(at)
    assert at.success == [] and forms in at.warning[0].value  # refused, the accepted forms named
    at.text_input(key=box).set_value(right)
    at.button(key=check).click().run()
    assert len(at.success) == 1 and at.success[0].value.count("25" + right[2] + "560" + right[2] + "576") == 2
    assert at.success[0].value != f"Read as {right}. Right: 16{right[2]}641 × 1{right[2]}536 = {right}."  # in the language


def test_the_presenter_toggle_sets_the_mode_and_the_mode_outlives_its_widget(app):
    """The toggle turns presenter mode on and off (the address says so). The mode is kept under a key of its own,
    not the toggle's: Streamlit drops a widget's state after a run that does not draw it (another page, here), and
    presenter mode outlives that."""
    from andrea_viz.ui.lesson import PRESENT, PRESENT_WIDGET

    at = open_page(app("minilm-l6"), PAGE)
    assert at.session_state[PRESENT] is False
    at.toggle(key=PRESENT_WIDGET).set_value(True).run()
    no_exception(at)
    assert at.session_state[PRESENT] is True and at.query_params.get("present") == "1"
    open_page(at, "2_Sizing.py")  # a run that draws no toggle, then back: the mode is still on
    open_page(at, PAGE)
    assert at.session_state[PRESENT] is True and at.toggle(key=PRESENT_WIDGET).value is True
    at.toggle(key=PRESENT_WIDGET).set_value(False).run()
    assert at.session_state[PRESENT] is False and "present" not in at.query_params


@pytest.mark.parametrize("lang,word", [("nl", "kat"), ("pt-BR", "gato")])
def test_the_lookup_step_says_a_word_of_several_tokens_is_one_row_each_and_draws_the_first(lang, word):
    """ANDREA-120M's shape model spells the lesson's word byte by byte: one lookup per id, the first row drawn. The
    caption says which row is shown, never that the word's vector is the mean of its rows (true on the pages that
    use the word's vector, not of a lookup)."""
    at = open_step("lookup", lang)
    caption = " ".join(c.value for c in at.caption)
    assert "Tokens:" in caption or translate("Tokens: {chips}", lang).split("{")[0] in caption
    mean = translate("“{text}” is {n} tokens ({pieces}): its vector is the mean of their rows", lang)
    assert mean.split("{pieces}")[1] not in caption  # ": de vector is het gemiddelde van hun rijen" nowhere
    said = [m.value for m in at.markdown if m.value.startswith(f"“{word}” →")]
    first = translate("“{text}” → ids {ids}, one row for each → row {id}, the first, of the ({V}, {d}) table:",
                      lang).split("{ids}")[1].split("{id}")[0]
    assert len(said) == 1 and first in said[0], said
    # a shape as the lesson writes one, (1024, 768): "(8,449, 768)" read as three numbers
    assert "(8449, 768)" in said[0] and "8,449" not in said[0] and "8.449" not in said[0], said


@pytest.mark.parametrize("lang,mark", [("en", ", "), ("zh-TW", "、")])
def test_the_tied_step_lists_the_neighbours_the_languages_way_and_says_how_many(lang, mark):
    """Step 11's two neighbour lists: "、" between Chinese words (", " read as a foreign list), and its Jaccard says
    @8, the lists' length (the Neighbours page's overlap is @10, a different number for the same word)."""
    at = open_step("tied", lang)
    lists = [m.value for m in at.markdown if m.value.count(mark) == 7]  # eight neighbours, seven marks between
    assert len(lists) == 2, [m.value for m in at.markdown]
    if lang == "zh-TW":
        assert all(", " not in text for text in lists)
    assert any("Jaccard@8 " in c.value for c in at.caption)


def test_the_projected_tied_step_shows_no_command():
    """The command that measured the tying figures is an engineer's provenance: under the page, not on the projector."""
    def commands(at):
        return [c.value for c in at.caption if "python -m" in c.value]

    assert len(commands(open_step("tied"))) == 1
    assert commands(open_step("tied", present=True)) == []


@pytest.mark.parametrize("lang", ["zh-TW", "pt-BR"])
def test_the_floats_step_keeps_its_names_whole_at_their_hyphens(lang):
    """A heading broke "ANDREA-" from "micro" in Chinese, a table cell "terça-" from "feira": the run's name in both
    headings and each pair in the table carry no-break hyphens, and read the same otherwise."""
    at = open_step("floats", lang, present=True)
    heads = [m.value for m in at.markdown if "ANDREA" in m.value and m.value.startswith("**")][:2]
    assert len(heads) == 2 and all("ANDREA\u2011micro" in h and "ANDREA-micro" not in h for h in heads), heads
    pairs = list(at.table[0].value[translate("pair", lang)])
    assert len(pairs) == 4 and not any("-" in p for p in pairs), pairs
    if lang == "pt-BR":
        assert "gato / terça\u2011feira" in pairs
