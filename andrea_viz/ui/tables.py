"""Tables (``st.dataframe``) with their numbers written the current language's way, each float column at one
fixed precision.

Streamlit draws a float column in the browser as 0.137 whatever the language, and as many digits as the float
holds (0.03254606947302818); a pandas Styler's display values are what it shows instead, written by
``i18n.format_number``: ``0,137`` in Dutch and Portuguese, every cell of a column with the same number of
decimals (0.560 beside 0.378, not 0.56), while the column stays numeric (sorting by it still sorts numbers).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..i18n import format_number

MAX_DECIMALS = 6  # a column of raw floats (a product, a mean) is written to 6 decimals


def decimals_of(value: float, most: int = MAX_DECIMALS) -> int:
    """The fewest decimals (at most ``most``) that write ``value`` as it is: 0.56 -> 2, round(x, 4) -> 4 or fewer."""
    for k in range(most + 1):
        if round(value, k) == value:
            return k
    return most


def column_decimals(values: Any, most: int = MAX_DECIMALS) -> int:
    """A column's precision: the most decimals any of its values needs (a column rounded to 4 places gets 4)."""
    return max((decimals_of(float(v), most) for v in values if v == v and abs(v) != float("inf")), default=0)


def cell(value: Any, decimals: int) -> str:
    """One float cell: the language's decimal sign and groups, ``decimals`` places kept (trailing zeros too)."""
    if value is None or value != value:
        return "—"
    return format_number(float(value), f",.{decimals}f")


def localized(rows: Any, decimals: dict[str, int] | None = None) -> Any:
    """``rows`` (a list of dicts, a dict of columns, or a DataFrame) as a Styler whose float columns are written
    through the language's formatter at one precision per column: ``decimals[column]`` where given, else the most
    decimals the column's values need (at most ``MAX_DECIMALS``). Integer columns (ids, ranks) stay as typed;
    a DataFrame without float columns is returned as it is."""
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    decimals = decimals or {}
    floats = [c for c in df.columns if pd.api.types.is_float_dtype(df[c])]
    if not floats:
        return df
    styler = df.style
    for c in floats:
        k = decimals.get(c, column_decimals(df[c]))
        styler = styler.format(lambda v, k=k: cell(v, k), subset=[c])
    return styler
