"""An upload through Chromium into a server of its own: the server's resident memory while a checkpoint
arrives and is read, and after, measured from /proc (the kernel's own peak, VmHWM, reset before the upload)."""

from pathlib import Path

from andrea_viz.testing_harness import reset_peak, status
from tests.checkpoint_files import makers

from .conftest import VIEWPORT, exceptions, open_page, serve, wait_idle

MB = 1 << 20


def read_upload(page, path: Path) -> None:
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files(str(path))
    read = page.locator("button:enabled", has_text="Read the upload")
    read.wait_for(timeout=120_000)
    wait_idle(page)
    read.click()
    page.get_by_role("heading", name=f"What {path.name} holds").wait_for(timeout=120_000)
    wait_idle(page)


def test_an_upload_is_read_within_2_2_times_its_size_and_then_let_go(browser, tmp_path):
    path = tmp_path / "andrea12m.bin"  # ANDREA-12M's layout with Adam state: weights, m and v
    makers.andrea_bin(path, V=4_353, d=384, T=1_024, L=6, adam=True)
    size = path.stat().st_size
    with serve() as (url, pid):
        page = browser.new_page(viewport=VIEWPORT)
        open_page(page, f"{url}/Checkpoint")
        # a small upload first, so that what reading any checkpoint loads once (modules, the report) is in place
        small = tmp_path / "small.bin"
        makers.llmc_bin(small)
        read_upload(page, small)
        before = status(pid, "VmRSS")
        reset_peak(pid)
        read_upload(page, path)
        # the uploader was replaced by a new one: no file chip is left, so Streamlit has dropped its bytes
        assert page.locator("[data-testid='stFileChipName']").count() == 0
        assert exceptions(page) == []
        peak, after = status(pid, "VmHWM"), status(pid, "VmRSS")
        page.close()
    print(f"\nupload of {size / MB:.0f} MB: server resident {before / MB:.0f} MB before, peak {peak / MB:.0f} MB "
          f"(+{(peak - before) / MB:.0f} MB, {(peak - before) / size:.2f}× the file), after reading "
          f"{after / MB:.0f} MB (+{(after - before) / MB:.0f} MB)")
    assert peak - before <= 2.2 * size
    assert after - before <= 100 * MB
