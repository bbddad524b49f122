"""Each chart on a page is followed by its words (ui/charts.py): an expander named after the chart, holding its summary
and a table of its values, in the reader's language."""

from andrea_viz.i18n import translate
from andrea_viz.safe_text import md

from .conftest import figures, no_exception, open_page, plain, start_app


def _words(at, title: str):
    """The expander of the chart titled ``title``."""
    found = [e for e in at.expander if e.label == title]
    assert len(found) == 1, [e.label for e in at.expander]
    return found[0]


def test_the_neighbours_chart_has_its_words_and_table_beside_the_pages_own_table():
    at = open_page(start_app("minilm-l6"), "4_Neighbours.py")
    listed = list(at.dataframe[0].value["token"])  # the page's own ranking, beside the chart
    words = _words(at, "In words: The 10 nearest tokens to “cat”")
    said = plain(words.markdown[0].value)  # as the reader sees it (the markdown escapes its punctuation)
    assert said.startswith("The 10 nearest tokens to “cat”, nearest first, by cosine similarity") and listed[0] in said
    assert list(words.table[0].value["token"]) == [md(t) for t in listed]  # as the table's markdown writes them
    assert len(at.expander) >= len(figures(at))  # every chart on the page has its words
    no_exception(at)


def test_the_words_follow_the_readers_language():
    at = open_page(start_app("minilm-l6", {"lang": "pt-BR"}), "4_Neighbours.py")
    title = translate("The {n} nearest tokens to “{query}”", "pt-BR").format(n=10, query="cat")
    words = _words(at, translate("In words: {title}", "pt-BR").format(title=title))
    assert plain(words.markdown[0].value).startswith(title + ", o mais próximo primeiro")
    assert list(words.table[0].value.columns)[:2] == ["token", "id"]
    no_exception(at)
