"""Byte tokens said with what they are: an ANDREA table's ``<0x20>`` is "␣ (space byte)", ``<0x0A>`` "⏎ (newline
byte)", any other ``<0xC8>`` "<0xC8> (byte)"; every other token is shown as it is."""

from __future__ import annotations

import re

from .i18n import _
from .tokenizer.visible import MARKS

BYTE = re.compile(r"<0x([0-9A-Fa-f]{2})>")


SHORT = {ord(c): MARKS[c] for c in " \n"}  # the signs whitespace tokens are drawn with (tokenizer.visible)


def shown_token(token: str, short: bool = False) -> str:
    """``token`` for a reader: a byte token with its meaning in the current language, any other token unchanged.
    ``short``: the space and newline bytes as their sign alone (a chart's crowded axis, whose other axis says them
    whole)."""
    m = BYTE.fullmatch(token)
    if m is None:
        return token
    value = int(m.group(1), 16)
    if short:
        return SHORT.get(value, token)
    if value == 0x20:
        return _("␣ (space byte)")
    if value == 0x0A:
        return _("⏎ (newline byte)")
    return _("{token} (byte)", token=token)
