"""A map as the pages draw it (``ProjectionResult``): its sample, tokens, layout, trust, settings, and the
neighbour graph kept with it, which the trust, the labels and the lines slice."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from ..geometry import nearest_of
from ..i18n import Msg
from ..model import Embeddings, gather_rows
from ..neighbours import Found
from .layout import Projection, map_graph
from .methods import METHODS
from .sample import Sample
from .trust import TRUST_K, TRUST_SAMPLE
from .umap_run import UMAP_PCA_FIRST

GRAPH_MAX = UMAP_PCA_FIRST  # larger maps keep no exact graph (UMAP's is approximate there, and the labels refuse)


@dataclass(frozen=True)
class ProjectionResult:
    sample: Sample
    tokens: list[str]
    projection: Projection
    trust: np.ndarray  # (N,) share of 10 nearest neighbours kept, NaN where not scored
    trust_mean: float
    settings: dict = field(default_factory=dict)  # what the map was drawn with: settings_for(method, …)
    from_cache: bool = False  # read from the map cache on disk (maps.cache), not computed in this process
    kept: dict = field(default_factory=lambda: {"lock": threading.Lock()}, compare=False, repr=False)  # the graph

    def neighbour_graph(self, emb: Embeddings, compute: bool = True) -> Found | None:
        """The map's neighbour graph (``map_graph`` of its points in d dimensions): searched once, when the map
        was made (UMAP's, or the trust's) or on the first call here (a map read from the cache), and kept with the
        map; the trust, the labels and the lines slice it. None for a map of more than GRAPH_MAX points, or when
        it is not searched yet and ``compute`` is False."""
        if len(self.sample) > GRAPH_MAX:
            return None
        with self.kept["lock"]:
            if "graph" not in self.kept and compute:
                self.kept["graph"] = map_graph(gather_rows(emb.token_table, self.sample.ids))
            return self.kept.get("graph")

    def graph_ids(self, emb: Embeddings) -> np.ndarray | None:
        """(N, GRAPH_K) the ids (positions in the sample) of the map's neighbour graph; above GRAPH_MAX, those of the
        graph UMAP searched cell by cell for the map ((N, GRAPH_K − 1), kept with the map, in the map cache too:
        ``Projection.approximate``), or None. What the labels' clusters slice; never the lines' true
        nearest."""
        if len(self.sample) > GRAPH_MAX:
            return self.kept.get("approximate_ids")
        graph = self.neighbour_graph(emb)
        return None if graph is None else graph.ids

    @property
    def title(self) -> Msg:
        """The map's title: PCA's components and their variance, or the method's settings."""
        return METHODS[self.projection.method].title(self.projection, self.settings)

    def position_of(self, text: str) -> int | None:
        """Where a token (``"cat"``) or an id (``"#4937"``) sits in the sample, or None when it is not in it."""
        wanted = int(text[1:]) if text.startswith("#") and text[1:].isascii() and text[1:].isdigit() else None
        if wanted is not None:
            hit = np.flatnonzero(self.sample.ids == wanted)
        else:
            hit = [k for k, t in enumerate(self.tokens) if t == text][:1]
        return int(hit[0]) if len(hit) else None

    def true_nearest(self, emb: Embeddings, index: int, k: int = TRUST_K) -> np.ndarray:
        """Positions in the sample of the k points nearest to point ``index`` in the full d dimensions (by
        cosine, as the trust score counts them): the lines a map draws to show what it tore apart. A row of the map's
        neighbour graph (searched now for a map of up to TRUST_SAMPLE points read from the cache); for a larger map
        whose graph was not searched, one pass over the table (``geometry.nearest_of``)."""
        graph = self.neighbour_graph(emb, compute=len(self.sample) <= TRUST_SAMPLE)
        if graph is not None and k <= graph.ids.shape[1]:
            row = graph.ids[index, :k]
            return row[row >= 0]
        return nearest_of(emb, self.sample.ids, index, k)
