"""Compare in Chromium on two models of different vocabularies: the Dutch grown model's table rotated onto the English
one, in each of the app's four languages (screenshots under artifacts/screenshots/compare_vocab_<lang>.png)."""

import re

import pytest

import andrea_viz
from andrea_viz.alignment import find_anchors
from andrea_viz.i18n import Msg, format_number

from .conftest import exceptions, open_page, screenshot, wait_idle


def label(name: str, lang: str) -> str:
    return Msg(andrea_viz.BUILTINS[name].label).render(lang)


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_the_dutch_model_rotated_onto_the_english_one_in_each_language(page, app_url, lang):
    open_page(page, f"{app_url}/Compare?lang={lang}", timeout=180_000)
    boxes = page.locator("[data-testid='stMain'] [data-testid='stSelectbox']")
    for n, name in ((0, "andrea-micro-nl"), (1, "andrea-micro")):
        boxes.nth(n).click()
        page.get_by_role("option", name=label(name, lang), exact=True).click()
        wait_idle(page, 180_000)
    # the pair's anchors, counted by the library: the value is waited on itself, since after the first choice the
    # metric already shows A against the page language's default B (andrea-micro-nl onto andrea-micro-pt-BR: 319)
    want = format_number(len(find_anchors(andrea_viz.load("andrea-micro-nl"), andrea_viz.load("andrea-micro"))), lang=lang)
    anchors = page.locator("[data-testid='stMetric']", has_text=Msg("Anchors").render(lang))
    anchors.locator("[data-testid='stMetricValue']", has_text=re.compile(f"^{re.escape(want)}$")).wait_for(
        timeout=180_000)
    placed = page.locator("[data-testid='stMarkdownContainer']",
                          has_text=Msg("B, nearest to the word of A mapped into B").render(lang))
    placed.wait_for(timeout=180_000)
    wait_idle(page, 180_000)
    assert exceptions(page) == []
    assert page.locator("[data-testid='stMain'] [data-testid='stTextInput'] input").last.input_value() == "kat"
    screenshot(page, f"compare_vocab_{lang}")
