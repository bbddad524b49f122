"""The handout printed by Chromium on A4: its own footer's page count (≤ 2), and no text on it, charts included,
under 9 pt (12 CSS px), in every language. No server: the handout is one HTML file."""

import re

import pytest

from andrea_viz.lesson.handout import MIN_PX, PAGES
from andrea_viz.i18n import format_number, translate
from andrea_viz.ui.lesson import handout

SMALL_TEXT_JS = """(min) => {
  const small = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode, el = node.parentElement;
    if (!el || !node.textContent.trim()) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden' || style.opacity === '0') continue;
    const size = parseFloat(style.fontSize);
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    // an SVG label can be shrunk by a transform: its drawn height then falls short of its font size
    const drawn = el instanceof SVGElement ? box.height / 1.1 : size;
    if (size < min || drawn < min * 0.85) small.push([node.textContent.trim().slice(0, 40), size, box.height]);
  }
  return small;
}"""


@pytest.mark.parametrize("lang", ["en", "zh-TW", "nl", "pt-BR"])
def test_the_handout_prints_on_its_pages_with_no_text_under_9pt(browser, tmp_path, lang):
    path = tmp_path / f"handout-{lang}.html"
    path.write_text(handout(lang), encoding="utf-8")
    page = browser.new_page(viewport={"width": 718, "height": 1000})  # 190 mm: A4's width within the margins
    try:
        page.goto(path.as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg")
        page.emulate_media(media="print")
        assert page.evaluate(SMALL_TEXT_JS, MIN_PX) == []
        text = page.inner_text("body")
        assert f"{format_number(6_488_832, ',', lang)}" in text and translate("Worked answers", lang) in text
        pdf = page.pdf(format="A4")
    finally:
        page.close()
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    assert pages == PAGES <= 2
