"""What a map's points may be coloured by, beside their word groups: one number per token, from the table itself.

- ``trust``: the share of the point's 10 nearest (in d dimensions) that the picture kept (the projection's own score);
- ``undertrained``: the under-trained score of the Anatomy page (Magikarp's indicator; higher = less trained);
- ``kept:<precision>``: the token's Jaccard@10 between its exact cosine neighbours at that precision and at float32
  (the Neighbours page's measure): 1 where quantisation keeps the whole neighbourhood, 0 where it keeps none of it.

Each is a row of ``COLOURINGS``: its label, the colour bar's title, its range and whether high is good, and the
function that scores every id of a model (computed once per model and memoised with it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..anatomy.report import undertrained_of
from ..i18n import N_, Msg
from ..model import Embeddings
from ..precision import PRECISIONS, measure


@dataclass(frozen=True)
class Colouring:
    label: str  # msgid (the colour picker)
    scale: str  # msgid (the colour bar's title)
    high_is_good: bool
    score: Callable[..., np.ndarray] | None  # (emb, progress) -> (V,) scores; None: the projection provides it
    params: dict  # the label's parameters


def _undertrained(emb: Embeddings, progress=None) -> np.ndarray:
    return undertrained_of(emb).ranked.scores


def _kept_at(name: str) -> Callable[..., np.ndarray]:
    def score(emb: Embeddings, progress=None) -> np.ndarray:
        return emb.memo(("map colour: kept at", name), lambda: measure(emb, name, progress=progress).jaccard)

    return score


COLOURINGS: dict[str, Colouring] = {
    "trust": Colouring(N_("trust of each point"), N_("neighbours kept"), True, None, {}),
    "undertrained": Colouring(N_("under-trained score"), N_("under-trained score"), False, _undertrained, {}),
    **{f"kept:{p}": Colouring(N_("neighbours kept at {precision}"), N_("Jaccard@10 against float32"), True, _kept_at(p),
                              {"precision": p}) for p in PRECISIONS},
}


def colouring_label(name: str) -> Msg:
    c = COLOURINGS[name]
    return Msg(c.label, **c.params)


def token_scores(emb: Embeddings, name: str, ids: np.ndarray,
                 progress: Callable[[float, Msg], None] | None = None) -> np.ndarray:
    """(len(ids),) float64: colouring ``name``'s score of each id (scored over the whole table, then picked)."""
    c = COLOURINGS[name]
    if c.score is None:
        raise ValueError(f"{name} is the projection's own score, not the table's")
    return np.asarray(c.score(emb, progress), np.float64)[np.asarray(ids)]


def shade(emb: Embeddings, name: str, ids: np.ndarray,
          progress: Callable[[float, Msg], None] | None = None) -> tuple:
    """What a map draws for colouring ``name``: each point's colour value in [0, 1] (1 good: green), its score,
    the colour bar's title, and the words at the bar's two ends (for a ranked score; None otherwise). Scores with no fixed range (the under-trained score) are placed by their rank in
    the whole table, so the colours spread whatever the indicator's scale."""
    c = COLOURINGS[name]
    scores = np.asarray(c.score(emb, progress), np.float64)
    picked = scores[np.asarray(ids)]
    if name.startswith("kept:"):
        return picked, picked, Msg(c.scale), None
    rank = np.searchsorted(np.sort(scores), picked, side="left") / max(1, scores.size - 1)  # 0 lowest … 1 highest
    ends = (Msg("highest in the table"), Msg("lowest in the table"))
    return (rank, picked, Msg(c.scale), ends[::-1]) if c.high_is_good else (1.0 - rank, picked, Msg(c.scale), ends)
