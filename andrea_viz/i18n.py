"""Languages: messages kept as msgids with their parameters, translated and formatted when drawn.

- ``_("… {n:,} …", n=6488832)`` translates into the current language and formats numbers the
  way that language writes them (``6.488.832`` in nl and pt-BR, ``6,488,832`` in en and zh-TW).
- ``Msg("…", **params)`` keeps a message untranslated (errors, provenance notes, labels held by
  objects that every session shares); ``str(msg)`` is English, ``tr(msg)`` the current language.
- ``N_("…")`` marks a string for extraction without translating it (module-level tables).

Catalogues are gettext ``.po`` files in ``andrea_viz/locale/<lang>/LC_MESSAGES/andrea_viz.po``,
read once per language with Babel. The current language lives in a context variable that the
app sets at the start of every run (one per session thread); the library never imports Streamlit.
"""

from __future__ import annotations

import contextvars
import re
import string
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any
from .safe_text import md

LANGUAGES = {"en": "English", "zh-TW": "繁體中文", "nl": "Nederlands", "pt-BR": "Português do Brasil"}
DEFAULT_LANGUAGE = "en"
BABEL_LOCALES = {"en": "en", "zh-TW": "zh_Hant_TW", "nl": "nl", "pt-BR": "pt_BR"}
DOMAIN = "andrea_viz"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_current = contextvars.ContextVar("andrea_viz_language", default=DEFAULT_LANGUAGE)


def set_language(lang: str | None) -> str:
    """Make ``lang`` (a BCP 47 tag such as ``nl`` or ``zh-TW``) the current language; unknown tags give English."""
    lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
    _current.set(lang)
    return lang


def language() -> str:
    return _current.get()


def series(items) -> str:
    """The parts of a list said in one sentence, each part a clause of its own: "; " between them, and Chinese's
    full-width "；" in zh-TW."""
    return ("；" if language() == "zh-TW" else "; ").join(items)


def sentences(parts) -> str:
    """Sentences said one after another: a space between them, none in zh-TW (its full stop 。 carries its own room;
    "1。 這張表" showed a stray space)."""
    return ("" if language() == "zh-TW" else " ").join(parts)


def listed(items) -> str:
    """Items said as a list: "a, b, c", and in zh-TW "a、b、c" (its enumeration comma; ", " between Chinese words
    reads as a foreign list)."""
    return ("、" if language() == "zh-TW" else ", ").join(items)


WORD_JOINER = "\u2060"


def unbroken(text: str) -> str:
    """A short label that must not break across lines (a narrow table header): a word joiner between every two
    characters, since Chinese breaks between any two ("已移" over "動"), and no-break spaces for spaces."""
    return WORD_JOINER.join(text.replace(" ", "\u00a0"))


def unhyphenated(name: str) -> str:
    """A name kept whole at its hyphens (U+2011, the no-break hyphen): "ANDREA-" ended a line of a Chinese heading
    and "micro" began the next."""
    return name.replace("-", "\u2011")


def glued(text: str) -> str:
    """An equation's sides kept on one line with its sign: no-break spaces around " = " and " × " ("d_model =" ended
    one line of the sizing exercise and "1,536" began the next)."""
    return text.replace(" = ", "\u00a0=\u00a0").replace(" × ", "\u00a0×\u00a0")


def N_(msgid: str) -> str:
    """Mark a msgid for extraction; it is translated where it is drawn."""
    return msgid


CONTEXT = "\x04"  # gettext's mark between a msgctxt and its msgid, in one key


def context_key(context: str | None, msgid: str) -> str:
    """The one key a message is held by (here and in ``catalogs``): its msgctxt and msgid joined, or the msgid alone."""
    return f"{context}{CONTEXT}{msgid}" if context else msgid


def pN_(context: str, msgid: str) -> str:
    """Mark a msgid that a language writes two ways with a ``context`` (gettext's msgctxt): "untied" said of the
    output table is "desvinculada" in Portuguese, said of a model "desvinculado". Translated where drawn, as N_'s;
    English shows the msgid alone (``english``)."""
    return context_key(context, msgid)


def english(msgid: str) -> str:
    """A msgid's English words: the msgid, less its context (``pN_``)."""
    return msgid.rpartition(CONTEXT)[2]


@cache
def catalogue(lang: str) -> dict[str, str]:
    """msgid -> translation for one language (empty for English and for a missing catalogue)."""
    if lang == DEFAULT_LANGUAGE:
        return {}
    path = LOCALE_DIR / lang.replace("-", "_") / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return {}
    from babel.messages.pofile import read_po

    with open(path, "rb") as f:
        cat = read_po(f)
    return {context_key(m.context, m.id): m.string for m in cat if m.id and isinstance(m.id, str) and m.string}


@cache
def separators(lang: str) -> tuple[str, str]:
    """(group, decimal) symbols of a language, from Babel's locale data."""
    if lang == DEFAULT_LANGUAGE:
        return ",", "."
    from babel.numbers import get_decimal_symbol, get_group_symbol

    loc = BABEL_LOCALES[lang]
    return get_group_symbol(loc), get_decimal_symbol(loc)


_SPEC = re.compile(r"^(?P<sign>[+ ]?)(?P<group>,?)(?:\.(?P<prec>\d+))?(?P<type>[fd%]?)$")


def format_number(value: float | int, spec: str = ",", lang: str | None = None) -> str:
    """A number in a language's own format; ``spec`` is a Python format spec (``,``, ``.2f``, ``+.3f``, ``.1%``, ``g``)."""
    lang = lang or language()
    m = _SPEC.match(spec)
    shortest = isinstance(value, float) and m and m["prec"] is None and not m["type"]  # 2.5 with "," is 2,5 in nl
    if lang != DEFAULT_LANGUAGE and m and not shortest and (m["group"] or m["prec"] is not None or m["type"] in ("f", "%")) \
            and value == value and abs(value) != float("inf"):
        from babel.numbers import format_decimal, format_percent

        loc = BABEL_LOCALES[lang]
        prec = int(m["prec"]) if m["prec"] is not None else (6 if m["type"] in ("f", "%") and not m["group"] else 0)
        digits = "." + "0" * prec if prec else ""
        pattern = ("#,##0" if m["group"] else "0") + digits
        if m["type"] == "%":
            text = format_percent(value, format=pattern + "%", locale=loc)
        else:
            text = format_decimal(value, format=pattern, locale=loc)
        if m["sign"] == "+" and value >= 0:
            text = "+" + text
        return text
    text = format(value, spec)
    if lang == DEFAULT_LANGUAGE:
        return text
    group, decimal = separators(lang)
    return text.translate(str.maketrans({",": group, ".": decimal}))


# What an input method types for a number: full-width digits and signs (NFKC makes them ASCII), the full-width comma
# and the ideographic comma 、 that Chinese input puts between groups, and the minus sign (U+2212) of typeset text.
_GROUP_MARKS = ("，", "、", "﹐", "､")
_MINUS = str.maketrans({"−": "-", "﹣": "-", "－": "-", "‒": "-", "–": "-"})


def typed_digits(text: str, lang: str | None = None) -> str:
    """``text`` as the plain digits and marks that Babel reads: ``２５，５６０，５７６`` or ``25、560、576`` in zh-TW is
    ``25,560,576``, in nl ``25.560.576`` (those commas only ever group); ``−3`` is ``-3``."""
    import unicodedata

    group = separators(lang or language())[0]
    for mark in _GROUP_MARKS:
        text = text.replace(mark, group)
    return unicodedata.normalize("NFKC", text).translate(_MINUS).strip()


def read_number(text: str, lang: str | None = None) -> Decimal | None:
    """The number a person typed, read the way the language writes it (Babel's strict parse: ``25.560.576`` and
    ``25560576`` in nl, ``25,560,576`` in en; full-width digits and Chinese group marks as ``typed_digits`` reads
    them); None when the text is no number in that language (mixed or misplaced separators, letters)."""
    from babel.numbers import NumberFormatError, parse_decimal

    lang = lang or language()
    text = typed_digits(text, lang)
    if not text:
        return None
    try:
        return parse_decimal(text, locale=BABEL_LOCALES.get(lang, "en"), strict=True)
    except (NumberFormatError, ValueError, ArithmeticError):
        return None


# Words that scale a number ("25,5 miljoen", "25.5 million", "2556萬"), in every language the app speaks: a learner
# may write one in any of them; the number before it is read the current language's way.
SCALE_WORDS = {
    "thousand": 10**3, "k": 10**3, "million": 10**6, "millions": 10**6, "mln": 10**6, "m": 10**6, "billion": 10**9,
    "duizend": 10**3, "miljoen": 10**6, "miljoenen": 10**6, "mln.": 10**6, "miljard": 10**9,
    "mil": 10**3, "milhão": 10**6, "milhões": 10**6, "milhao": 10**6, "milhoes": 10**6, "mi": 10**6, "mi.": 10**6,
    "bilhão": 10**9, "bilhões": 10**9, "bi": 10**9,
    "千": 10**3, "萬": 10**4, "万": 10**4, "十萬": 10**5, "百萬": 10**6, "百万": 10**6, "千萬": 10**7, "千万": 10**7,
    "億": 10**8, "亿": 10**8,
}
_SCALED = re.compile(r"^(?P<number>.*?\d)\s*(?P<word>[^\d\s.,]+\.?)$")


def read_scaled(text: str, lang: str | None = None) -> tuple[Decimal, int] | None:
    """(the number, its scale) of an answer written with a scale word (``25,5 miljoen`` in nl is (25.5, 10**6),
    ``2,556萬`` in zh-TW (2556, 10**4)); None when the text ends in no scale word or its number is unreadable."""
    m = _SCALED.match(typed_digits(text, lang))
    scale = SCALE_WORDS.get(m["word"].lower()) if m else None
    number = read_number(m["number"], lang) if scale else None
    return None if number is None else (number, scale)


class _Formatter(string.Formatter):
    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value: Any, spec: str) -> str:
        if isinstance(value, Msg):
            value = value.render(self.lang)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return format_number(value, spec, self.lang)
        if hasattr(value, "dtype") and hasattr(value, "item"):  # numpy scalars
            return format_number(value.item(), spec, self.lang)
        return format(value, spec)


def num(value: float | int, spec: str = ",") -> str:
    """A number in the current language's format (``num(6488832)`` is 6.488.832 in nl)."""
    return format_number(value, spec)


def tex(value: float | int, spec: str = ",") -> str:
    """A number for LaTeX in the current language's format (a decimal comma as {,}, so math mode adds no space)."""
    return num(value, spec).replace(",", "{,}")


def short_duration(seconds: float) -> str:
    """A time in the current language's format: µs below a millisecond, ms below a tenth of a second (a fast PCA
    read "0.00 s"), seconds above."""
    if seconds >= 0.1:
        return _("{s:.2f} s", s=seconds)
    return _("{n:.0f} µs", n=seconds * 1e6) if seconds < 1e-3 else _("{n:.2f} ms", n=seconds * 1e3)


def translate(msgid: str, lang: str | None = None) -> str:
    lang = lang or language()
    return catalogue(lang).get(msgid) or english(msgid)


def render(msgid: str, params: dict[str, Any], lang: str | None = None) -> str:
    lang = lang or language()
    text = translate(msgid, lang)
    if not params:
        return text
    try:
        return _Formatter(lang).vformat(text, (), params)
    except (KeyError, IndexError, ValueError):  # a broken translation never hides the message
        return _Formatter(lang).vformat(english(msgid), (), params)


def _(msgid: str, **params: Any) -> str:
    """Translate into the current language and fill in the parameters."""
    return render(msgid, params)


class Msg:
    """A message kept as its msgid and parameters, translated only when drawn.

    Parameters may be numbers (formatted per language), strings (kept as they are) or other Msgs.
    """

    __slots__ = ("msgid", "params")

    def __init__(self, msgid: str, /, **params: Any):
        self.msgid = msgid
        self.params = params

    def render(self, lang: str | None = None) -> str:
        return render(self.msgid, self.params, lang)

    def __str__(self) -> str:
        return self.render(DEFAULT_LANGUAGE)

    def __repr__(self) -> str:
        return f"Msg({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Msg):
            return self.msgid == other.msgid and self.params == other.params
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.msgid, tuple(sorted((k, repr(v)) for k, v in self.params.items()))))

    def __contains__(self, text: str) -> bool:
        return text in str(self)

    def map_strings(self, fn) -> Msg:
        """A copy with ``fn`` applied to every string parameter, in nested Msgs too (e.g. escaping for markdown)."""

        def fix(v: Any) -> Any:
            if isinstance(v, Msg):
                return v.map_strings(fn)
            return fn(v) if isinstance(v, str) else v

        return Msg(self.msgid, **{k: fix(v) for k, v in self.params.items()})


def tr_md(text: str | Msg | None) -> str:
    """``tr`` for markdown: a Msg's string parameters escaped, a plain string escaped whole (it may name a file)."""
    return tr(text, escape=md) if isinstance(text, Msg) else md(tr(text))


def tr(text: str | Msg | None, escape=None) -> str:
    """A Msg or a plain msgid in the current language; None stays empty. ``escape`` (e.g. ``safe_text.md``)
    is applied to every string parameter: they may have come from a file, an address or a text box."""
    if text is None:
        return ""
    if isinstance(text, Msg):
        return (text.map_strings(escape) if escape is not None else text).render()
    return translate(text)
