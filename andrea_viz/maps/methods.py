"""The methods table: the ways to draw a map (PCA, t-SNE, UMAP), the settings each reads (its cache key), and
the most points each maps here (``python -m andrea_viz bench-geometry`` prints today's times and trust scores)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


from ..errors import QueryError, choices
from ..i18n import N_, Msg, tr
from .layout import Projection
from .pca import PCA_INPUT_DIMS, pca
from .tsne import tsne
from .umap_run import UMAP_PCA_FIRST, umap_map

LARGE_MAP = 50_000  # above this many points the browser may draw slowly: warn, then go on
# the most points each method maps here (2 cores): beyond, a map is refused before it starts (a sample, or PCA)
MOST_POINTS = {"tsne": 50_000, "umap": 300_000}


@dataclass(frozen=True)
class Method:
    """One way to draw a map: its label (a msgid), the name of its axes ("PC" → PC1, PC2), the function that
    makes it, the settings it reads (besides the sample, its seed and dims, which every method uses), and
    its title."""

    label: str
    axis: str
    run: Callable[..., Projection]  # run(X, dims=, seed=, progress=, **the settings it uses)
    uses: tuple[str, ...]
    title: Callable[[Projection, dict], Msg]

    def axes(self, dims: int) -> list[str]:
        return [f"{self.axis}{j}" for j in range(1, dims + 1)]


def _pca_title(proj: Projection, s: dict) -> Msg:
    axes = [Msg("PC{k} ({r:.1%} of variance)", k=a + 1, r=float(r))  # its own statement: Babel's extraction
            for a, r in zip(s["axes"], proj.explained_variance_ratio, strict=False)]  # skips a nested Msg
    return Msg("PCA: {axes}", axes=", ".join(tr(m) for m in axes))


METHODS: dict[str, Method] = {
    "pca": Method(N_("PCA"), "PC", lambda X, axes, **_: pca(X, axes), ("axes",), _pca_title),
    "tsne": Method("t-SNE", "t-SNE ", tsne, ("perplexity", "n_iter"),
                   lambda p, s: Msg("t-SNE, perplexity {p}, {n} iterations, seed {seed}", p=s["perplexity"],
                                    n=s["n_iter"], seed=s["seed"])),
    "umap": Method("UMAP", "UMAP ", umap_map, (), lambda p, s: Msg("UMAP, seed {seed}", seed=s["seed"])),
}
SHARED_SETTINGS = ("n", "include", "seed", "dims")  # what every map depends on: the sample and its size


def method_of(name: str) -> Method:
    choices("method", name, METHODS)
    return METHODS[name]


def check_map_size(method: str, points: int) -> None:
    """Refuse, before anything starts, a map of more points than the method maps here (MOST_POINTS), with what
    would work instead: a sample of at most that many, or PCA (any size; UMAP and t-SNE above a size run on PCA
    first)."""
    most = MOST_POINTS.get(method)
    if most is not None and points > most:
        raise QueryError("{method} maps at most {most:,} points here and this map has {n:,}: choose a sample of at "
                         "most {most:,} tokens, or PCA, which maps any number (UMAP runs on the first {k} principal "
                         "components above {pca_first:,} points).", method=METHODS[method].label, most=most, n=points,
                         k=PCA_INPUT_DIMS, pca_first=UMAP_PCA_FIRST)


def settings_for(method: str, **settings) -> dict:
    """Only the settings a method reads (and the shared ones): the cache key of its map, so that a t-SNE
    setting never recomputes a UMAP map. PCA's axes are cut to ``dims``."""
    m = method_of(method)
    out = {k: settings[k] for k in (*SHARED_SETTINGS, *m.uses) if k in settings}
    if "axes" in out:
        out["axes"] = tuple(out["axes"])[: out.get("dims", 2)]
    return out
