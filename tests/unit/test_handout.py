"""The printable handout: every figure of the lesson as text in the reader's language, computed; fonts in pt, ≥ 9."""

import re

import plotly.graph_objects as go
import pytest

from andrea_viz import i18n
from andrea_viz.lesson.handout import MIN_PT, MIN_PX, STYLE, handout_html, printable
from andrea_viz.lesson import STEPS, params

# the lesson's figures as the lesson prints them (English digits), each to be found on the handout in the reader's own
LESSON_FIGURES = ["8,449 × 768 = 6,488,832", "5.4%", "120M", "6.6%", "98,698,752", "1,024 × 768 = 786,432", "7,275,264",
                  "4,353 × 384 = 1,671,552", "16,641 × 1,536 = 25,560,576", "0.0361", "92,209,920"]
GROUPING = {"en": (",", "."), "zh-TW": (",", "."), "nl": (".", ","), "pt-BR": (".", ",")}


def in_language(figure: str, lang: str) -> str:
    """'8,449' -> '8.449' in nl and pt-BR: the lesson's English digits swapped to the language's separators."""
    group, point = GROUPING[lang]
    return figure.replace(",", "\0").replace(".", point).replace("\0", group)


def make(lang: str) -> str:
    i18n.set_language(lang)
    try:
        steps = [(i18n.tr(s.title), i18n._(s.text, **params())) for s in STEPS]
        return handout_html(i18n._("The lesson: embeddings"), lang, steps, [])
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("lang", ["en", "zh-TW", "nl", "pt-BR"])
def test_every_figure_of_the_lesson_is_text_in_the_language(lang):
    page = make(lang)
    text = re.sub(r"<[^>]+>", " ", page)
    missing = [f for f in LESSON_FIGURES if in_language(f, lang) not in text]
    assert missing == []
    if lang in ("nl", "pt-BR"):  # not in the English way
        assert "6,488,832" not in text and "0.0361" not in text and "5.4%" not in text
    assert i18n.translate("Worked answers", lang) in text and i18n.translate("The lesson’s figures", lang) in text
    # the exercise's worked answers themselves, after their heading: each model's product and its fp32 size
    answers = text[text.index(i18n.translate("Worked answers", lang)):]
    for product, mb in (("4,353 × 384 = 1,671,552", "6.7"), ("16,641 × 1,536 = 25,560,576", "102.2")):
        assert in_language(product, lang) in answers and in_language(mb, lang) in answers, (product, mb)
    assert f'<html lang="{lang}">' in page


def test_every_font_size_of_the_page_is_in_pt_and_at_least_9():
    sizes = re.findall(r"font-size:\s*([\d.]+)\s*([a-z%]*)", STYLE)
    assert sizes and all(unit == "pt" and float(n) >= MIN_PT for n, unit in sizes), sizes
    assert "@page { size: A4" in STYLE


def test_a_chart_with_small_fonts_is_printed_with_fonts_of_at_least_9pt():
    fig = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]], colorbar={"tickfont": {"size": 7}}))
    fig.update_layout(font={"size": 8}, title={"text": "t", "font": {"size": 9}})
    fig.update_xaxes(tickfont_size=6).add_annotation(text="a", font={"size": 5}, x=0, y=0)
    sizes = []

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k.endswith("font") and isinstance(v, dict) and "size" in v:
                    sizes.append(v["size"])
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(printable(fig).to_plotly_json())
    assert len(sizes) >= 5 and min(sizes) >= MIN_PX == 12  # 12 CSS px = 9 pt
