"""An OSError as one sentence: which errno gives which sentence, the MB needed and free, and never a server path."""

import errno
import os
import shutil

import pytest

from andrea_viz.i18n import Msg, render
from andrea_viz.os_errors import free_bytes, os_error_msg


def _error(code: int, path: str = "/srv/class/tmp/andrea_viz_sessions/12/abc/upload_x/model.bin") -> OSError:
    return OSError(code, os.strerror(code), path)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_disk_says_the_megabytes_needed_and_free(tmp_path, code):
    msg = os_error_msg(_error(code), Msg("the upload {name}", name="model.bin"), needed=5 * 2**20 + 2**19,
                       folder=tmp_path)
    free = shutil.disk_usage(tmp_path).free / 2**20
    assert msg.params["need"] == 5.5 and abs(msg.params["free"] - free) < 64  # the same disk, read a moment apart
    text = str(msg)
    assert text.startswith("The server's disk is full: writing the upload model.bin needed 5.5 MB and only ")
    assert "/srv" not in text and "Errno" not in text
    assert render(msg.msgid, {**msg.params, "what": "x"}, "nl").startswith("De schijf van de server is vol: voor x was 5,5 MB")


def test_a_full_disk_without_a_size_or_a_known_folder_still_says_so():
    assert str(os_error_msg(_error(errno.ENOSPC))) == ("The server's disk is full: a file could not be written. Ask "
                                                      "whoever runs the server to free some space, then try again.")


@pytest.mark.parametrize(("code", "start"), [
    (errno.EACCES, "The server may not write a file (permission denied"),
    (errno.EPERM, "The server may not write a file (permission denied"),
    (errno.EROFS, "The server may not write a file (permission denied"),
    (errno.ENAMETOOLONG, "The name model.bin is too long for the server's disk (9 characters;"),
    (errno.EIO, "The server could not write a file: the operating system said EIO (Input/output error)."),
])
def test_each_errno_has_its_sentence_and_no_path(code, start):
    text = str(os_error_msg(_error(code)))
    assert text.startswith(start) and "/srv" not in text and "Errno" not in text


def test_free_bytes_walks_up_to_a_folder_that_exists(tmp_path):
    assert free_bytes(tmp_path / "not" / "yet" / "made") == pytest.approx(shutil.disk_usage(tmp_path).free, abs=2**26)
    assert free_bytes(None) is None
