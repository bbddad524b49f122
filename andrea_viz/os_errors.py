"""An operating system's refusal (a full disk, a denied permission, a name too long) as one plain sentence.

``os_error_msg(exc, what, needed=…)`` turns an OSError into a Msg a learner can act on, instead of "OSError:
[Errno 28] No space left on device": what could not be written, why in words, and for a full disk how much was
needed and how much is free. Server paths are never named (``what`` says what the file was: an upload's name).
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

from .i18n import Msg

MB = 2**20
FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
DENIED = {errno.EACCES, errno.EPERM, errno.EROFS}
TOO_LONG = {errno.ENAMETOOLONG}


def free_bytes(folder: Path | str | None) -> int | None:
    """Bytes free on the disk that holds ``folder`` (its nearest existing parent), or None when unknown."""
    if folder is None:
        return None
    p = Path(folder)
    for candidate in (p, *p.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return None


def os_error_msg(exc: OSError, what: str | Msg = "", needed: int | None = None, folder: Path | str | None = None) -> Msg:
    """One sentence for ``exc`` raised while writing ``what`` (a name to show; "" for "a file"): ENOSPC with
    ``needed`` bytes (and what is free on ``folder``'s disk), EACCES, ENAMETOOLONG, else the error's name."""
    what = what or Msg("a file")
    code = exc.errno
    if code in FULL:
        free = free_bytes(folder if folder is not None else exc.filename)
        if needed is not None and free is not None:
            return Msg("The server's disk is full: writing {what} needed {need:,.1f} MB and only {free:,.1f} MB "
                       "are free. Ask whoever runs the server to free some space, then try again.",
                       what=what, need=needed / MB, free=free / MB)
        if needed is not None:
            return Msg("The server's disk is full: writing {what} needed {need:,.1f} MB. Ask whoever runs the "
                       "server to free some space, then try again.", what=what, need=needed / MB)
        return Msg("The server's disk is full: {what} could not be written. Ask whoever runs the server to free "
                   "some space, then try again.", what=what)
    if code in DENIED:
        return Msg("The server may not write {what} (permission denied in its temporary folder). Ask whoever "
                   "runs the server to check that folder's owner and permissions.", what=what)
    if code in TOO_LONG:
        name = Path(str(exc.filename)).name if exc.filename else what
        return Msg("The name {name} is too long for the server's disk ({n:,} characters; most disks allow 255 "
                   "bytes). Rename the file to something shorter and try again.", name=name, n=len(name))
    return Msg("The server could not write {what}: the operating system said {code} ({reason}).", what=what,
               code=errno.errorcode.get(code, str(code)), reason=exc.strerror or type(exc).__name__)
