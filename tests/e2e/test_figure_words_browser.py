"""A chart's own words in Chromium: the Sizing treemap's expander, reached and opened by keyboard in Portuguese, says
the model's parameters and each part's count and share, with a table whose parts add up to the total the chart's
title states; nothing serious for axe; a screenshot of it."""

import re

from andrea_viz.i18n import read_number, translate

from .conftest import SHOTS, axe_violations, exceptions, open_page, wait_idle
from .test_browser import STREAMLIT_AXE


def test_the_treemaps_words_open_by_keyboard_and_add_up(page, app_url):
    open_page(page, f"{app_url}/Sizing?lang=pt-BR")
    box = page.locator(".st-key-chart-words-sizing-treemap [data-testid='stExpander']")
    summary = box.locator("summary")
    label = summary.locator("[data-testid='stMarkdownContainer']").inner_text()
    assert label.startswith(translate("In words: {title}", "pt-BR").format(title="")), label
    total = read_number(re.search(r"([\d.]+) parâmetros$", label.strip()).group(1), "pt-BR")  # the title's own figure
    summary.focus()
    page.keyboard.press("Enter")
    table = box.locator("table")
    table.wait_for(timeout=30_000)
    said = box.locator("[data-testid='stExpanderDetails'] [data-testid='stMarkdownContainer']").first.inner_text()
    assert said.startswith(f"Os {total:,} parâmetros do modelo como áreas".replace(",", ".")), said
    heads = table.locator("thead th").all_inner_texts()
    assert heads[:3] == ["parte", "parâmetros", "%"], heads
    rows = [r.locator("td").all_inner_texts() for r in table.locator("tbody tr").all()]
    assert len(rows) >= 4  # token, position (or none), output (or tied), attention, MLP
    assert sum(read_number(r[1], "pt-BR") for r in rows) == total  # the parts add up to the chart's total
    for part, count, share in rows:
        assert f"{part}: {count} parâmetros, {share} do modelo" in said  # each part said with its count and share
    wait_idle(page)
    assert exceptions(page) == []
    assert axe_violations(page, [(rule, sel) for rule, sel, _why in STREAMLIT_AXE]) == []
    box.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    box.screenshot(path=str(SHOTS / "sizing_treemap_in_words_pt-BR.png"))
