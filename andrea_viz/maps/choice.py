"""The map's default method per size, chosen by measurement: at each size ``bench-map --methods`` measured, the
fastest of the app's own methods whose T@10 and C@10 are both within WITHIN of the best any method reached there
(PaCMAP and TriMap are measured too: they set the bar, the app does not draw them). A map of another size takes the
choice of the measured size nearest to it (on a log scale).

MEASURED holds the bench's figures (seconds, T@10, C@10) as it printed them, on a loaded 2-core machine (eight
engineers' builds and tests beside it): the times are inflated, but the methods ran one after another on the same
machine, so their order holds; a "~" figure of the bench (the whole MiniLM table) is the 5,000-row estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..i18n import Msg

WITHIN = 0.02  # how far below the best T@10 and C@10 a method may be and still be chosen
APP_METHOD = {"pca": "pca", "umap": "umap", "tsne-fft": "tsne"}  # the bench's names of the app's own methods

# points → (the table measured, {bench method: (wall seconds, T@10, C@10)}), from bench-map --methods
MEASURED: dict[int, tuple[str, dict[str, tuple[float, float, float]]]] = {
    557: ("andrea-micro (557 × 64)", {
        "pca": (10.5, 0.711, 0.755),
        "umap": (8.9, 0.819, 0.847),
        "tsne-fft": (154.3, 0.821, 0.755),
        "pacmap": (31.4, 0.778, 0.803),
        "trimap": (6.6, 0.831, 0.801),
    }),
    5_000: ("minilm-l6 (5,000 × 384)", {
        "pca": (1.0, 0.682, 0.817),
        "umap": (11.1, 0.789, 0.897),
        "tsne-fft": (351.3, 0.876, 0.827),
        "pacmap": (64.7, 0.768, 0.888),
        "trimap": (70.2, 0.783, 0.881),
    }),
    30_522: ("minilm-l6 (30,522 × 384)", {
        "pca": (4.1, 0.682, 0.816),
        "umap": (110.3, 0.804, 0.871),
        "tsne-fft": (272.5, 0.544, 0.592),
        "pacmap": (85.8, 0.778, 0.866),
        "trimap": (191.8, 0.777, 0.856),
    }),
}


def choose(figures: dict[str, tuple[float, float, float]], offered=tuple(APP_METHOD)) -> str:
    """The fastest offered method whose T and C are within WITHIN of the best of all ``figures``; when none is,
    the offered one that falls least short of the best (on the worse of the two)."""
    best_t = max(f[1] for f in figures.values())
    best_c = max(f[2] for f in figures.values())
    mine = {m: f for m, f in figures.items() if m in offered}
    if not mine:
        raise ValueError("no method the app offers was measured")
    close = [m for m, (_, t, c) in mine.items() if t >= best_t - WITHIN and c >= best_c - WITHIN]
    if close:
        return min(close, key=lambda m: mine[m][0])
    return max(mine, key=lambda m: min(mine[m][1] - best_t, mine[m][2] - best_c))


@dataclass(frozen=True)
class Choice:
    method: str  # the app's name: pca, tsne, umap
    points: int  # the measured size it was chosen at
    table: str
    seconds: float
    trustworthiness: float
    continuity: float
    best_trustworthiness: float
    best_continuity: float

    @property
    def why(self) -> Msg:
        return Msg("Measured by bench-map --methods on {table}: the fastest of the app's methods whose T@10 and C@10 "
                   "were within {within:.2f} of the best any method reached ({t:.3f} and {c:.3f} against {bt:.3f} and "
                   "{bc:.3f}; {s:.1f} s on a loaded machine).", table=self.table, within=WITHIN,
                   t=self.trustworthiness, c=self.continuity, bt=self.best_trustworthiness, bc=self.best_continuity,
                   s=self.seconds)


def default_for(points: int, measured: dict = MEASURED) -> Choice | None:
    """The measured choice for a map of ``points`` (the nearest measured size), or None when nothing is measured."""
    if not measured or points < 1:
        return None
    size = min(measured, key=lambda p: abs(math.log(p) - math.log(points)))
    table, figures = measured[size]
    method = choose(figures)
    s, t, c = figures[method]
    return Choice(APP_METHOD[method], size, table, s, t, c, max(f[1] for f in figures.values()),
                  max(f[2] for f in figures.values()))
