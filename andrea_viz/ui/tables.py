"""Tables (``st.dataframe``) with their numbers written the current language's way.

Streamlit draws a float column in the browser as 0.137 whatever the language; a pandas Styler's display
values are what it shows instead, so ``0,137`` in Dutch and Portuguese, while the column stays numeric
(sorting by it still sorts numbers).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..i18n import DEFAULT_LANGUAGE, format_number, language


def _decimal(value: Any) -> str:
    return format_number(float(value), "") if value == value else "—"


def localized(rows: Any) -> Any:
    """``rows`` (a list of dicts, a dict of columns, or a DataFrame) as a DataFrame, or, outside English, as a
    Styler whose float columns are written with the language's decimal sign (integers such as ids stay as typed)."""
    df = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    floats = [c for c in df.columns if pd.api.types.is_float_dtype(df[c])]
    if language() == DEFAULT_LANGUAGE or not floats:
        return df
    return df.style.format(_decimal, subset=floats)
