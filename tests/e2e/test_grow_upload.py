"""Grow's corpus uploader sits outside its form, so a chosen .txt is received at once and its chip shows the file's
size the language's way (1,2 MB in nl, not Streamlit's 1.2MB) before Train is pressed."""

from .conftest import exceptions, open_page

AFTER_JS = """s => { const e = document.querySelector(s);
  return {content: getComputedStyle(e, '::after').content, size: getComputedStyle(e).fontSize}; }"""


def test_a_chosen_corpus_shows_its_size_in_dutch_before_train(page, app_url, tmp_path):
    from andrea_viz.ui.uploader_text import CHIP_NAME

    open_page(page, f"{app_url}/Grow?lang=nl")
    page.wait_for_selector("[data-testid='stFileUploaderDropzoneInput']", state="attached")
    (tmp_path / "corpus.txt").write_text("de kat zat op de mat.\n" * 56_117)  # 1,234,574 bytes
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(tmp_path / "corpus.txt"))
    size = f"{CHIP_NAME}[title='corpus.txt'] + div"
    page.wait_for_function(f"() => {{ const e = document.querySelector({size!r}); "
                           "return e && getComputedStyle(e, '::after').content !== 'none'; }", timeout=90_000)
    assert page.evaluate(AFTER_JS, size) == {"content": '"1,2 MB"', "size": "0px"}
    assert exceptions(page) == []
