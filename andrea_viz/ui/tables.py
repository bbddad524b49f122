"""Tables (``st.dataframe``) with their numbers written the current language's way, each float column at one
fixed precision, and each text column as wide as its longest cell.

Streamlit draws a float column in the browser as 0.137 whatever the language, and as many digits as the float
holds (0.03254606947302818); a pandas Styler's display values are what it shows instead, written by
``i18n.format_number``: ``0,137`` in Dutch and Portuguese, every cell of a column with the same number of
decimals (0.560 beside 0.378, not 0.56), while the column stays numeric (sorting by it still sorts numbers).
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pandas as pd

from ..i18n import format_number

MAX_DECIMALS = 6  # a column of raw floats (a product, a mean) is written to 6 decimals
# the grid's 14 px text: a Chinese character (or any full-width one) is about 14 px wide, other characters about 8
# (a generous average of Source Sans); the grid's own sizing measured such cells short and cut them
# ("注意力（wq、wk、wv、" on Sizing in zh-TW, "januari → januar…" on Compare in Dutch)
WIDE_PX, NARROW_PX, CELL_PAD_PX, MAX_COLUMN_PX = 15, 8, 28, 560
ROW_PX = 35  # the grid's row height, its header's too
MEASURED_SHORT = 0x2000  # a cell with a character from here on (→, 注, （) is one the grid cut


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


def text_px(text: str) -> int:
    """About how many pixels ``text`` takes in the grid's 14 px font (full-width characters count double)."""
    return sum(WIDE_PX if unicodedata.east_asian_width(ch) in ("W", "F") else NARROW_PX for ch in text)


def fitted_widths(df: pd.DataFrame) -> dict[str, int]:
    """column -> pixels for each text column that holds a character the grid measures short (from U+2000 on: arrows,
    Chinese, full-width signs): its longest cell or its header, whichever is wider, with the cell's padding. Other
    columns, and one wider than MAX_COLUMN_PX (a sentence), are left to the grid's own sizing, which measures Latin
    text right (fixing those too pushed the last column of Sizing's table off its right edge in Dutch)."""
    out = {}
    for c in df.columns:
        if pd.api.types.is_object_dtype(df[c]) or pd.api.types.is_string_dtype(df[c]):
            cells = [str(v) for v in df[c] if v is not None]
            if not any(ord(ch) >= MEASURED_SHORT for cell in cells for ch in cell):
                continue
            longest = max((text_px(cell) for cell in cells), default=0)
            px = max(longest, text_px(str(c))) + CELL_PAD_PX
            if px <= MAX_COLUMN_PX:
                out[str(c)] = px
    return out


def height_for(rows: int) -> int:
    """A grid's height in pixels that shows ``rows`` whole rows under its header (its default, 400 px, shows ten
    and a half: a cut row whose token cannot be read)."""
    return ROW_PX * (rows + 1) + 3


def dataframe(rows: Any, where: Any = None, decimals: dict[str, int] | None = None, **kw) -> None:
    """``rows`` drawn by ``st.dataframe`` in ``where`` (default the page): numbers the language's way
    (``localized``), text columns as wide as their longest cell (``fitted_widths``), no index unless asked."""
    import streamlit as st

    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    config = {c: st.column_config.Column(width=px) for c, px in fitted_widths(df).items()}
    kw.setdefault("hide_index", True)
    (where or st).dataframe(localized(df, decimals), column_config={**config, **kw.pop("column_config", {})}, **kw)


def shown_table(rows: Any, where: Any = None, projected: bool = False, **kw) -> None:
    """``rows`` as a table in ``where``, numbers the language's way: on a projector (``projected``: presenter mode,
    "show the class") as HTML (``st.table``), whose text the projector style sets at 18 px, where ``st.dataframe``
    draws on a canvas at its own small size; else the grid (``dataframe``)."""
    import streamlit as st

    if projected:
        (where or st).table(localized(rows), hide_index=True)
    else:
        dataframe(rows, where, **kw)
