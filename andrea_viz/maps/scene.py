"""One map view as its three renderers draw it (plotly in ``plots.projection``, the canvas frame in
``plots.canvas_map``, deck.gl in ``plots.deck_map``): prepared once per view, so that every renderer reads the same
groups, palette entries, names, colouring values, labels and lines, and none works them out again.

A point's palette entry: 0 for the points of no group ("other"), j + 1 for the j-th word group in order of first
appearance (drawn in its own colour of the map's palette, the same on every map: ``Scene.slots``,
``plots.style.entry_colours``), and the last for the query.
Texts are in the reader's language and as typed: each renderer makes them inert its own way where it draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..i18n import language
from .layout import Projection
from .sample import Sample, colour_slots, group_label

OTHER, QUERY = "other", "query"


@dataclass(frozen=True)
class Label:
    """A region's label on the map: where it is written, its text in the reader's language, and its cluster."""

    x: float
    y: float
    text: str
    cluster: Any  # clusters.Cluster (a region, or a group of regions at a zoom level)
    level: int = 0  # the canvas map's zoom level from which it is offered (``clusters.zoom_labels``)
    until: int | None = None  # the zoom level at which its parts replace it; None: at every closer zoom


@dataclass(frozen=True)
class Scene:
    """What every renderer of one map view needs (see the module's docstring)."""

    coords: np.ndarray  # (N, dims) float32
    method: str
    ids: np.ndarray  # (N,) token ids
    groups: tuple[str, ...]  # (N,) each point's group
    tokens: list[str]  # (N,) the tokens as typed
    trust: np.ndarray  # (N,) share of each point's 10 nearest kept, NaN where not scored
    word_groups: tuple[str, ...]  # the groups with a colour of their own, in order of first appearance
    entry: np.ndarray  # (N,) uint8 palette entry of each point
    names: tuple[str, ...]  # each palette entry's name in the reader's language (other, the word groups, query)
    values: np.ndarray | None  # (N,) colour every point by this value in [0, 1], 1 good (NaN: none); None: by group
    scores: np.ndarray | None  # (N,) the score that ``values`` shades, said on hover; None when not a score
    scale: str | None  # the score's name (its colour bar's title); None when coloured by trust or by group
    ends: tuple[str, str] | None  # the words at the two ends of the score's colour bar, or None
    labels: tuple[Label, ...]  # largest region first (plotly and deck.gl write the first MAP_LABELS)
    zoom_labels: tuple[Label, ...]  # the canvas map's labels by zoom, largest group first
    lines_from: int | None  # position of the chosen point, whose true nearest get lines
    lines_to: np.ndarray | None  # positions of its true nearest
    lang: str  # the reader's language the texts are in

    def __len__(self) -> int:
        return int(self.ids.size)

    @property
    def dims(self) -> int:
        return int(self.coords.shape[1])

    @property
    def by_score(self) -> bool:
        """Every point coloured by a value (its trust or a score of the table), not by its group."""
        return self.values is not None

    def entry_group(self, entry: int) -> str:
        """The group of palette entry ``entry``."""
        return OTHER if entry == 0 else QUERY if entry == len(self.word_groups) + 1 else self.word_groups[entry - 1]

    def name(self, entry: int, escape=None) -> str:
        """Entry ``entry``'s name in the reader's language, ``escape`` applied as ``sample.group_label`` does
        (to a typed word before it is placed in its sentence)."""
        return self.names[entry] if escape is None else group_label(self.entry_group(entry), escape=escape)

    @property
    def slots(self) -> tuple[int, ...]:
        """Each word group's place in the map's palette (``sample.colour_slots``): its colour on every map."""
        return colour_slots(self.word_groups)

    @property
    def has_lines(self) -> bool:
        return self.lines_from is not None and self.lines_to is not None and len(self.lines_to) > 0


def build_scene(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray, *,
                colour_by_trust: bool = False, shade: np.ndarray | None = None, scores: np.ndarray | None = None,
                scale: str | None = None, ends: tuple[str, str] | None = None, labels: list | None = None,
                zoom_labels: list | None = None, lines_from: int | None = None, lines_to: np.ndarray | None = None) -> Scene:
    """The scene of one map view. ``shade``: values in [0, 1], 1 good, one per point (``maps.colours``), with the
    ``scores`` they stand for, the score's name ``scale`` and the words at its colour bar's ``ends``; else, with
    ``colour_by_trust``, every point by its trust; else by group. ``labels``: (x, y, cluster) from
    ``clusters.map_labels``, largest cluster first; ``zoom_labels``: (x, y, group, level, until) from
    ``clusters.zoom_labels``."""
    lang = language()
    word_groups = tuple(dict.fromkeys(g for g in sample.groups if g not in (OTHER, QUERY)))
    rank = {OTHER: 0, **{g: j + 1 for j, g in enumerate(word_groups)}, QUERY: len(word_groups) + 1}
    n = len(sample)
    entry = np.fromiter((rank[g] for g in sample.groups), np.uint8, count=n) if n else np.zeros(0, np.uint8)
    values = shade if shade is not None else trust if colour_by_trust else None
    return Scene(
        coords=proj.coords, method=proj.method, ids=sample.ids, groups=sample.groups, tokens=tokens, trust=trust,
        word_groups=word_groups, entry=entry, names=tuple(group_label(g) for g in (OTHER, *word_groups, QUERY)),
        values=values, scores=scores if shade is not None else None, scale=scale if shade is not None else None,
        ends=ends if shade is not None else None,
        labels=tuple(Label(float(x), float(y), c.label(lang), c) for x, y, c in labels or ()),
        zoom_labels=tuple(Label(float(x), float(y), c.label(lang), c, int(k), until)
                          for x, y, c, k, until in zoom_labels or ()),
        lines_from=lines_from, lines_to=lines_to, lang=lang)
