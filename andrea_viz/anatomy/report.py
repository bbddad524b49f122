"""What the Anatomy page and the commands show, computed once per model and arguments (all hashable)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..i18n import Msg
from ..model import Embeddings
from . import dims, hubs, reference, undertrained
from .truth import GrowTruth, grow_truth


@dataclass(frozen=True)
class Undertrained:
    ranked: undertrained.Ranked
    truth: GrowTruth | None
    auroc: float | None  # on the ids outside the reference set, when the truth is known

    @property
    def reference(self) -> reference.ReferenceSet:
        return self.ranked.reference


def undertrained_of(emb: Embeddings, reference_text: str | None = None) -> Undertrained:
    """Scores, threshold and ranking from the table and the reference set (automatic, or ``reference_text``:
    one id a line); the Grow run's truth read only afterwards, to measure them. Computed once per model and reference
    (the Anatomy page, the Lookup table's ticks and the map's colours all ask for it)."""
    return emb.memo(("undertrained", reference_text), lambda: _rank_against(emb, reference_text))


def _rank_against(emb: Embeddings, reference_text: str | None) -> Undertrained:
    ref = (reference.parse_ids(reference_text, emb.vocab_size, Msg("the reference ids typed here")) if reference_text
           else reference.automatic(emb.tokenizer, emb.vocab_size))
    r = undertrained.rank(emb, ref)
    truth = grow_truth(emb)
    a = None
    if truth is not None:
        keep = np.ones(emb.vocab_size, bool)
        keep[list(ref.ids)] = False
        a = undertrained.auroc(r.scores, truth.never_in_batch, keep)
    return Undertrained(r, truth, a)


INDICATOR_NAMES = {"norm": Msg("the input rows' length"),
                   "cosine": Msg("cosine to the reference rows after removing the first principal component")}


def indicator_reason(emb: Embeddings, indicator: str) -> Msg:
    """Why this indicator suits this model: it follows from the output head (tied or not) and the reference set."""
    if indicator == "cosine":
        return Msg("This model's output is tied to the token table, which the softmax trains at every step, so lengths "
                   "say little; the direction the never-trained rows share does.")
    if emb.output_kind == "tied":
        return Msg("This model's output is tied, but without a reference set the cosine indicator cannot run, so the "
                   "lengths are used.")
    if emb.output_kind == "untied":
        return Msg("This model's output table is separate (untied): an input row that no batch held keeps its starting "
                   "length while trained rows move together.")
    return Msg("This model has no output head: an input row that no batch held keeps its starting length while "
               "trained rows move together.")


@dataclass(frozen=True)
class HubViews:
    raw: hubs.Hubs
    centred: hubs.Hubs
    removed: hubs.Hubs
    dims_removed: tuple[int, ...]

    def overlap(self, other: hubs.Hubs, n: int = 20) -> int:
        """How many of the raw table's top n hubs are also among ``other``'s top n."""
        return len({i for i, _c in self.raw.top(n)} & {i for i, _c in other.top(n)})


def hub_views(emb: Embeddings, k: int = 10, remove: int = 3, sample: int | None = None, seed: int = 0,
              progress: Callable[[float, Msg], None] | None = None) -> HubViews:
    """k-occurrence of the raw, the mean-centred and the table without its top ``remove`` dimensions."""
    removed = dims.stats_of(emb).top(remove)
    out = []
    names = (Msg("raw table"), Msg("mean-centred"), Msg("without the top {k} dimensions", k=remove))
    for n, (variant, name) in enumerate(zip(hubs.VARIANTS, names, strict=True)):
        table = hubs.variant_table(emb.token_table, variant, removed)
        step = None if progress is None else (lambda f, n=n, name=name: progress((n + f) / 3, name))
        out.append(hubs.hubs(table, k, sample=sample, seed=seed, progress=step))
    return HubViews(*out, removed)
