"""An upload the server's disk has no room for is refused by the upload guard (507, before a byte is spooled), and
the file's chip says so in the reader's language instead of Streamlit's "Request failed with status code 507"; its
delete button is named in that language too. The server keeps a reserve larger than any disk
(``ANDREA_VIZ_UPLOAD_RESERVE_MB``), so every upload over 1 MB meets a "full" disk."""

import pytest

from andrea_viz.i18n import render, translate

from .conftest import exceptions, open_page, serve

REASON = "[data-testid='stFileChip'] [role='alert']"
AFTER_JS = """s => { const e = document.querySelector(s); const a = getComputedStyle(e, '::after');
  return {content: a.content, size: getComputedStyle(e).fontSize, label: e.getAttribute('aria-label')}; }"""


@pytest.fixture(scope="module")
def full_disk_url():
    with serve({"ANDREA_VIZ_UPLOAD_RESERVE_MB": str(10**9)}) as (url, _pid):
        yield url


@pytest.mark.parametrize("lang", ["nl", "zh-TW"])
def test_an_upload_with_no_room_says_so_in_the_language(page, full_disk_url, tmp_path, lang):
    open_page(page, f"{full_disk_url}/Checkpoint?lang={lang}")
    page.wait_for_selector("[data-testid='stFileUploaderDropzoneInput']", state="attached")
    (tmp_path / "model.bin").write_bytes(b"\0" * (3 * 2**20))
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(tmp_path / "model.bin"))
    reason = page.wait_for_selector(f"{REASON}[data-andrea-reason]", timeout=90_000)
    assert "507" in reason.inner_text()  # Streamlit's own words are there, drawn at size 0 ...
    said = translate("The server's disk has no room for this file: nothing was kept. Ask whoever runs the server "
                     "to free some space, or use the checkpoint folder.", lang)
    assert page.evaluate(AFTER_JS, REASON) == {"content": f'"{said}"', "size": "0px", "label": said}  # ... ours drawn
    delete = page.locator("[data-testid='stFileChip'] [data-testid='stFileChipDeleteBtn'] button").first
    assert delete.get_attribute("aria-label") == render("Remove {name}", {"name": "model.bin"}, lang)
    assert exceptions(page) == []
