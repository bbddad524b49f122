"""An upload whose reading is interrupted by a click elsewhere on the page is read again, never lost.

Compare reads an uploaded checkpoint as soon as its files arrive. A learner who picks B's source while A is still
being read asks for a rerun, and Streamlit stops the running script at its next call: the stopped run must leave
A's files in Streamlit's upload store, so that the next run reads them again. (The store used to drop each file's
bytes as soon as it was copied to disk: A's chips then stayed on the page while the page said "choose a model for A
and for B", and no click brought A back. Seen once in a whole-suite run, then every time with a read long enough
for the click to land in it.)"""

import zipfile

import numpy as np
import pytest
from playwright.sync_api import expect

from .conftest import MODEL_PICKER, exceptions, open_page, wait_idle

STATUS = "[data-testid='stExpander'] summary"  # load_checkpoint's st.status: "Reading x…", then "x: format, V × d."


@pytest.fixture(scope="module")
def slow_npz(tmp_path_factory):
    """A compressed .npz whose table takes a second or more to inflate (60,000 × 1,024 float32 of a few values,
    about 42 MB on disk, 246 MB read: within the loader's 50× bound on compression)."""
    rng = np.random.default_rng(0)
    wte = rng.integers(-1, 2, size=(60_000, 1_024), dtype=np.int8).astype(np.float32) * np.float32(0.02)
    wte[rng.random(wte.shape) < 0.02] = np.float32(0.5)
    path = tmp_path_factory.mktemp("slow") / "slow.npz"
    # np.savez_compressed's own zip of one .npy member, at deflate's fastest level (its default level 6 took 7 s of
    # the suite to write; reading, what the test times, inflates either in about a second)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z, z.open("wte.npy", "w",
                                                                                       force_zip64=True) as f:
        np.lib.format.write_array(f, wte)
    return path


def test_a_click_while_an_upload_is_read_reads_it_again(page, app_url, slow_npz):
    open_page(page, f"{app_url}/Compare")
    page.locator("[data-testid='stRadio']", has_text="Source of A").get_by_text("upload").click()
    uploader = page.locator("[data-testid='stFileUploader']", has_text="Checkpoint for A")
    uploader.wait_for(timeout=30_000)
    uploader.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(slow_npz))
    page.locator(STATUS, has_text="Reading slow.npz").wait_for(timeout=60_000)  # A's run is reading it now
    page.locator("[data-testid='stRadio']", has_text="Source of B").get_by_text("upload").click()  # a rerun asked for
    page.locator(STATUS, has_text="slow.npz: NumPy").wait_for(timeout=60_000)  # A read, by the run the click asked for
    wait_idle(page)
    assert page.locator("[data-testid='stFileUploader']", has_text="Checkpoint for B").count() == 1  # the click landed
    summary = page.locator(STATUS, has_text="slow.npz:").inner_text()
    assert "60,000 × 1024" in summary, summary
    assert exceptions(page) == []


def test_a_click_while_the_checkpoint_page_reads_an_upload_leaves_it_to_read_again(page, app_url, slow_npz):
    """The Checkpoint page reads an upload on its button: a rerun asked for meanwhile (here the sidebar's model
    changed) stops that read, and the file stays in its uploader, the button ready to read it again (it used to
    leave an empty uploader: the file gone, nothing read)."""
    open_page(page, f"{app_url}/Checkpoint")
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(slow_npz))
    read = page.locator("button:enabled", has_text="Read the upload")
    read.wait_for(timeout=60_000)
    wait_idle(page)
    read.click()
    page.locator(STATUS, has_text="Reading slow.npz").wait_for(timeout=60_000)  # the read under way
    page.locator(f"{MODEL_PICKER} [data-testid='stSelectbox']").click()  # another model: a rerun asked for
    page.get_by_role("option", name="ANDREA-micro (English)", exact=True).click()
    expect(page.locator(f"{MODEL_PICKER} input[role='combobox']")).to_have_value("ANDREA-micro (English)",
                                                                                 timeout=60_000)
    wait_idle(page)
    heading = page.get_by_role("heading", name="What slow.npz holds")
    assert heading.count() == 0  # the read was stopped (it takes a second or more) ...
    assert page.locator("[data-testid='stFileChipName']", has_text="slow.npz").count() == 1
    assert read.count() == 1  # ... its file kept: the run after the click still has it, the button is live
    read.click()
    heading.wait_for(timeout=60_000)  # and read on the next press
    assert exceptions(page) == []
