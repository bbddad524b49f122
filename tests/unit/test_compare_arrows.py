"""Compare's arrow map: the words drawn over every marker (the knot of tokens that hardly moved hid them), a token
that did not move drawn as a dot rather than a head pointing nowhere, and a title that says what is drawn."""

import numpy as np
import pytest

from andrea_viz import i18n
from andrea_viz.colour_vision import MIN_TEXT_CONTRAST, contrast_ratio
from andrea_viz.plots.compare import arrows_map
from andrea_viz.plots.style import HALO

A = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [0.5, 0.5], [0.5, 0.5]])
B = np.array([[0.0, 3.0], [4.0, 1.0], [0.02, 0.01], [0.5, 0.5], [0.5, 0.5]])  # far, far, a little, still, still
TOKENS = ["up", "right", "knot", "same", "kept"]
GROUPS = ["most", "most", "least", "least", "least"]


def test_the_words_are_drawn_last_over_every_marker():
    fig = arrows_map(A, B, TOKENS, GROUPS, np.array([0.5, 0.25]))
    kinds = [t.mode for t in fig.data]
    assert kinds[-1] == "markers+text" and all("text" not in m for m in kinds[:-1]), kinds  # style.words_on_top
    words = fig.data[-1]
    assert "up" in words.text and "right" in words.text and set(words.text) <= set(TOKENS)
    for w, x, y in zip(words.text, words.x, words.y, strict=True):  # each word at its token's place in B
        assert (x, y) == tuple(B[TOKENS.index(w)])
    assert len(set(words.textfont.color)) == 2  # each word in its group's colour, dark enough to read on white
    assert all(contrast_ratio(c) >= MIN_TEXT_CONTRAST for c in words.textfont.color), words.textfont.color
    # a white halo whatever the word's colour (plotly's "auto" drew a dark one round the orange words)
    assert words.textfont.shadow == HALO and all(part.strip().endswith("white") for part in HALO.split(","))


def test_a_token_that_did_not_move_is_a_dot_and_one_that_moved_a_head():
    fig = arrows_map(A, B, TOKENS, GROUPS, np.array([0.5, 0.25]))
    heads = {t.name: t for t in fig.data if t.mode == "markers" and t.name}
    assert list(heads["moved most"].marker.symbol) == ["arrow", "arrow"]
    assert list(heads["moved least"].marker.symbol) == ["arrow", "circle", "circle"]  # "knot" moved 0.022
    lines = [t for t in fig.data if t.mode == "lines"]
    assert sum(x is None for t in lines for x in t.x) == 3  # a line for each token that moved, none for the still


@pytest.mark.parametrize("lang, head, dot", [
    ("en", "to B (arrowhead)", "A dot: a token that did not move (2 of those drawn)."),
    ("nl", "naar B (pijlpunt)", "Een stip: een token dat niet verschoof (2 van de getekende)."),
    ("pt-BR", "a B (ponta de seta)", "Um ponto: um token que não se moveu (2 dos desenhados)."),
    ("zh-TW", "到 B（箭頭）", "圓點：沒有移動的詞元（圖中有 2 個）。")])
def test_the_title_names_the_arrowhead_and_the_dot(lang, head, dot):
    i18n.set_language(lang)
    try:
        lay = arrows_map(A, B, TOKENS, GROUPS, np.array([0.5, 0.25])).layout
        moved = arrows_map(A[:3], B[:3], TOKENS[:3], GROUPS[:3], np.array([0.5, 0.25])).layout
    finally:
        i18n.set_language("en")
    assert head in lay.title.text and lay.title.subtitle.text == dot
    assert not moved.title.subtitle.text  # no dot drawn, none explained
