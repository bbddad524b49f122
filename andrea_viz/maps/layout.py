"""A map's layout as a method returns it (``Projection``), and its neighbour graph: each point's GRAPH_K nearest
others by cosine, searched once and kept with the map."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..i18n import Msg
from ..model import f32
from ..neighbours import Found, argkmin

# A map's neighbour graph: each point's GRAPH_K nearest by cosine among the map's points (exact), searched once and
# kept with the map (``ProjectionResult.neighbour_graph``). UMAP's graph takes its first UMAP_NEIGHBOURS − 1, the
# labels' clusters (``clusters.CLUSTER_K``) its 15, the trust score and the lines its first TRUST_K.
GRAPH_K = 15


@dataclass(frozen=True)
class Projection:
    coords: np.ndarray  # (N, dims) float32
    method: str
    explained_variance_ratio: np.ndarray | None  # PCA: the share of variance of each component shown
    seconds: float
    note: Msg | None = None
    graph: Found | None = field(default=None, compare=False, repr=False)  # the map's neighbour graph, when searched
    approximate: bool = False  # the graph is UMAP's of a large map (cell by cell, on PCA-50): not the true nearest


def map_graph(X: np.ndarray, progress: Callable[[float], None] | None = None) -> Found:
    """The neighbour graph of a map's points X (N, d): each point's GRAPH_K nearest others by cosine, exact
    (``neighbours.argkmin``)."""
    return argkmin(f32(X), GRAPH_K, progress=progress)
