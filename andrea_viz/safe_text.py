"""Text that came from outside (a token of a file, a typed word, an address, a file or folder name) made
inert for the place it is drawn: Streamlit's markdown, or plotly's text, which renders a subset of HTML.

Markdown: every ASCII punctuation character is backslash-escaped (CommonMark allows it for all of them),
so no link, image, emphasis, code span, colour directive (``:red[…]``), math (``$…$``), autolink
(``<https://…>``) or HTML can start inside it. GitHub's autolink literals (``https://…``, ``www.…``,
``name@host``) are found by remark-gfm in the text after escapes are undone, so escapes do not stop them: an
invisible word joiner (U+2060) goes after ``://`` and ``www`` (before its dot) and on both sides of ``@``. Plotly: ``&``, ``<`` and ``>`` become entities,
so ``<a href>``, ``<b>`` or ``<br>`` are shown as typed. Both also replace what would change the layout
around the text: line breaks and other control characters, and the bidirectional overrides that reverse
the text after them, and cut a very long string to ``limit`` characters.
"""

from __future__ import annotations

import re
import string

import numpy as np

LIMIT = 200  # characters of one untrusted string shown; the rest becomes "…"
_MD_SPECIAL = re.compile("([" + re.escape(string.punctuation) + "])")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
WORD_JOINER = "\u2060"  # invisible, and not a character of a domain or an e-mail name: it breaks an autolink literal
_AUTOLINK = re.compile(r"(?<=://)|(?i:(?<=www)(?=\.))|(?=@)|(?<=@)")
_VISIBLE = {"\x00": "␀", "\n": "↵", "\r": "␍", "\t": "⇥"}


def _visible(match: re.Match) -> str:
    c = match.group(0)
    return _VISIBLE.get(c, f"U+{ord(c):04X}")


def clean(text: object, limit: int | None = LIMIT) -> str:
    """``text`` as one visible line: control and direction characters named, cut to ``limit`` characters."""
    s = str(text)
    if limit is not None and len(s) > limit:
        s = s[:limit] + "…"
    return _CONTROL.sub(_visible, s)


def md(text: object, limit: int | None = LIMIT) -> str:
    """Plain text for Streamlit markdown (titles, captions, error boxes, labels): shown exactly as written."""
    return _MD_SPECIAL.sub(r"\\\1", unlinked(clean(text, limit)))


def unlinked(text: str) -> str:
    """``text`` with a word joiner where a GFM autolink literal would start (after ``://``, between ``www`` and
    its dot, around ``@``): it reads the same, and remark-gfm makes no link of it."""
    return _AUTOLINK.sub(WORD_JOINER, text)


def md_code(text: object, limit: int | None = LIMIT) -> str:
    """A code span holding ``text`` as written (spaces kept visible as code): fenced with one more backtick
    than the longest run inside it, padded when it starts or ends with one."""
    s = clean(text, limit)
    longest = max((len(m) for m in re.findall("`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ") and s.strip()) else ""
    return f"{fence}{pad}{s}{pad}{fence}" if s else "` `"


def in_code(text: object, limit: int | None = LIMIT) -> str:
    """Text for inside a code span that a message already opens and closes (a backtick on each side of the
    placeholder): no backtick can close it early, so each one becomes ˋ."""
    return clean(text, limit).replace("`", "ˋ")


def plot(text: object, limit: int | None = LIMIT) -> str:
    """Text for a plotly figure (labels, hover text, titles, category axes): HTML shown as typed."""
    return clean(text, limit).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_PLOT_SPECIAL = re.compile("[&<>]|" + _CONTROL.pattern)


def plot_array(texts) -> np.ndarray:
    """``plot`` for many strings at once (the hover text of a whole map), as a numpy array of str."""
    return np.array([plot(t) if len(t) > LIMIT or _PLOT_SPECIAL.search(t) else t for t in map(str, texts)], dtype=str)
