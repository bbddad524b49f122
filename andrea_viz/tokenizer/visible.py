"""A whitespace-only token drawn visibly: a space as ␣, a newline as ⏎, a tab as ⇥ (a carriage return as ␍, any
other blank as ␣), so that GPT-2's ``Ġ`` or ``ĊĊ`` is never a blank cell in a table, a chip or a plot. A token with
a letter in it is shown as it is: its spaces are part of how it reads."""

from __future__ import annotations

MARKS = {" ": "\u2423", "\n": "\u23ce", "\t": "\u21e5", "\r": "\u240d"}  # ␣ ⏎ ⇥ ␍
OTHER_BLANK = "\u2423"


def visible(piece: str) -> str:
    """``piece`` as it is drawn: unchanged unless it is all whitespace (and not empty)."""
    if not piece or not piece.isspace():
        return piece
    return "".join(MARKS.get(c, OTHER_BLANK) for c in piece)
