"""A figure in words, for a reader who cannot see it: a summary (what it shows and its main numbers, in the reader's
language) and, where it holds values, a small table a screen reader can walk. ``ui.charts.chart`` draws them under
every chart.

A builder that knows what its figure means says so with ``with_words`` (the summary it computes, and its table);
any other figure is read here from its own data: its title and axes, and per trace how many values, their range,
and the largest (``words_of``). No Streamlit here.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

import numpy as np

from ..i18n import _, num

MAX_ROWS = 30  # rows of each trace in a figure's table: enough to read, few enough to walk by keyboard
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Words:
    """``summary``: sentences in the reader's language; ``table``: column name -> values (equal lengths), or None
    for a figure whose values are too many to walk (a heatmap, a map); ``note``: what the table leaves out;
    ``title``: the figure's title as plain text (the words' own heading)."""
    summary: str
    table: dict[str, list] | None = None
    note: str = ""
    title: str = ""


def with_words(fig, summary: str, table: dict[str, list] | None = None, note: str = "", title: str | None = None):
    """``fig`` carrying its builder's own words (kept on the figure object, never sent to the browser), named by its
    title, or by ``title`` where the picture's own changes as it plays (an animation's frames)."""
    name = title if title is not None else fig.layout.title.text if fig.layout.title else ""
    fig._andrea_words = Words(summary, table, note, plain(name) if name else "")
    return fig


def words_kept(copy, fig):
    """``copy`` (a restyled copy of ``fig``: for a projector, without a subtitle) carrying ``fig``'s own words."""
    own = getattr(fig, "_andrea_words", None)
    if own is not None:
        copy._andrea_words = own
    return copy


def plain(text) -> str:
    """A plotly title or label as plain text: tags dropped (<br> as a space), entities read."""
    if text is None:
        return ""
    return " ".join(html.unescape(_TAG.sub(" ", str(text))).split())


def number(value) -> str:
    """A value as the summary writes it, in the reader's format: whole numbers grouped, others to 3 decimals (or 4
    significant digits when small)."""
    v = float(value)
    if v != v:
        return "NaN"
    if v == int(v) and abs(v) < 1e15:
        return num(int(v))
    return num(v, ".3f") if abs(v) >= 0.01 else num(v, ".2e")


def _values(a) -> np.ndarray | None:
    if a is None:
        return None
    arr = np.asarray(a)
    return arr if arr.size else None


def _numeric(a: np.ndarray | None) -> np.ndarray | None:
    if a is None or a.dtype.kind not in "iufb":
        return None
    f = a.astype(np.float64).ravel()
    f = f[np.isfinite(f)]
    return f if f.size else None


def _trace_name(t, k: int) -> str:
    name = plain(getattr(t, "name", None))
    return name or _("series {k}", k=k + 1)


def _trace_words(t, k: int) -> tuple[str, dict[str, list] | None]:
    """(a sentence about trace ``t``, its rows: series, label, value, all of them) or (sentence, None)."""
    name, kind = _trace_name(t, k), t.type
    if kind in ("heatmap", "surface", "contour", "image"):
        z = _values(getattr(t, "z", None))
        zn = _numeric(z)
        if zn is None or z.ndim != 2:
            return _("{name}: a grid.", name=name), None
        return _("{name}: a grid of {rows:,} × {cols:,} values from {lo} to {hi}.", name=name, rows=z.shape[0],
                 cols=z.shape[1], lo=number(zn.min()), hi=number(zn.max())), None
    if kind in ("treemap", "pie", "sunburst", "icicle", "funnelarea"):
        labels = _values(getattr(t, "labels", None))
        values = _values(getattr(t, "values", None))
        vn = None if values is None else _numeric(values)
        if labels is None or vn is None or len(vn) != len(labels):
            return _("{name}: {n:,} parts.", name=name, n=0 if labels is None else len(labels)), None
        top = int(np.argmax(vn))
        rows = {"series": [name] * len(labels), "label": list(labels), "value": vn}
        return _("{name}: {n:,} parts; the largest, {label}, holds {value}.", name=name, n=len(labels),
                 label=plain(labels[top]), value=number(vn[top])), rows
    if kind in ("histogram", "histogram2d"):
        x = _numeric(_values(getattr(t, "x", None)))
        if x is None:
            return _("{name}: a histogram.", name=name), None
        return _("{name}: a histogram of {n:,} values from {lo} to {hi}, mean {mean}.", name=name, n=x.size,
                 lo=number(x.min()), hi=number(x.max()), mean=number(x.mean())), None
    x, y = _values(getattr(t, "x", None)), _values(getattr(t, "y", None))
    if getattr(t, "orientation", None) == "h":
        x, y = y, x  # the label runs down the side, the value along
    yn = _numeric(y)
    if yn is None:
        count = 0 if y is None else len(y)
        return _("{name}: {n:,} points.", name=name, n=count), None
    n = len(y)
    xn = None if x is None or len(x) != n else _numeric(x)
    if kind.startswith("scatter") and xn is not None and xn.size == n:  # a curve or a map: both axes are values
        return _scatter_words(t, name, np.asarray(x, np.float64), np.asarray(y, np.float64))
    labels = list(x) if x is not None and len(x) == n else list(range(1, n + 1))
    raw = np.asarray(y, np.float64) if y.dtype.kind in "iufb" else None
    top = int(np.nanargmax(raw)) if raw is not None and np.isfinite(raw).any() else 0
    at = _label(labels[top])
    text = _("{name}: {n:,} bars from {lo} to {hi}, the largest at {label}.", name=name, n=n, lo=number(yn.min()),
             hi=number(yn.max()), label=at) if kind == "bar" else \
        _("{name}: {n:,} points from {lo} to {hi}, the largest at {label}.", name=name, n=n, lo=number(yn.min()),
          hi=number(yn.max()), label=at)
    rows = {"series": [name] * n, "label": labels, "value": raw} if raw is not None else None
    return text, rows


def _scatter_words(t, name: str, x: np.ndarray, y: np.ndarray) -> tuple[str, dict[str, list]]:
    """A trace of points with a value on each axis: both ranges and the last point; its rows name each point by its
    text (a token) where it has one."""
    n = len(y)
    text_of = _values(getattr(t, "text", None))
    labels = list(text_of) if text_of is not None and text_of.ndim == 1 and len(text_of) == n else list(range(1, n + 1))
    sentence = _("{name}: {n:,} points, across from {x0} to {x1}, up from {y0} to {y1}; the last at {x} across, {y} up.",
                 name=name, n=n, x0=number(np.nanmin(x)), x1=number(np.nanmax(x)), y0=number(np.nanmin(y)),
                 y1=number(np.nanmax(y)), x=number(x[-1]), y=number(y[-1]))
    at = [_("{x} across, {y} up", x=number(a), y=number(b)) for a, b in zip(x[:MAX_ROWS], y[:MAX_ROWS], strict=True)]
    return sentence, {"series": [name] * n, "label": labels, "value": at + [""] * (n - len(at))}


def _label(v) -> str:
    if isinstance(v, (float, np.floating, int, np.integer)) and not isinstance(v, bool):
        return number(v)
    return plain(v)


def words_of(fig) -> Words:
    """The figure's words: its builder's (``with_words``), else read from its title, axes and traces."""
    own = getattr(fig, "_andrea_words", None)
    if own is not None:
        return own
    layout = fig.layout
    parts = []
    title = plain(layout.title.text) if layout.title else ""
    parts.append(_("Chart: {title}.", title=title) if title else _("A chart."))
    xt = plain(layout.xaxis.title.text) if layout.xaxis and layout.xaxis.title else ""
    yt = plain(layout.yaxis.title.text) if layout.yaxis and layout.yaxis.title else ""
    if xt or yt:
        parts.append(_("Across: {x}; up: {y}.", x=xt or "–", y=yt or "–"))
    table: dict[str, list] = {"series": [], "label": [], "value": []}  # named in the reader's language below
    cut = False
    for k, t in enumerate(fig.data):
        sentence, rows = _trace_words(t, k)
        parts.append(sentence)
        if rows:
            cut = cut or len(rows["value"]) > MAX_ROWS
            table["series"].extend(rows["series"][:MAX_ROWS])
            table["label"].extend(_label(v) for v in rows["label"][:MAX_ROWS])
            table["value"].extend(v if isinstance(v, str) else number(v) for v in rows["value"][:MAX_ROWS])
    note = _("The first {k:,} values of each series.", k=MAX_ROWS) if cut else ""
    named = {_("Series"): table["series"], _("Label"): table["label"], _("Value"): table["value"]}
    return Words(" ".join(parts), named if table["value"] else None, note, title)
