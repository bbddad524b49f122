"""The file uploaders' own English ("Upload", "1GB per file • TXT") is hidden and replaced by the reader's language,
with the server's size limit written the language's way: one server, the Grow and Checkpoint pages."""

import pytest

from andrea_viz.i18n import format_number, render, translate

from .conftest import exceptions, open_page

LIMIT_MB = 1400  # .streamlit/config.toml's server.maxUploadSize, which the app reads
STREAMLIT_ENGLISH = ("Upload", "per file", "Drag and drop", "Browse files", "Limit")

SHOWN_JS = """() => [...document.querySelectorAll("[data-testid='stFileUploader']")].map(u => {
  const button = u.querySelector("[data-testid='stFileUploaderDropzone'] button [data-testid='stMarkdownContainer']");
  const limit = u.querySelector("[data-testid='stFileUploaderDropzoneInstructions']");
  return {text: u.innerText, browse: getComputedStyle(button, '::after').content,
          limit: getComputedStyle(limit, '::after').content};
})"""


@pytest.mark.parametrize("lang,where,count", [("nl", "Grow", 1), ("nl", "Checkpoint", 2), ("pt-BR", "Grow", 1),
                                              ("zh-TW", "Grow", 1)])
def test_the_uploader_speaks_the_language(page, app_url, lang, where, count):
    open_page(page, f"{app_url}/{where}?lang={lang}")
    page.wait_for_selector("[data-testid='stFileUploaderDropzoneInstructions']")
    assert exceptions(page) == []
    shown = page.evaluate(SHOWN_JS)
    assert len(shown) == count
    limit = render("at most {mb:,} MB per file", {"mb": LIMIT_MB}, lang)
    assert format_number(LIMIT_MB, ",", lang) in limit
    for u in shown:
        assert not [e for e in STREAMLIT_ENGLISH if e in u["text"]], u["text"]  # hidden: not in the visible text
        assert u["browse"] == f'"{translate("Choose a file", lang)}"' and u["limit"] == f'"{limit}"', u
