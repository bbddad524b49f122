"""Every number the language's way, through one formatter (``i18n.format_number``): tables at one precision per
column, slider values, plotly's separators, log axes' ticks, the RoPE legend beside its table; and no emoji that
needs a colour font. Each fast path is checked against a slow reference written out by hand."""

import math
import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import pytest

from andrea_viz.i18n import LANGUAGES, format_number, set_language, short_duration
from andrea_viz.plots import positions as position_plots
from andrea_viz.plots.style import layout, log_axis, log_tick_text, log_tick_values
from andrea_viz.positions import rope_scores
from andrea_viz.ui.tables import cell, column_decimals, localized
from andrea_viz.ui.widgets import slider_values

ROOT = Path(__file__).resolve().parents[2]
LANGS = list(LANGUAGES)
MARKS = {"en": (",", "."), "zh-TW": (",", "."), "nl": (".", ","), "pt-BR": (".", ",")}  # (group, decimal)


@pytest.fixture
def lang(request):
    set_language(request.param)
    yield request.param
    set_language("en")


def slow_format(value: float, decimals: int, lang: str) -> str:
    """The reference: digits by long division on the rounded integer, grouped by hand, in the language's marks."""
    group, dec = MARKS[lang]
    scaled = round(abs(value) * 10**decimals)  # the same rounding as Python's own format on these values
    whole, frac = divmod(scaled, 10**decimals)
    digits = str(whole)
    groups = []
    while digits:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    text = group.join(groups) + (dec + str(frac).zfill(decimals) if decimals else "")
    return ("-" if value < 0 else "") + text  # as Python writes -0.25 at 0 places: -0


VALUES = [0.56, 0.378, 0.03254606947302818, 1.007751, 1234.5, 6488832.0, -1.5, -0.25, 0.0, 25560576.25]


@pytest.mark.parametrize("lang", LANGS, indirect=True)
@pytest.mark.parametrize("decimals", [0, 2, 3, 4, 6])
def test_the_formatter_matches_the_slow_reference_in_every_language(lang, decimals):
    for v in VALUES:
        assert format_number(v, f",.{decimals}f", lang) == slow_format(v, decimals, lang), (v, decimals)


@pytest.mark.parametrize("lang,whole,fraction", [("en", "-25,560,576", "2.5"), ("zh-TW", "-25,560,576", "2.5"),
                                                 ("nl", "-25.560.576", "2,5"), ("pt-BR", "-25.560.576", "2,5")])
def test_a_whole_number_stays_whole_and_a_fraction_keeps_its_digits(lang, whole, fraction):
    assert format_number(-25560576, ",", lang) == whole and format_number(2.5, ",", lang) == fraction


# --- tables ---------------------------------------------------------------------------------------------------

def shown(styler) -> list[list[str]]:
    """A Styler's cells as the browser shows them (its display values)."""
    lines = styler.to_string(delimiter="\t").splitlines()[1:]
    return [line.split("\t")[1:] for line in lines]


@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_a_duration_is_written_in_the_unit_that_shows_it(lang):
    """µs under a millisecond, ms under a tenth of a second (a fast PCA wrote "0.00 s"), seconds above; each number
    through the formatter (the Projection and Forward pass pages' times)."""
    dec = MARKS[lang][1]
    assert short_duration(0.000412) == "412 µs"
    assert short_duration(0.00456) == f"4{dec}56 ms"
    assert short_duration(0.0994) == f"99{dec}40 ms"
    assert short_duration(0.1) == f"0{dec}10 s"
    assert short_duration(2.5) == f"2{dec}50 s"


@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_a_table_column_keeps_its_precision_and_trailing_zeros(lang):
    cos = [0.56, 0.378, 0.5]  # a column rounded to 3 places, as Neighbours and Anatomy round cosines
    rows = shown(localized({"id": [1, 2, 3], "cos": cos}))
    assert [r[1] for r in rows] == [slow_format(v, 3, lang) for v in cos]
    assert [r[0] for r in rows] == ["1", "2", "3"]  # integer columns (ids) as typed


@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_the_one_hot_table_never_shows_a_raw_float(lang):
    product = [0.03254606947302818, -0.011873, 0.0]  # the Lookup table's one-hot · E, as it showed in nl
    rows = shown(localized({"one-hot · E": product}, decimals={"one-hot · E": 6}))
    assert [r[0] for r in rows] == [slow_format(v, 6, lang) for v in product]
    assert not any("0325460694" in c for r in rows for c in r)


def test_a_columns_precision_is_the_most_decimals_its_values_need():
    assert column_decimals([0.56, 0.378]) == 3 and column_decimals([1.0, 2.0]) == 0
    assert column_decimals([0.03254606947302818]) == 6 and column_decimals([float("nan"), 0.25]) == 2
    assert cell(float("nan"), 3) == "—" and cell(None, 3) == "—"


# --- sliders --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_a_number_sliders_values_are_written_by_the_formatter(lang):
    values = slider_values(0.0, 1.0, 0.05)
    assert values == [i / 20 for i in range(21)]  # the reference: exact twentieths, none 0.15000000000000002
    assert slider_values(0.1, 2.0, 0.1) == [i / 10 for i in range(1, 21)]
    labels = [format_number(v, ".2f", lang) for v in values]  # what number_slider's format_func writes
    assert labels[10] == slow_format(0.5, 2, lang) and labels[-1] == slow_format(1.0, 2, lang)
    if MARKS[lang][1] == ",":
        assert not any(re.search(r"\d\.\d", s) for s in labels), labels


# --- plotly ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_every_figure_carries_the_languages_separators(lang):
    group, dec = MARKS[lang]
    assert layout(go.Figure(), "t").layout.separators == dec + group
    fig = position_plots.rope_of(2, 0.3)
    assert fig.layout.separators == dec + group


def slow_log_ticks(lo: float, hi: float) -> list[float]:
    """The reference: every m × 10^p with m in 1..9 over the range, thinned the same way by counting."""
    pool = [m * 10.0**p for p in range(-12, 13) for m in range(1, 10)]
    pool = [float(f"{v:.12g}") for v in pool if lo <= v <= hi]
    powers = [v for v in pool if f"{v:e}".startswith("1.")]
    decades = math.ceil(math.log10(hi)) - math.floor(math.log10(lo))
    if decades > 3:
        return powers
    one_two_five = [v for v in pool if f"{v:e}"[0] in "125"]
    return one_two_five if len(one_two_five) >= 3 else pool


@pytest.mark.parametrize("lo,hi", [(0.35, 1.9), (1e-3, 12.0), (1.0, 3000.0), (0.3, 17.0), (2.0, 9.0), (1.0, 1e6)])
def test_log_ticks_match_the_slow_reference(lo, hi):
    assert log_tick_values(lo, hi) == slow_log_ticks(lo, hi)


@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_a_log_axis_writes_its_ticks_through_the_formatter(lang):
    axis = log_axis(0.35, 1.9)  # the Positions page's lengths: plotly wrote 0.5 and 0.4 as "5" and "4"
    assert axis["type"] == "log" and axis["tickvals"][:2] == [0.4, 0.5]
    assert axis["ticktext"][:2] == [slow_format(0.4, 1, lang), slow_format(0.5, 1, lang)]
    assert log_tick_text(1000.0) == slow_format(1000, 0, lang) and log_tick_text(0.001) == slow_format(0.001, 3, lang)


@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_the_position_lengths_axis_is_labelled_through_the_formatter(lang):
    rng = np.random.default_rng(0)
    learned = rng.normal(0, 0.02, (64, 32))  # rows of length about 0.1
    sinus = np.full((64, 32), 0.5)  # rows of length 0.5·√32 ≈ 2.8
    fig = position_plots.position_norms_figure(learned, sinus)
    y = fig.layout.yaxis
    assert y.type == "log" and list(y.ticktext) == [log_tick_text(v) for v in y.tickvals]
    lengths = np.concatenate([np.linalg.norm(learned, axis=1), np.linalg.norm(sinus, axis=1)])
    # the lowest length has a labelled value just under it (one 1-2-5 step at most), the largest one just over it
    # (the round value above, 3 for 2.83) when the listed ones stop well under it
    assert lengths.min() / 2.5 <= min(y.tickvals) <= lengths.min()
    assert lengths.max() <= max(y.tickvals) <= 2 * lengths.max()
    if MARKS[lang][1] == ",":
        assert all(re.fullmatch(r"\d+(,\d+)?", t) for t in y.ticktext), y.ticktext


@pytest.mark.parametrize("lang", LANGS, indirect=True)
def test_the_rope_legend_and_its_table_write_q_k_alike(lang):
    fig = position_plots.rope_of(2, 0.3)
    pairs = position_plots.rope_pairs(2)
    scores = rope_scores(position_plots.ROPE_Q, position_plots.ROPE_K, pairs, 0.3)
    table = shown(localized({"q·k": [float(s) for s in scores]}, decimals={"q·k": position_plots.ROPE_DECIMALS}))
    names = [t.name for t in fig.data]
    assert len(names) == 2 * len(pairs)  # q's arrow and k's, for each pair, in the pairs' order
    for k, (s, row) in enumerate(zip(scores, table, strict=True)):
        written = slow_format(float(s), position_plots.ROPE_DECIMALS, lang)
        assert row[0] == written
        assert names[2 * k].endswith(f"(q·k = {written})") and names[2 * k + 1].endswith(f"(q·k = {written})"), names


# --- no emoji that needs a colour font ------------------------------------------------------------------------

# Pictographs drawn only by a colour emoji font (the test browser has none: ✅ is an empty box there), and the
# variation selector that asks for the emoji form. Text symbols every font has (✓ ✗ ❚❚ ▶) are not among them.
EMOJI = re.compile("[\U0001F000-\U0001FAFF\u2600-\u26FF\u2705\u274C\u274E\u2753-\u2757\u2B50\u2B55\u23E9-\u23FA"
                   "\u2139\uFE0F]")
# One line left to the engineer who edits ui/url.py in the same issue (its icon="⚠️"): remove it from here
# once that file uses a Material icon.
ELSEWHERE: set[tuple[str, str]] = set()  # (file, text) pairs allowed an emoji: none


def test_no_emoji_that_needs_a_colour_font():
    found = []
    for path in [*ROOT.glob("pages/*.py"), ROOT / "home.py", *ROOT.glob("andrea_viz/**/*.py"),
                 *ROOT.glob("andrea_viz/locale/*/LC_MESSAGES/*.po")]:
        rel = path.relative_to(ROOT).as_posix()
        for line in path.read_text(encoding="utf-8").splitlines():
            if EMOJI.search(line) and not any(rel == f and s in line for f, s in ELSEWHERE):
                found.append((rel, line.strip()[:80]))
    assert found == []


def test_the_emoji_check_sees_an_emoji():
    assert EMOJI.search('icon="✅"') and EMOJI.search("⚠️") and not EMOJI.search("✓ ✗ ❚❚ ▶ × − →")


def test_a_text_column_is_as_wide_as_its_longest_cell_counting_chinese_characters_double():
    """The grid cut "注意力（wq、wk、wv、wo）" on Sizing in zh-TW and "januari → januari" on Compare in Dutch: each text
    column now gets its width from its longest cell, a full-width character at least 14 px (the font's size)."""
    import pandas as pd

    from andrea_viz.ui.tables import CELL_PAD_PX, MAX_COLUMN_PX, fitted_widths

    cjk = "注意力（wq、wk、wv、wo）"
    df = pd.DataFrame({"部分": ["詞元表", cjk], "參數": [6_488_832, 28_311_552], "share": [0.0657, 0.2868],
                       "token": ["januari → januari", "x"], "why": ["a → " * 50, "b"],
                       "aandeel van de nominale 120M": ["5,41%", "23,59%"]})
    w = fitted_widths(df)
    # numbers, Latin text (which the grid measures right) and a sentence longer than the cap are the grid's to size
    assert set(w) == {"部分", "token"}
    wide = sum(1 for ch in cjk if ord(ch) > 0x2E80)  # the CJK characters, the full-width brackets and commas
    assert wide == 8 and w["部分"] >= 14 * wide + 7 * (len(cjk) - wide) + CELL_PAD_PX
    assert w["token"] >= 7 * len("januari → januari") + CELL_PAD_PX
    assert max(w.values()) <= MAX_COLUMN_PX
    assert fitted_widths(pd.DataFrame({"a very long header of a short column": ["→"]}))[
        "a very long header of a short column"] >= 7 * 36  # the header counts too
