"""“Predict similarity”: the learner guesses how close word pairs are before the app reveals it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import spearmanr

from .. import lexicon
from ..errors import QueryError
from ..geometry import cosine, dot, resolve
from ..i18n import Msg
from ..model import Embeddings
from ..model_words import model_language

# the lesson's own pairs come first; later rounds draw from the rest (in English; a model's own language's from
# the lexicon)
LESSON_PAIRS = lexicon.lesson_pairs(lexicon.ENGLISH)
MORE_PAIRS = lexicon.more_pairs(lexicon.ENGLISH)


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    pieces_a: tuple[str, ...]
    pieces_b: tuple[str, ...]
    cosine: float
    dot: float

    @property
    def multi_piece(self) -> bool:
        return len(self.pieces_a) > 1 or len(self.pieces_b) > 1

    @property
    def label(self) -> str:
        return f"{self.a} / {self.b}"


def make_pair(emb: Embeddings, a: str, b: str) -> Pair:
    qa, qb = resolve(emb, a), resolve(emb, b)
    return Pair(a, b, qa.pieces, qb.pieces, cosine(qa.vector, qb.vector), dot(qa.vector, qb.vector))


def available(emb: Embeddings, pairs: list[tuple[str, str]]) -> list[Pair]:
    """The pairs whose words this model can look up (words it cannot are skipped)."""
    out = []
    for a, b in pairs:
        try:
            out.append(make_pair(emb, a, b))
        except QueryError:
            continue
    return out


def draw_round(emb: Embeddings, round_no: int, n: int = 5) -> list[Pair]:
    """Round 0 is the lesson's pairs; later rounds draw n other pairs with seed ``round_no``; both in the model's
    own language (kat / hond on andrea-micro-nl, English on MiniLM and the untrained tables)."""
    lang = model_language(emb)
    if round_no == 0:
        pairs = available(emb, lexicon.lesson_pairs(lang))
        if len(pairs) >= n:
            return pairs[:n]
    rng = np.random.default_rng(round_no)
    pool = available(emb, lexicon.more_pairs(lang))
    pick = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
    return [pool[i] for i in pick]


@dataclass(frozen=True)
class RoundScore:
    rank_correlation: float  # Spearman's rho between guesses and real cosines, nan when undefined
    points: int  # 0-100: the share of the pairs of pairs put in the right order
    right: int = 0  # pairs of pairs whose guesses are in the real cosines' strict order
    comparisons: int = 0  # all pairs of pairs, n (n − 1) / 2

    @property
    def message(self) -> Msg:
        if np.isnan(self.rank_correlation):
            return Msg("Give the pairs different guesses: with all guesses equal there is no order to compare.")
        return Msg("Of the {n} ways to compare two pairs, your guesses put {right} in the real cosines' order (two "
                   "equal guesses order nothing): {points} / 100. Rank correlation {rho:+.2f}.", n=self.comparisons,
                   right=self.right, points=self.points, rho=self.rank_correlation)


def score_round(guesses: list[float], pairs: list[Pair]) -> RoundScore:
    """Score the order of the guesses against the order of the real cosines: one point for every two
    pairs whose guesses are in the cosines' strict order, none for a tie. Leaving pairs on the same
    value orders nothing, so moving one slider of five earns at most 4 of 10."""
    if len(guesses) != len(pairs) or len(pairs) < 2:
        raise QueryError("expected one guess per pair ({n}), got {got}", n=len(pairs), got=len(guesses))
    n = len(pairs)
    total = n * (n - 1) // 2
    if len(set(guesses)) < 2:
        return RoundScore(float("nan"), 0, 0, total)
    real = [p.cosine for p in pairs]
    right = sum(1 for i in range(n) for j in range(i + 1, n)
                if (guesses[i] - guesses[j]) * (real[i] - real[j]) > 0)
    rho = float(spearmanr(guesses, real).statistic)
    return RoundScore(rho, int(round(100 * right / total)), right, total)
