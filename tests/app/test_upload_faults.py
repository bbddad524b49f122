"""An upload the server's disk refuses (full, not writable, a name too long) is one sentence under AppTest, never
"OSError: [Errno 28]": the write is monkeypatched to fail after some bytes, as a full TMPDIR makes it fail."""

import errno
import os
import re

import pytest

from andrea_viz.i18n import translate
from andrea_viz.ui import session_files, uploads
from andrea_viz.ui.state import LANGUAGE

from .conftest import button, no_exception, open_page, plain

SIZE = 3 * 2**20 + 2**19  # 3.5 MB


def _failing(code: int, written: list):
    def write(uploaded, path):
        path.write_bytes(b"half of it" * 100)  # some bytes reach the disk, then it refuses
        written.append(path)
        raise OSError(code, os.strerror(code), str(path))

    return write


def _upload_failing(app, monkeypatch, code: int, name: str = "big.npz", lang: str | None = None):
    written: list = []
    monkeypatch.setattr(uploads, "_write", _failing(code, written))
    at = app("andrea-12m-init")
    if lang:
        at.session_state[LANGUAGE] = lang
        at.run()
    at = open_page(at, "8_Checkpoint.py")
    at.get("file_uploader")[0].upload(name, b"\0" * SIZE, "application/octet-stream").run()
    button(at, translate("Read the upload", lang or "en")).click().run()
    no_exception(at)
    return at, written


def test_a_full_disk_says_so_with_the_megabytes_needed_and_free(app, monkeypatch):
    at, written = _upload_failing(app, monkeypatch, errno.ENOSPC)
    (said,) = [plain(e.value) for e in at.error]
    assert re.fullmatch(r"The server's disk is full: writing the upload big\.npz needed 3\.5 MB and only [\d,]+\.\d MB "
                        r"are free\. Ask whoever runs the server to free some space, then try again\.", said), said
    assert "Errno" not in said and "OSError" not in said and str(session_files.BASE) not in said
    assert written and not any(p.exists() or p.parent.exists() for p in written)  # no half-written copy is kept
    assert at.session_state["model"] == "andrea-12m-init"  # what was loaded before stays


@pytest.mark.parametrize(("code", "sentence"), [
    (errno.EACCES, "The server may not write the upload big.npz (permission denied in its temporary folder). Ask "
                   "whoever runs the server to check that folder's owner and permissions."),
    (errno.ENAMETOOLONG, "The name big.npz is too long for the server's disk (7 characters; most disks allow 255 "
                         "bytes). Rename the file to something shorter and try again."),
    (errno.EIO, "The server could not write the upload big.npz: the operating system said EIO (Input/output error)."),
])
def test_a_denied_write_and_a_name_too_long_are_one_sentence_each(app, monkeypatch, code, sentence):
    at, written = _upload_failing(app, monkeypatch, code)
    assert [plain(e.value) for e in at.error] == [sentence]
    assert not any(p.parent.exists() for p in written)


def test_the_full_disk_sentence_in_dutch_writes_the_numbers_the_dutch_way(app, monkeypatch):
    at, _ = _upload_failing(app, monkeypatch, errno.ENOSPC, lang="nl")
    (said,) = [plain(e.value) for e in at.error]
    assert re.fullmatch(r"De schijf van de server is vol: voor de upload big\.npz was 3,5 MB nodig en er is maar "
                        r"[\d.]+,\d MB vrij\. .*", said), said


def _block_that_hits_a_full_disk():
    import errno

    from andrea_viz.ui.errors import explain_errors

    with explain_errors():
        raise OSError(errno.ENOSPC, "No space left on device", "/srv/class/andrea_viz_sessions/1/x/run/ckpt.pt")


def test_any_page_block_that_hits_a_full_disk_shows_the_sentence_not_the_path():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_block_that_hits_a_full_disk).run()
    no_exception(at)
    assert [plain(e.value) for e in at.error] == [
        "The server's disk is full: a file could not be written. Ask whoever runs the server to free some space, then "
        "try again."]


@pytest.mark.parametrize("free_mb", [200, 1_400])
def test_a_nearly_full_temporary_folder_is_said_before_the_upload(app, monkeypatch, free_mb):
    """Streamlit receives an upload in the temporary folder before the page sees it (a full one: the upload guard
    refuses the file and its chip says so), so the page says how much room there is first."""
    monkeypatch.setattr(uploads, "free_bytes", lambda folder: free_mb * 2**20)
    at = open_page(app("andrea-12m-init"), "8_Checkpoint.py")
    assert [plain(w.value) for w in at.warning] == [
        f"The server's temporary folder has only {free_mb:,} MB free: a larger upload cannot be received. Ask whoever "
        "runs the server to free some space, or use the checkpoint folder."]


def test_no_warning_with_room_to_spare(app, monkeypatch):
    monkeypatch.setattr(uploads, "free_bytes", lambda folder: 1_600 * 2**20)
    at = open_page(app("andrea-12m-init"), "8_Checkpoint.py")
    assert not [w for w in at.warning if "temporary folder" in w.value]


def _explore_a_snapshot_whose_name_is_too_long():
    from pathlib import Path

    from andrea_viz.ui import uploads as u

    u.explore_checkpoint(Path("/srv/class/checkpoints/run") / ("n" * 300 + ".bin"), "step 100")


def test_a_snapshot_that_cannot_be_opened_is_a_sentence_not_errno(monkeypatch):
    from streamlit.testing.v1 import AppTest

    def too_long(path, **kwargs):
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), str(path))

    monkeypatch.setattr(uploads, "load_path", too_long)
    at = AppTest.from_function(_explore_a_snapshot_whose_name_is_too_long).run()
    no_exception(at)
    (said,) = [plain(e.value) for e in at.error]  # the name as safe_text draws a long one: cut, with an ellipsis
    assert re.fullmatch(r"The name n{100,}…? is too long for the server's disk \(304 characters; most disks allow 255 "
                        r"bytes\)\. Rename the file to something shorter and try again\.", said), said
    assert "/srv" not in said and "Errno" not in said


def test_a_tokenizer_the_disk_refuses_takes_the_checkpoints_copy_with_it(app, monkeypatch):
    """The checkpoint is copied, then its tokenizer is refused: neither folder stays on the disk."""
    real = uploads._write
    written = []

    def write(uploaded, path):
        written.append(path)
        if path.name == "vocab.txt":
            path.write_bytes(b"[PAD]\n")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(uploaded, path)

    monkeypatch.setattr(uploads, "_write", write)
    at = open_page(app("andrea-12m-init"), "8_Checkpoint.py")
    at.get("file_uploader")[0].upload("t.npz", b"\0" * SIZE, "application/octet-stream").run()
    at.get("file_uploader")[1].upload("vocab.txt", b"[PAD]\n[UNK]\n", "text/plain").run()
    button(at, "Read the upload").click().run()
    no_exception(at)
    (said,) = [plain(e.value) for e in at.error]
    assert said.startswith("The server's disk is full: writing the upload t.npz needed 3.5 MB and only"), said
    assert [p.name for p in written] == ["t.npz", "vocab.txt"]
    assert not any(p.parent.exists() for p in written)
