"""The parameter treemap as Chromium lays it out (plotly.js, no app): the token table and the output table, 6,488,832
parameters each, get one area (a header band over the embedding layer took ~30% of the token table's), and on a
projector (Lesson step 10's 18 px, its chart's size) the attention tile is labelled in every language."""

import plotly.io as pio
import pytest

from andrea_viz import i18n
from andrea_viz.family import FAMILY, count_shape
from andrea_viz.plots.sizing import params_treemap
from andrea_viz.plots.style import for_projector

TILES = """() => Object.fromEntries([...document.querySelectorAll('g.slice')].map(g => {
  const box = g.querySelector('path.surface').getBBox(), text = g.querySelector('text.slicetext');
  const shown = text !== null && text.textContent.trim() !== '' && !/scale\\(0\\)/.test(text.getAttribute('transform'));
  return [g.__data__.data.data.id, {area: box.width * box.height, shown}];
}))"""


def tiles(page, fig, width: int) -> dict:
    page.set_content(pio.to_html(fig, include_plotlyjs=True, full_html=True, default_width=f"{width}px"))
    page.wait_for_selector("g.slice path.surface")
    return page.evaluate(TILES)


@pytest.mark.parametrize("lang", ["en", "pt-BR", "zh-TW"])
def test_equal_counts_get_equal_areas_and_attention_is_named_on_a_projector(page, lang):
    i18n.set_language(lang)
    try:
        fig = params_treemap(count_shape(FAMILY["ANDREA-120M"]), "t")
        for drawn, width in ((fig, 700), (for_projector(fig, height=248), 700)):
            t = tiles(page, drawn, width)
            token, output = t["token table"]["area"], t["output table"]["area"]
            assert abs(token - output) <= 0.01 * output, (token, output)
        assert t["attention (wq, wk, wv, wo)"]["shown"] and t["MLP (fc1, fc2)"]["shown"], t
    finally:
        i18n.set_language("en")
