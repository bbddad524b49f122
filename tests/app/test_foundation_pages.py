"""Home, Lookup table and Sizing pages, run by Streamlit's AppTest with every built-in model."""

import pytest

from .conftest import BUILTINS, button, figures, no_exception, open_page, values


@pytest.mark.parametrize("model", BUILTINS)
def test_home_shows_the_model_card_and_neighbours(app, model, load_model):
    at = app(model)
    emb = load_model(model)
    assert at.sidebar.selectbox[0].value == model
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Vocabulary V"] == f"{emb.vocab_size:,}" and metrics["d_model"] == f"{emb.d_model:,}"
    assert metrics["Output table"] == emb.output_kind
    assert len(at.dataframe[-1].value) == 10  # the neighbours of the default word
    untrained_note = any("An untrained table" in c.value for c in at.caption)
    assert untrained_note == bool(emb.card.get("untrained"))


def test_home_neighbours_of_cat_on_the_trained_model(app):
    at = app("minilm-l6")
    table = at.dataframe[-1].value
    assert {"dog", "kitten"} <= set(table["token"])
    at.text_input[0].set_value("tuesday").run()
    no_exception(at)
    assert "wednesday" in set(at.dataframe[-1].value["token"])


@pytest.mark.parametrize("model", BUILTINS)
def test_lookup_page_draws_each_model(app, model):
    at = open_page(app(model), "1_Lookup_table.py")
    assert len(figures(at)) == 5  # overview, window, row bars, values, row lengths
    assert at.metric[0].value == "0"  # max |one-hot·E − E[id]|
    (mark,) = [a for a in figures(at)[0]["layout"]["annotations"] if a["text"].startswith("id ")]
    assert mark["bgcolor"].startswith("rgba(255, 255, 255")  # the looked-up row's label readable over the cells


def test_lookup_page_drives_its_widgets(app):
    """The window, row and scale widgets, once: they move over any table alike (each model's page: above)."""
    at = open_page(app("andrea-micro"), "1_Lookup_table.py")
    at.text_input[0].set_value("#5").run()
    no_exception(at)
    window = figures(at)[1]
    assert "rows 0–31" in window["layout"]["title"]["text"]
    at.checkbox[0].uncheck().run()
    at.number_input[0].set_value(64).run()
    no_exception(at)
    assert "rows 64–95" in figures(at)[1]["layout"]["title"]["text"]
    at.select_slider[0].set_value(128).run()
    assert "rows 64–191" in figures(at)[1]["layout"]["title"]["text"]
    assert figures(at)[3]["layout"]["yaxis"]["type"] == "log"
    next(t for t in at.toggle if t.label == "Log scale").set_value(False).run()
    no_exception(at)
    assert figures(at)[3]["layout"]["yaxis"].get("type", "linear") == "linear"  # the value histogram


def test_lookup_of_a_word_of_several_tokens_says_the_first_row_is_shown_and_never_the_mean(app):
    """"cat" on the Dutch grown model is three byte tokens: the page looks up and draws the first row, and says so;
    the mean of their rows (true where a page uses the word's vector) is not what a lookup does."""
    from andrea_viz.i18n import translate

    at = app("andrea-micro-nl", {"word": "cat", "lang": "nl"})
    open_page(at, "1_Lookup_table.py")
    shown = translate("“{text}” is {n} tokens; the page shows the first, `{piece}` (id {id}).", "nl")
    assert any(shown.split("{n}")[1].split("`")[0] in i.value for i in at.info)  # "tokens; de pagina toont …"
    mean = translate("“{text}” is {n} tokens ({pieces}): its vector is the mean of their rows", "nl")
    assert all(mean.split("{pieces}")[1] not in c.value for c in at.caption)  # ": de vector is het gemiddelde …"
    row = translate("Row {id}: what the embedding layer hands on", "nl").split("{")[0] + "99:"  # c's row, ungrouped
    assert any(h.value.startswith(row) for h in at.subheader)


def test_lookup_overview_ticks_the_rows_the_anatomy_page_flags(app, load_model):
    """MiniLM's [unusedN] rows (ids 1-998 but for a few) are what the under-trained score flags; the ticks are
    exactly the flagged ids, each with its token and score."""
    from andrea_viz.anatomy.report import undertrained_of

    at = open_page(app("minilm-l6"), "1_Lookup_table.py")
    assert len(figures(at)[0]["data"]) == 1  # off by default: the heatmap alone
    at.toggle(key="lookup:undertrained").set_value(True).run()
    no_exception(at)
    ticks = figures(at)[0]["data"][1]
    flagged = undertrained_of(load_model("minilm-l6")).ranked.flagged
    assert values(ticks["customdata"])[:, 0].astype(int).tolist() == flagged.tolist()
    assert values(ticks["y"]).tolist() == flagged.tolist()
    unused = sum(t.startswith("[unused") for t in ticks["text"])
    assert unused >= 0.6 * len(ticks["text"]) and unused >= 600


def test_lookup_page_bad_word_is_a_sentence(app):
    at = open_page(app("minilm-l6"), "1_Lookup_table.py")
    at.text_input[0].set_value("#999999").run()
    no_exception(at)
    assert any("out of range" in e.value for e in at.error)


def test_sizing_page_presets_and_tying(app):
    """The presets and the tying toggle, once: they size ANDREA's presets whatever model is loaded."""
    at = open_page(app("andrea-micro"), "2_Sizing.py")
    m = {x.label: x.value for x in at.metric}
    assert m["Token table"] == "6,488,832" and m["Position table"] == "786,432"
    assert m["Token + position"] == "7,275,264" and m["Whole model (ANDREA layout)"] == "98,698,752"
    table = at.dataframe[0].value.to_string()
    assert "5.41%" in table and "6.57%" in table  # the nominal and the computed shares of the token table
    assert any("94%" in md.value and "70.8%" in md.value and "86.1%" in md.value for md in at.markdown)

    at.selectbox(key="sizing:preset").set_value("ANDREA-480M").run()
    no_exception(at)
    assert {x.label: x.value for x in at.metric}["Token table"] == "25,560,576"
    at.toggle[0].set_value(True).run()
    m = {x.label: x.value for x in at.metric}
    assert m["Tying saves"] == "25,560,576"
    assert not any("share of nominal" in c for c in at.dataframe[0].value.columns)  # tied: not the preset any more


@pytest.mark.parametrize("model", BUILTINS)
def test_sizing_page_sizes_the_loaded_model(app, model, load_model):
    emb = load_model(model)
    at = open_page(app(model), "2_Sizing.py")
    at.selectbox(key="sizing:preset").set_value("ANDREA-480M").run()  # L = 16, kept where the model's is unknown
    at.selectbox(key="sizing:preset").set_value("the loaded model").run()
    no_exception(at)
    assert at.number_input(key="sizing:V").value == emb.vocab_size
    assert at.number_input(key="sizing:L").value == emb.card.get("layers", 16)  # unknown layers: L keeps its value
    said = " ".join(i.value for i in at.info)
    if emb.card["family"] != "ANDREA":
        assert f"its file holds {emb.card['total_params']:,} parameters" in said
    treemap = [f for f in figures(at) if f["data"][0]["type"] == "treemap"][0]["data"][0]
    head = [v for lab, v in zip(treemap["labels"], treemap["values"], strict=True) if "output" in lab.lower()]
    if emb.output_table is None and not emb.tied:  # an encoder: no output head drawn
        assert "has no output head" in said and not any(head)


def test_sizing_exercise_checks_a_wrong_and_a_right_answer(app):
    at = open_page(app("minilm-l6"), "2_Sizing.py")
    at.text_input(key="sizing:exercise:ANDREA-480M").set_value("18,177")
    button(at, "Check", key="sizing:exercise:ANDREA-480M:check").click().run()
    assert any(w.value.startswith("Read as 18,177. That is V + d") for w in at.warning)
    at.text_input(key="sizing:exercise:ANDREA-480M").set_value("25,560,576")
    button(at, "Check", key="sizing:exercise:ANDREA-480M:check").click().run()
    assert any(s.value == "Read as 25,560,576. Right: 16,641 × 1,536 = 25,560,576." for s in at.success)
    at.text_input(key="sizing:exercise:ANDREA-12M").set_value("1671553")
    button(at, "Check", key="sizing:exercise:ANDREA-12M:check").click().run()
    assert any("Read as 1,671,553. Close, but not exact: 1 away." in w.value for w in at.warning)  # within 1%
    at.text_input(key="sizing:exercise:ANDREA-12M").set_value("1,771,552")
    button(at, "Check", key="sizing:exercise:ANDREA-12M:check").click().run()
    assert any("Read as 1,771,552. Not right" in w.value for w in at.warning)  # 6% off: not near
    at.text_input(key="sizing:exercise:ANDREA-12M").set_value("1.671.552")  # the Dutch way, in English
    button(at, "Check", key="sizing:exercise:ANDREA-12M:check").click().run()
    assert "type 1,671,552 or 1671552." in " ".join(w.value for w in at.warning) and len(at.success) == 1


def test_editing_a_size_drops_the_nominal_column(app):
    at = open_page(app("minilm-l6"), "2_Sizing.py")
    assert any("share of nominal 120M" in c for c in at.dataframe[0].value.columns)
    at.number_input(key="sizing:d").set_value(512).run()
    assert not any("share of nominal" in c for c in at.dataframe[0].value.columns)
    assert any("no longer match ANDREA-120M" in c.value for c in at.caption)


def test_model_chosen_on_one_page_is_still_chosen_on_the_next(app):
    at = app()
    assert at.sidebar.selectbox[0].value == "minilm-l6"
    at.sidebar.selectbox[0].select("andrea-12m-init").run()
    no_exception(at)
    assert at.session_state["model"] == "andrea-12m-init"
    open_page(at, "1_Lookup_table.py")
    assert at.sidebar.selectbox[0].value == "andrea-12m-init"
    assert "4,353 × 384" in figures(at)[0]["layout"]["title"]["text"]
    open_page(at, "2_Sizing.py")
    assert at.sidebar.selectbox[0].value == "andrea-12m-init"
    at.sidebar.selectbox[0].select("andrea-480m-init").run()
    open_page(at, "1_Lookup_table.py")
    assert at.sidebar.selectbox[0].value == "andrea-480m-init"


@pytest.mark.parametrize("model,says", [
    ("andrea-120m-init", "ANDREA draws every entry from a normal distribution with standard deviation 1/√d = 0.0361"),
    ("andrea-micro", "ANDREA draws every entry from a normal distribution with standard deviation 1/√d = 0.1250"),
    ("minilm-l6", "The BERT family draws every entry from a normal distribution with standard deviation 0.0200."),
])
def test_lookup_page_states_each_familys_own_init(app, model, says, load_model):
    at = open_page(app(model), "1_Lookup_table.py")
    text = " ".join(m.value for m in at.markdown)
    assert says in text
    other = "The BERT family" if model.startswith("andrea") else "ANDREA draws"
    assert other not in text
    std = load_model(model).token_table.std()
    assert f"standard deviation {std:.4f}" in text  # this table's own spread, beside its family's init
