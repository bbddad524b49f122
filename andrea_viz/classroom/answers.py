"""A class's answers, read for the teacher: each sizing answer classified, Predict similarity's orderings turned
into a misconception grid, counts per answer, the common wrong answers with what they mean, and a CSV.

Questions are named ``sizing:<model>`` (the sizing exercise), ``predict`` (Predict similarity's orderings, from the
Dot products page or the Lesson's step) and ``lesson:<step>`` (a Lesson step's choice). An ordering is stored as
JSON, ``[[a, b, guess, cosine], …]``, with a and b the lexicon's English names where the words are the lesson's
(``kat``, ``貓`` → ``cat``), so learners in four languages fill one grid, drawn in the teacher's language.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .. import lexicon
from ..errors import QueryError
from ..family import FAMILY
from ..i18n import N_, Msg
from ..sizing import check_table_answer, read_count, token_table_params
from .store import Answer, Member

RIGHT, V_PLUS_D, FACTOR, OTHER = "right", "v_plus_d", "factor", "other"
SIZING_CATEGORIES = (RIGHT, V_PLUS_D, FACTOR, OTHER)
CATEGORY_LABELS = {RIGHT: N_("right"), V_PLUS_D: N_("V + d"), FACTOR: N_("off by a factor"), OTHER: N_("other")}
CATEGORY_MEANINGS = {
    V_PLUS_D: N_("added V and d: they see two sizes but not a table of V rows of d numbers each"),
    FACTOR: N_("the right digits times a factor: a digit dropped or one too many, or two tables counted as one"),
    OTHER: N_("neither the product nor a near miss: the idea of a V × d table needs going over"),
}
PREDICT = "predict"
FACTORS = (2, 3, 4, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
_ENGLISH_OF = {w: en for words in lexicon.WORDS.values() for en, w in words.items()}


def sizing_question(size: str) -> str:
    return f"sizing:{size}"


def classify_sizing(text: str, size: str) -> tuple[str, str]:
    """(the answer as stored, its category) for a typed answer to the sizing exercise: right, V + d, off by a
    factor (the product times or over one of FACTORS), or other; an unreadable answer is kept as typed, other."""
    ok, _msg = check_table_answer(text, size)  # the exercise's own checker: right means what it means there
    try:
        n = read_count(text or "")
    except QueryError:
        return (text or "").strip()[:40], OTHER
    s = FAMILY[size]
    want = token_table_params(s.V, s.d)
    if ok:
        return str(n), RIGHT
    if n == s.V + s.d:
        return str(n), V_PLUS_D
    if any(n == want * k or n * k == want for k in FACTORS):
        return str(n), FACTOR
    return str(n), OTHER


def english_word(word: str) -> str:
    """The lexicon's English name of one of the lesson's words in any language; any other word as it is."""
    return _ENGLISH_OF.get(word, word)


def encode_ordering(pairs: list[tuple[str, str]], guesses: list[float], cosines: list[float]) -> str:
    """One learner's placed pairs as stored: ``[[a, b, guess, cosine], …]`` with the lesson's words in English."""
    return json.dumps([[english_word(a), english_word(b), round(float(g), 4), round(float(c), 6)]
                       for (a, b), g, c in zip(pairs, guesses, cosines, strict=True)], ensure_ascii=False)


def decode_ordering(text: str) -> list[tuple[str, str, float, float]] | None:
    """The stored ordering, or None when the text is not one (a damaged or foreign row is left out, not fatal)."""
    try:
        rows = json.loads(text)
        return [(str(a), str(b), float(g), float(c)) for a, b, g, c in rows]
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True)
class Grid:
    """The misconception grid: ``wrong[i, j]`` learners put pair i above pair j where their model's cosines put
    j above i; ``seen[i, j]`` learners placed both. Pairs are (a, b) in the lexicon's English names."""
    pairs: list[tuple[str, str]]
    wrong: np.ndarray  # (n, n) int
    seen: np.ndarray  # (n, n) int, symmetric
    learners: int

    def worst(self, k: int = 5) -> list[tuple[tuple[str, str], tuple[str, str], int, int]]:
        """The k most mis-ordered comparisons: (pair put too high, pair put too low, learners, of learners)."""
        cells = [(int(self.wrong[i, j]), i, j) for i in range(len(self.pairs)) for j in range(len(self.pairs))
                 if self.wrong[i, j] > 0]
        cells.sort(key=lambda c: (-c[0], c[1], c[2]))
        return [(self.pairs[i], self.pairs[j], n, int(self.seen[i, j])) for n, i, j in cells[:k]]


def misconception_grid(answers: list[Answer]) -> Grid:
    """The grid over every learner's latest ordering (question ``predict``): vectorised per learner."""
    orderings = [o for a in answers if a.question == PREDICT and (o := decode_ordering(a.answer))]
    pairs = sorted({(a, b) for o in orderings for a, b, _g, _c in o})
    index = {p: i for i, p in enumerate(pairs)}
    n = len(pairs)
    wrong, seen = np.zeros((n, n), dtype=int), np.zeros((n, n), dtype=int)
    for o in orderings:
        ids = np.array([index[(a, b)] for a, b, _g, _c in o])
        g = np.array([r[2] for r in o])
        c = np.array([r[3] for r in o])
        above = (g[:, None] > g[None, :]) & (c[:, None] < c[None, :])  # guessed higher, really lower
        wrong[np.ix_(ids, ids)] += above
        seen[np.ix_(ids, ids)] += ~np.eye(len(ids), dtype=bool)
    return Grid(pairs, wrong, seen, len(orderings))


def misconception_grid_reference(answers: list[Answer]) -> dict[tuple[tuple[str, str], tuple[str, str]], int]:
    """The slow, obvious grid: for each learner and each two pairs, one count when the guesses' order is the
    cosines' order reversed. Returns {(pair put too high, pair put too low): learners} (non-zero cells only)."""
    out: dict = {}
    for a in answers:
        if a.question != PREDICT or not (o := decode_ordering(a.answer)):
            continue
        for (a1, b1, g1, c1) in o:
            for (a2, b2, g2, c2) in o:
                if g1 > g2 and c1 < c2:
                    key = ((a1, b1), (a2, b2))
                    out[key] = out.get(key, 0) + 1
    return out


def tally(answers: list[Answer], question: str) -> Counter:
    """How many learners gave each category (sizing) or each answer (a lesson choice) to ``question``."""
    rows = [a for a in answers if a.question == question]
    return Counter(a.category if question.startswith("sizing:") else a.answer for a in rows)


def common_wrong(answers: list[Answer], question: str, k: int = 3) -> list[tuple[str, str, int]]:
    """The k wrong answers given most often to a sizing question: (answer, category, learners), most first."""
    c = Counter((a.answer, a.category) for a in answers if a.question == question and a.category != RIGHT)
    return [(ans, cat, n) for (ans, cat), n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def meaning(category: str) -> Msg:
    return Msg(CATEGORY_MEANINGS.get(category, CATEGORY_MEANINGS[OTHER]))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    """A CSV cell a spreadsheet will not run: text that starts like a formula gets a leading apostrophe."""
    s = str(value)
    return "'" + s if s.startswith(_FORMULA_START) else s


def answers_csv(answers: list[Answer], members: list[Member]) -> str:
    """The class's answers as CSV: nickname, language, question, answer, category, time (UNIX seconds)."""
    who = {m.member: m for m in members}
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["learner", "nickname", "language", "question", "answer", "category", "time"])
    for a in answers:
        m = who.get(a.member)
        w.writerow([_cell(x) for x in (a.member, m.nickname if m else "", m.language if m else "", a.question,
                                       a.answer, a.category, f"{a.time:.3f}")])
    return out.getvalue()
