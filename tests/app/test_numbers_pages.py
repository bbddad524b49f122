"""Every number on a page the language's way, under AppTest: in Dutch no table cell, slider value, metric, legend
or log-axis tick shows a '.'-decimal number (0.50 beside 1,00), and every figure carries Dutch separators; spot
checks in Portuguese (decimal comma) and Chinese (decimal point, never a comma)."""

import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz.i18n import format_number, read_number, separators
from andrea_viz.lesson import STEPS
from andrea_viz.ui.state import LANGUAGE

from .conftest import ROOT, no_exception
from .test_languages import _strings_under, session, table_display, tables

MODEL = "andrea-micro"  # a grown table: its neighbours, cosines and anatomy are real numbers
PAGES = ["home.py", "pages/1_Lookup_table.py", "pages/3_Dot_products.py", "pages/4_Neighbours.py",
         "pages/6_Positions.py", "pages/11_Anatomy.py", "pages/2_Sizing.py", "pages/5_Projection.py",
         "pages/7_Forward_pass.py", "pages/10_Compare.py", "pages/0_Lesson.py"]
DECIMAL = re.compile(r"(?<![\d.,])[-+−]?\d+([.,])\d+(?![\d.,])")  # one number with one mark: 0.50, 1,00, 0.560


def wrong_marks(texts, lang: str) -> list[str]:
    """Numbers written with the other language's decimal mark: 0.50 in Dutch, 0,50 in Chinese. A Dutch 1.234 is a
    grouped thousand, so a number the language reads (``read_number``) with a group of 3 is not counted."""
    dec = separators(lang)[1]
    out = []
    for t in texts:
        for m in DECIMAL.finditer(str(t)):
            grouped = len(m.group().split(m.group(1))[1]) == 3 and read_number(m.group(), lang) is not None
            if m.group(1) != dec and not grouped:
                out.append(f"{m.group()} in {str(t)[:60]!r}")
    return out


def numbers_shown(at: AppTest) -> dict[str, list[str]]:
    """Where numbers are drawn: table cells (as the browser shows them), slider values, metrics, figures' legends
    and ticks and annotations."""
    figs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return {
        "tables": [c for d in tables(at) for row in table_display(d) for c in row],
        "select sliders": [o for s in at.get("select_slider") for o in s.proto.options],
        "metrics": [m.value for m in at.metric],
        "figures": [s for f in figs for s in _strings_under(f.get("layout", {}))
                    + [t.get("name", "") for t in f.get("data", [])] + [str(x) for ax in f.get("layout", {}).values()
                                                                        if isinstance(ax, dict) for x in ax.get("ticktext", [])]],
    }


def check_page(at: AppTest, lang: str, where: str) -> None:
    no_exception(at)
    dec, group = separators(lang)[1], separators(lang)[0]
    shown = numbers_shown(at)
    for kind, texts in shown.items():
        assert wrong_marks(texts, lang) == [], (where, kind)
    raw = [c for c in shown["tables"] if re.search(r"\d[.,]\d{7,}", c)]  # a raw float: 0,03254606947302818
    assert raw == [], (where, raw[:3])
    for d in tables(at):  # one precision per column: 0,560 beside 0,378, never 0,56
        for col in zip(*table_display(d), strict=False):
            places = {len(c.rsplit(dec, 1)[1]) for c in col if re.fullmatch(r"[-+]?[\d.,]*\d", c) and dec in c}
            assert len(places) <= 1, (where, col[:6])
    for s in at.slider:  # Streamlit's own number slider writes its value with printf: only whole numbers there
        assert all(isinstance(v, int) for v in (s.value if isinstance(s.value, tuple) else (s.value,))), (where, s.label)
    for c in at.get("plotly_chart"):
        assert json.loads(c.proto.spec)["layout"].get("separators") == dec + group, where


@pytest.mark.parametrize("lang", ["nl", "pt-BR", "zh-TW"])
def test_every_page_writes_its_numbers_the_languages_way(lang):
    """No 0.50 on a Dutch or Portuguese page, no 0,50 on a Chinese one: tables, sliders, metrics, figures."""
    at = session(lang, MODEL)
    for page in PAGES:
        if page != "home.py":
            at.switch_page(page).run()
        check_page(at, lang, page)


def test_the_dot_products_sliders_write_their_values_the_dutch_way():
    at = session("nl", MODEL, "pages/3_Dot_products.py")
    lengths = at.select_slider[0]
    assert lengths.proto.options[int(lengths.proto.default[0])] == "1,0"  # |u| starts at 1, written 1,0, not 1.0
    quiz = [s for s in at.select_slider if s.key and s.key.startswith("quiz:")]
    assert quiz and all(s.proto.options[int(s.proto.default[0])] == "0,50" for s in quiz)


def test_the_rope_legend_and_table_agree_in_dutch():
    at = session("nl", MODEL, "pages/6_Positions.py")
    rope = [json.loads(c.proto.spec) for c in at.get("plotly_chart") if "RoPE" in json.dumps(json.loads(c.proto.spec)
                                                                                               ["layout"].get("title", {}))]
    cells = [row[-1] for d in at.get("dataframe") for row in table_display(d) if len(row) == 4]
    names = [t["name"] for t in rope[0]["data"]]
    assert cells and all(f"(q·k = {c})" in " ".join(names) for c in cells), (cells, names)
    assert all(re.fullmatch(r"-?\d,\d{6}", c) for c in cells), cells


@pytest.mark.parametrize("lang", ["nl", "pt-BR", "zh-TW"])
def test_the_lesson_quiz_sliders_in_the_language(lang):
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=300)
    at.query_params["step"] = str([s.key for s in STEPS].index("predict") + 1)
    at.session_state[LANGUAGE] = lang
    at.switch_page("pages/0_Lesson.py").run()
    check_page(at, lang, "Lesson: predict")
    quiz = [s for s in at.select_slider if s.key and s.key.startswith("lesson:quiz")]
    assert quiz and all(s.proto.options[int(s.proto.default[0])] == ("0.50" if lang == "zh-TW" else "0,50") for s in quiz)


@pytest.mark.parametrize("lang,typed,kind,said", [
    ("zh-TW", "２５，５６０，５７６", "success", "讀作 25,560,576。正確"),
    ("zh-TW", "2556萬", "warning", "讀作 25,560,000。很接近"),
    ("nl", "25,5 miljoen", "warning", "Gelezen als 25.500.000. Bijna"),
    ("pt-BR", "123", "warning", "Lido como 123. Não está certo"),
    ("pt-BR", "−25560576", "error", "-25.560.576: uma tabela")])
def test_the_sizing_exercise_on_the_page(lang, typed, kind, said):
    at = session(lang, MODEL, "pages/2_Sizing.py")
    at.text_input(key="sizing:exercise:ANDREA-480M").set_value(typed)
    at.button(key="sizing:exercise:ANDREA-480M:check").click().run()
    no_exception(at)
    boxes = at.get(kind) if kind != "error" else at.warning
    assert any(said in b.value for b in boxes), [b.value for b in [*at.success, *at.warning]]
    assert all(b.icon.startswith(":material/") for b in [*at.success, *at.warning])  # no colour emoji
    # each equation kept whole on one line: "d_model =" ended a line and "1.536" began the next
    (line,) = [m.value for m in at.markdown if m.value.startswith("**ANDREA-480M**")]
    assert "d_model\u00a0=\u00a0" in line and "V\u00a0=\u00a0" in line and " = " not in line


BIG = re.compile(r"(?<![\d.,])\d{4,}(?![\d.,]?\d)")  # a whole number of 1,000 or more with no group mark: 16384


def ungrouped_widget_numbers(at: AppTest, lang: str) -> list[str]:
    """Whole numbers of 1,000 or more that a widget shows without the language's group mark: a select slider's
    option, a Streamlit number slider's value or ends (written with printf, which cannot group), and a number box
    holding 1,000 or more with no echo of its value through the formatter (``whole_number_input``) beneath it."""
    out = [f"{s.label}: {o}" for s in at.select_slider for o in s.proto.options if BIG.search(o)]
    out += [f"{s.label}: {s.proto.min}..{s.proto.max}" for s in at.slider if max(abs(s.proto.min), abs(s.proto.max)) >= 1_000]
    captions = [c.value for c in at.caption]
    for box in at.number_input:
        if box.value is not None and abs(box.value) >= 1_000 and box.key != "proj:seed":  # a seed is a name, not a count
            shown = format_number(int(box.value), ",", lang)
            if shown not in captions:
                out.append(f"{box.label}: {box.value} with no {shown} beside it")
    return out


@pytest.mark.parametrize("page", ["pages/2_Sizing.py", "pages/5_Projection.py", "pages/9_Grow.py",
                                  "pages/4_Neighbours.py", "pages/6_Positions.py", "pages/11_Anatomy.py",
                                  "pages/10_Compare.py", "pages/1_Lookup_table.py", "pages/3_Dot_products.py"])
def test_no_widget_shows_an_ungrouped_thousand_in_dutch(page):
    at = session("nl", MODEL, page)
    assert at.number_input or at.select_slider or at.slider, page  # the page has number widgets to look at
    assert ungrouped_widget_numbers(at, "nl") == [], page


def test_a_typed_size_is_echoed_the_dutch_way():
    at = session("nl", MODEL, "pages/2_Sizing.py")
    at.number_input(key="sizing:d").set_value(16384).run()
    no_exception(at)
    assert "16.384" in [c.value for c in at.caption]
    assert ungrouped_widget_numbers(at, "nl") == []
    at.number_input(key="sizing:d").set_value(512).run()
    assert not any(c.value == "512" for c in at.caption)  # under 1,000: nothing to group, no echo


def test_the_timelines_steps_in_dutch(tmp_path, monkeypatch):
    """A run whose last snapshot records step 1,000, opened as a timeline: its step slider writes 1.000, not 1000.
    One step is trained and its snapshot's header (a little-endian int32, first in the file) made to say 1,000:
    the timeline reads the step from there, and training 999 more steps would change nothing that is checked."""
    from andrea_viz.grow import train
    from andrea_viz.i18n import translate

    from .conftest import button

    run = train(tmp_path / "ckpts" / "run", steps=1, snapshot_at=[0, 1]).snapshots[-1][1]
    with open(run, "r+b") as f:
        f.write((1_000).to_bytes(4, "little"))
    run.rename(run.with_name("step-001000.bin"))
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(tmp_path / "ckpts"))
    at = session("nl", MODEL, "pages/8_Checkpoint.py")
    at.selectbox(key="ckpt:tlrel").set_value("run/").run()
    button(at, translate("Open as a timeline", "nl")).click().run()
    no_exception(at)
    assert at.select_slider(key="ckpt-tl:step").proto.options == ["0", "1.000"]
    assert ungrouped_widget_numbers(at, "nl") == []
