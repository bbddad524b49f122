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


DRAG_JS = """selector => {
  const dt = new DataTransfer();
  dt.items.add(new File(["x"], "a.bin", {type: "application/octet-stream"}));
  document.querySelector(selector).dispatchEvent(new DragEvent("dragenter", {dataTransfer: dt, bubbles: true}));
}"""
AFTER_JS = """selector => { const e = document.querySelector(selector);
  return e && {content: getComputedStyle(e, '::after').content, size: getComputedStyle(e).fontSize}; }"""


def test_the_drag_text_and_a_files_size_in_dutch(page, app_url, tmp_path):
    """While a file is dragged over the zone, the language's "drop it here" in place of Streamlit's "Drag and drop
    files here"; once uploaded, the file's size the Dutch way (1,2 MB) in place of Streamlit's 1.2MB."""
    from andrea_viz.ui.uploader_text import CHIP_NAME, DRAG_TEXT

    open_page(page, f"{app_url}/Checkpoint?lang=nl")
    page.wait_for_selector("[data-testid='stFileUploaderDropzone']")
    page.evaluate(DRAG_JS, "[data-testid='stFileUploaderDropzone']")
    drag = page.wait_for_selector(DRAG_TEXT)
    assert "Drag and drop" in drag.inner_text()  # Streamlit's own text is there, drawn at size 0 ...
    shown = page.evaluate(AFTER_JS, DRAG_TEXT)
    assert shown == {"content": f'"{translate("Drop the files here", "nl")}"', "size": "0px"}, shown  # ... the Dutch drawn
    page.evaluate("s => document.querySelector(s).dispatchEvent(new DragEvent('dragleave', {bubbles: true}))",
                  "[data-testid='stFileUploaderDropzone']")

    (tmp_path / "model.bin").write_bytes(b"\0" * 1_234_567)
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(tmp_path / "model.bin"))
    size = f"{CHIP_NAME}[title='model.bin'] + div"
    page.wait_for_function(f"() => {{ const e = document.querySelector({size!r}); "
                           "return e && getComputedStyle(e, '::after').content !== 'none'; }", timeout=90_000)
    assert page.evaluate(AFTER_JS, size) == {"content": '"1,2 MB"', "size": "0px"}  # not Streamlit's 1.2MB
    assert exceptions(page) == []
