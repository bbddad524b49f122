"""How big embedding tables are, in parameters and bytes; what tying saves.

The layout and its parameter formula are the family's (``family.count_params``); this module
adds the sizes a learner asks for: one table, the saving from tying, bytes in fp32 and bf16.
"""

from __future__ import annotations

import re

from .errors import QueryError, choices
from .family import FAMILY, _check_sizes
from .i18n import Msg, format_number, read_number, read_scaled, typed_digits


def token_table_params(V: int, d: int) -> int:
    """Entries of a (V, d) lookup table."""
    _check_sizes(V=V, d=d)
    return V * d


def tying_saving(V: int, d: int) -> int:
    """Parameters saved by tying: the output projection reuses the (V, d) token table."""
    return token_table_params(V, d)


BYTES_PER_PARAM = {"fp32": 4, "bf16": 2}


def table_bytes(n_params: int, dtype: str = "fp32") -> int:
    choices("dtype", dtype, sorted(BYTES_PER_PARAM))
    return n_params * BYTES_PER_PARAM[dtype]


def human_bytes(n: int) -> str:
    """1,536 -> '1.5 KB' (decimal units, as disk and download sizes are quoted)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{format_number(n, '.0f')} {unit}" if unit == "B" else f"{format_number(n, '.1f')} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def product_arithmetic(V: int, d: int) -> str:
    """The exercise's arithmetic written out: '16,641 × 1,536 = 25,560,576'."""
    return f"{format_number(V)} × {format_number(d)} = {format_number(token_table_params(V, d))}"


EXAMPLE_COUNT = 1234567  # the number whose forms are shown when the typed digits name no count worth grouping
CLOSE = 0.01  # an answer within 1% of the count (rounded, or one digit off at the end) is close, in every language


def read_count(text: str, lang: str | None = None) -> int:
    """A whole, non-negative number typed the language's way (``25.560.576`` in nl and pt-BR, ``25,560,576`` in en
    and zh-TW, or the digits alone; full-width digits and the group marks ， and 、 of Chinese input too), or with a
    scale word (``25,5 miljoen``, ``2556萬``). Mixed or misplaced separators are refused, the accepted forms named."""
    value = read_number(text, lang)
    if value is None and (scaled := read_scaled(text, lang)) is not None:
        value = scaled[0] * scaled[1]
    if value is None:
        digits = re.sub(r"\D", "", typed_digits(text, lang), flags=re.ASCII)
        if re.search(r"[^\W\d_]", text) or not digits or int(digits) < 1000:  # letters, or no count worth grouping
            raise QueryError("“{text}” is not a number this page can read: type the count in digits, grouped this "
                             "language's way ({n:,}) or not ({n}).", text=text.strip(), n=EXAMPLE_COUNT)
        raise QueryError("“{text}” is not a number written this language's way: type {n:,} or {n}.",
                         text=text.strip(), n=int(digits))
    if value != value.to_integral_value() or value < 0:
        whole = value == value.to_integral_value()  # echoed as typed: -25.560.576, never -25560576.0
        raise QueryError("“{text}” reads as {value:,}: a table holds a whole number of parameters, 0 or more.",
                         text=text.strip(), value=int(value) if whole else float(value))
    return int(value)


def check_table_answer(text: str | None, size: str) -> tuple[bool, Msg]:
    """(right?, the feedback) for a typed answer to "how many parameters does this model's token table hold";
    the feedback starts by echoing the number as it was read, in the language's own format."""
    s = FAMILY[size]
    want = token_table_params(s.V, s.d)
    if text is None or not text.strip():
        return False, Msg("Type a number first.")
    try:
        answer = read_count(text)
    except QueryError as e:
        return False, e.msg
    if answer == want:
        verdict = Msg("Right: {V:,} × {d:,} = {n:,}.", V=s.V, d=s.d, n=want)
    elif answer == s.V + s.d:
        verdict = Msg("That is V + d. A table has V rows of d numbers each: multiply.")
    elif answer in (s.V * s.d * 2, want + s.d * s.T):
        verdict = Msg("That counts more than the token table: only V × d here.")
    elif abs(answer - want) <= CLOSE * want:
        verdict = Msg("Close, but not exact: {off:,} away. Multiply V = {V:,} by d_model = {d:,} exactly.",
                      off=abs(answer - want), V=s.V, d=s.d)
    else:
        verdict = Msg("Not right: V = {V:,} and d_model = {d:,}; multiply them.", V=s.V, d=s.d)
    return answer == want, Msg("Read as {n:,}. {verdict}", n=answer, verdict=verdict)
