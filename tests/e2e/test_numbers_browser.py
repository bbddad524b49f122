"""Numbers in Debian Chromium in Dutch: a fractional slider's own value (the thumb and its ends) written with a
decimal comma, the tick labels of the Positions page's log axis written by the formatter, and no status box
icon drawn from a colour emoji font."""

import re

from .conftest import (PLOTS_FIT_THEIR_CONTAINERS, exceptions, open_page, screenshot, titles_past_their_chart,
                       wait_idle)


def test_dot_products_slider_values_in_dutch(page, app_url):
    open_page(page, f"{app_url}/Dot_products?lang=nl")
    length = page.locator("[data-testid='stSlider']", has_text="|u|")
    thumb = length.get_by_role("slider")
    thumb.wait_for(timeout=30_000)
    assert length.locator("[data-testid='stSliderThumbValue']").inner_text() == "1,0"
    thumb.focus()
    page.keyboard.press("ArrowRight")
    wait_idle(page)
    length.locator("[data-testid='stSliderThumbValue']", has_text="1,1").wait_for(timeout=30_000)  # the moved value
    ends = length.locator("[data-testid='stSliderTickBar']").inner_text().split()
    assert ends == ["0,1", "2,0"], ends
    quiz = page.locator("[data-testid='stSlider']", has_text="/")
    values = quiz.locator("[data-testid='stSliderThumbValue']").all_inner_texts()
    assert values and all(v == "0,50" for v in values), values
    assert exceptions(page) == []
    screenshot(page, "dot_products_sliders_nl")


def test_positions_log_axis_and_rope_in_dutch(page, app_url):
    open_page(page, f"{app_url}/Positions?lang=nl")
    chart = page.locator("[data-testid='stPlotlyChart']", has_text="‖position_embedding[t]‖")
    chart.locator(".ytick text").first.wait_for(timeout=60_000)
    ticks = chart.locator(".ytick text").evaluate_all("ts => ts.map(t => t.textContent)")
    assert ticks and all(re.fullmatch(r"\d+(,\d+)?|\d{1,3}(\.\d{3})+", t) for t in ticks), ticks
    values = [float(t.replace(".", "").replace(",", ".")) for t in ticks]  # read the Dutch way
    assert values == sorted(set(values)), ticks  # up the axis, each label its own value: never 0,1 … "2", "5" … 1
    assert exceptions(page) == []
    # at 1,280 px each chart's title ends inside its own picture (the RoPE picture, in a column, overran it in Dutch)
    page.set_viewport_size({"width": 1280, "height": 900})
    rope = page.locator("[data-testid='stPlotlyChart']", has_text="RoPE: draai q over m·θ en k over n·θ")
    rope.locator(".gtitle").wait_for(timeout=60_000)
    page.wait_for_function(PLOTS_FIT_THEIR_CONTAINERS, timeout=30_000)
    assert titles_past_their_chart(page) == []
    assert "q·k hangt alleen af van m\u00a0−\u00a0n" in rope.inner_text()  # the claim, on its own line, m − n unbroken


LAST_LABEL_WRAPS = """() => {
  const row = [...document.querySelectorAll("[data-testid='stHorizontalBlock']")]
    .find(r => r.querySelector("[data-testid='stMetric']"));
  const ls = row ? row.querySelectorAll("[data-testid='stMetricLabel']") : [];
  return ls.length === 4 && ls[3].getBoundingClientRect().height > 1.5 * ls[0].getBoundingClientRect().height; }"""


def test_sizing_counts_sit_in_one_line_when_a_dutch_label_wraps(page, app_url):
    """At 1,280 px the Dutch "Hele model (ANDREA-indeling)" takes two lines: the four counts under the inputs still
    share one baseline (the row's columns align at their bottoms), each written the Dutch way."""
    page.set_viewport_size({"width": 1280, "height": 900})
    open_page(page, f"{app_url}/Sizing?lang=nl")
    row = page.locator("[data-testid='stHorizontalBlock']", has=page.locator("[data-testid='stMetric']")).first
    values = row.locator("[data-testid='stMetricValue']")
    values.nth(3).wait_for(timeout=30_000)
    page.evaluate("() => document.fonts.ready.then(() => true)")  # lines measured in the page's own font
    # the last label wraps, the case this checks: awaited on the labels themselves (measured while the sidebar was
    # still being laid out, the main column was wider and no label wrapped yet)
    page.wait_for_function(LAST_LABEL_WRAPS, timeout=30_000)
    wait_idle(page)
    tops = values.evaluate_all("vs => vs.map(v => v.getBoundingClientRect().top)")
    assert len(tops) == 4 and max(tops) - min(tops) < 1, tops
    assert all(re.fullmatch(r"\d{1,3}(\.\d{3})+", v) for v in values.all_inner_texts())
    assert exceptions(page) == []


BASELINES = """els => els.map(v => {
  const mark = document.createElement('span');  // an empty inline block sits on its line's baseline
  mark.style.display = 'inline-block';
  const line = v.querySelector('div') || v;
  line.appendChild(mark);
  const y = mark.getBoundingClientRect().top;
  mark.remove();
  return y; })"""


def test_the_model_cards_words_stand_on_the_numbers_baseline(page, app_url):
    """Home's model card in Dutch at 1,280 px: V, d_model and T as numbers, the position kind and the output table as
    words a size smaller ("geleerd", "ontkoppeld"); all five values on one baseline."""
    page.set_viewport_size({"width": 1280, "height": 900})
    open_page(page, f"{app_url}/?lang=nl")
    words = page.locator(".st-key-card-words [data-testid='stMetricValue']")
    words.nth(1).wait_for(timeout=30_000)
    assert words.all_inner_texts() == ["geleerd", "ontkoppeld"]  # the grown Dutch model, Dutch words
    card = page.locator("[data-testid='stHorizontalBlock']", has=words.first).first
    lines = card.locator("[data-testid='stMetricValue']").evaluate_all(BASELINES)
    assert len(lines) == 5 and max(lines) - min(lines) < 1, lines
    assert exceptions(page) == []
