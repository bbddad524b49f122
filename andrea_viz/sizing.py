"""How big embedding tables are, in parameters and bytes; what tying saves.

The layout and its parameter formula are the family's (``family.count_params``); this module
adds the sizes a learner asks for: one table, the saving from tying, bytes in fp32 and bf16.
"""

from __future__ import annotations

from .errors import QueryError
from .family import _check_sizes
from .i18n import format_number


def token_table_params(V: int, d: int) -> int:
    """Entries of a (V, d) lookup table."""
    _check_sizes(V=V, d=d)
    return V * d


def tying_saving(V: int, d: int) -> int:
    """Parameters saved by tying: the output projection reuses the (V, d) token table."""
    return token_table_params(V, d)


BYTES_PER_PARAM = {"fp32": 4, "bf16": 2}


def table_bytes(n_params: int, dtype: str = "fp32") -> int:
    if dtype not in BYTES_PER_PARAM:
        raise QueryError("dtype must be one of {allowed}, got {dtype!r}", allowed=", ".join(sorted(BYTES_PER_PARAM)),
                         dtype=dtype)
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
