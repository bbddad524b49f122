"""The map's default method per size, chosen by measurement: at each size ``bench-map --methods`` measured, the
fastest of the app's own methods whose T@10 and C@10 are both within WITHIN of the best any method reached there
(openTSNE with its own defaults, PaCMAP and TriMap are measured too: they set the bar, the app does not draw them). A
map of another size takes the choice of the measured size nearest to it (on a log scale). The Projection page opens
on that method when no method is in its address (``opens_on``; PCA for a map too small for it).

MEASURED holds the bench's figures (seconds, T@10, C@10) as it printed them, on the 2-core development machine with
nothing else running (2026-12-03 05:12-05:20 UTC); the first table's times include what each method's first call
loads. UMAP is chosen at every measured size. At 557 and 5,000 points no method the app offers comes within WITHIN of
the best on both measures; the one that falls least short is chosen, and the page says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..i18n import Msg, N_
from .tsne import tsne_fits
from .umap_run import umap_fits

WITHIN = 0.02  # how far below the best T@10 and C@10 a method may be and still be chosen
APP_METHOD = {"pca": "pca", "umap": "umap", "tsne": "tsne"}  # the bench's names of the app's own methods

# points → (the model measured, its width d, {bench method: (wall seconds, T@10, C@10)}), from bench-map --methods
MEASURED: dict[int, tuple[str, int, dict[str, tuple[float, float, float]]]] = {
    557: ("andrea-micro", 64, {
        "pca": (1.4, 0.711, 0.755),
        "umap": (1.7, 0.805, 0.843),
        "tsne": (0.7, 0.820, 0.740),
        "tsne-fft": (7.2, 0.821, 0.755),
        "pacmap": (0.6, 0.778, 0.803),
        "trimap": (1.3, 0.831, 0.801),
    }),
    5_000: ("minilm-l6", 384, {
        "pca": (0.0, 0.682, 0.817),
        "umap": (1.4, 0.791, 0.897),
        "tsne": (6.3, 0.867, 0.801),
        "tsne-fft": (20.1, 0.874, 0.823),
        "pacmap": (1.5, 0.768, 0.888),
        "trimap": (9.6, 0.783, 0.881),
    }),
    30_522: ("minilm-l6", 384, {
        "pca": (0.3, 0.681, 0.834),
        "umap": (16.6, 0.809, 0.930),
        "tsne": (28.9, 0.546, 0.624),
        "tsne-fft": (40.1, 0.543, 0.609),
        "pacmap": (13.9, 0.782, 0.919),
        "trimap": (60.4, 0.789, 0.911),
    }),
}


# the reason, measured once on a reference table and not on the map on screen, whose own figures are in its card
CLOSE = N_("It was measured once on {model} ({n:,} × {d:,}), a reference table, not this map (this map's own figures are "
           "in the card under it): the fastest of the app's methods whose trustworthiness and continuity (T@10 and C@10) "
           "were both within {within:.2f} of the best any method reached ({t:.3f} and {c:.3f}, the best {bt:.3f} and "
           "{bc:.3f}; {s:.1f} s on two cores).")
SHORT = N_("It was measured once on {model} ({n:,} × {d:,}), a reference table, not this map (this map's own figures are "
           "in the card under it): none of the app's methods was within {within:.2f} of the best on both trustworthiness "
           "and continuity (the best T@10 any method reached was {bt:.3f}, the best C@10 {bc:.3f}); this one came "
           "closest ({t:.3f} and {c:.3f}; {s:.1f} s on two cores).")


def within(t: float, c: float, best_t: float, best_c: float) -> bool:
    """Whether T@10 ``t`` and C@10 ``c`` are both within WITHIN of the best."""
    return t >= best_t - WITHIN and c >= best_c - WITHIN


def choose(figures: dict[str, tuple[float, float, float]], offered=tuple(APP_METHOD)) -> str:
    """The fastest offered method whose T and C are within WITHIN of the best of all ``figures``; when none is,
    the offered one that falls least short of the best (on the worse of the two)."""
    best_t = max(f[1] for f in figures.values())
    best_c = max(f[2] for f in figures.values())
    mine = {m: f for m, f in figures.items() if m in offered}
    if not mine:
        raise ValueError("no method the app offers was measured")
    close = [m for m, (_, t, c) in mine.items() if within(t, c, best_t, best_c)]
    if close:
        return min(close, key=lambda m: mine[m][0])
    return max(mine, key=lambda m: min(mine[m][1] - best_t, mine[m][2] - best_c))


@dataclass(frozen=True)
class Choice:
    method: str  # the app's name: pca, tsne, umap
    points: int  # the measured size it was chosen at
    model: str
    dims: int
    seconds: float
    trustworthiness: float
    continuity: float
    best_trustworthiness: float
    best_continuity: float

    @property
    def table(self) -> str:
        """The table measured, as bench-map --methods names it: ``minilm-l6 (5,000 × 384)``."""
        return f"{self.model} ({self.points:,} × {self.dims:,})"

    @property
    def close(self) -> bool:
        """Whether its T@10 and C@10 are both within WITHIN of the best (else it is the one least short)."""
        return within(self.trustworthiness, self.continuity, self.best_trustworthiness, self.best_continuity)

    @property
    def why(self) -> Msg:
        figures = dict(model=self.model, n=self.points, d=self.dims, within=WITHIN, t=self.trustworthiness,
                       c=self.continuity, bt=self.best_trustworthiness, bc=self.best_continuity, s=self.seconds)
        if self.close:
            return Msg(CLOSE, **figures)
        return Msg(SHORT, **figures)


def opens_on(points: int, measured: dict = MEASURED) -> str:
    """The method the Projection page opens on for a map of ``points``: the measured choice (``default_for``) when it
    can map that many points (``umap_fits``; ``tsne_fits`` at the page's default perplexity), else PCA (which maps
    any)."""
    chosen = default_for(points, measured)
    fits = {"umap": umap_fits, "tsne": tsne_fits}
    return chosen.method if chosen is not None and fits.get(chosen.method, lambda n: True)(points) else "pca"


def default_for(points: int, measured: dict = MEASURED) -> Choice | None:
    """The measured choice for a map of ``points`` (the nearest measured size), or None when nothing is measured."""
    if not measured or points < 1:
        return None
    size = min(measured, key=lambda p: abs(math.log(p) - math.log(points)))
    model, dims, figures = measured[size]
    method = choose(figures)
    s, t, c = figures[method]
    return Choice(APP_METHOD[method], size, model, dims, s, t, c, max(f[1] for f in figures.values()),
                  max(f[2] for f in figures.values()))
