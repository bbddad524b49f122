"""``python -m andrea_viz bench-map --methods``: six ways to map a token table, side by side on the same rows.

PCA (the app's), UMAP (the app's ``umap_map``), t-SNE as the app runs it (``maps.tsne.tsne`` with the page's
perplexity 30 and 500 iterations: exact affinities and Barnes-Hut up to 10,000 points), openTSNE with its defaults and
the FFT gradient (on the first 50 principal components), PaCMAP (angular distance) and TriMap (cosine), each seeded,
on a grown ANDREA (andrea-micro, every row), a 5,000-row seeded sample of MiniLM (the Projection page's default map)
and MiniLM's whole table. For each: the wall time, the quality card (``map_quality``: T@10, C@10, triplet accuracy;
over every point when affordable, else its 5,000-row estimate, marked "~"), and the kNN accuracy of token classes on
the map.

kNN accuracy: each token's class is guessed by the majority of its 10 nearest on the map (itself left out; a tie goes
to the class met first in distance order) and compared with its own, for four classes of ``clusters.traits``: its
script (tokens with one), digits and punctuation (over the tokens that are digits, or punctuation: do they land among
their own kind?), and its word-initial mark (a ``##`` piece, a leading space mark, or neither; every token).

The table printed last is what ``map_choice.MEASURED`` holds: the app's default per size is the fastest of its own
methods whose T@10 and C@10 are within ``map_choice.WITHIN`` of the best at that size.
"""

from __future__ import annotations

import time
from collections import Counter

import numpy as np

from ..maps import quality as map_quality
from ..builtin import load_builtin
from ..maps.clusters import DIGITS, PIECE, PUNCTUATION, SPACE, traits
from ..maps.choice import choose
from ..maps.pca import pca, pca_fit, PCA_INPUT_DIMS
from ..maps.tsne import tsne
from ..maps.umap_run import umap_map

METHOD_NAMES = ("pca", "umap", "tsne", "tsne-fft", "pacmap", "trimap")
TABLES = ("andrea-micro", "minilm-l6:5000", "minilm-l6")
CLASS_K = 10


def token_classes(tokens: list[str]) -> dict[str, list[str | None]]:
    """Per token, its label in each of the four classes (None: not scored in that class)."""
    out: dict[str, list] = {"script": [], "digits": [], "punctuation": [], "word-initial": []}
    for t in tokens:
        tr = traits(t)
        script = next((x[1] for x in tr if isinstance(x, tuple) and x[0] == "script"), None)
        out["script"].append(script)
        out["digits"].append("yes" if DIGITS in tr else "no")
        out["punctuation"].append("yes" if PUNCTUATION in tr else "no")
        out["word-initial"].append("piece" if PIECE in tr else "space" if SPACE in tr else "plain")
    return out


def knn_accuracy(coords: np.ndarray, labels: list[str | None], scored=lambda label: label is not None,
                 k: int = CLASS_K) -> float | None:
    """The share of scored tokens whose k nearest on the map (Euclidean, itself left out) mostly share its label;
    None when no token is scored."""
    from sklearn.neighbors import NearestNeighbors

    rows = [i for i, label in enumerate(labels) if scored(label)]
    if not rows:
        return None
    near = NearestNeighbors(n_neighbors=k + 1).fit(coords).kneighbors(coords[rows], return_distance=False)
    hits = 0
    for i, nb in zip(rows, near, strict=True):
        votes = Counter(labels[j] for j in nb if j != i)
        best = max(votes.values())
        guess = next(labels[j] for j in nb if j != i and votes[labels[j]] == best)
        hits += guess == labels[i]
    return hits / len(rows)


def class_accuracies(coords: np.ndarray, tokens: list[str]) -> dict[str, float | None]:
    c = token_classes(tokens)
    return {"script": knn_accuracy(coords, c["script"]),
            "digits": knn_accuracy(coords, c["digits"], lambda label: label == "yes"),
            "punctuation": knn_accuracy(coords, c["punctuation"], lambda label: label == "yes"),
            "word-initial": knn_accuracy(coords, c["word-initial"])}


def method_layout(method: str, X: np.ndarray, seed: int = 0) -> np.ndarray:
    """(N, 2) coordinates of one method."""
    if method == "pca":
        return pca(X, (0, 1)).coords
    if method == "umap":
        return umap_map(X, 2, seed).coords
    if method == "tsne":
        return tsne(X, 2, seed=seed).coords
    if method == "tsne-fft":
        from openTSNE import TSNE

        X50 = pca_fit(X, min(PCA_INPUT_DIMS, *X.shape))[0].astype(np.float64)
        return np.asarray(TSNE(negative_gradient_method="fft", n_jobs=2, random_state=seed).fit(X50), np.float32)
    if method == "pacmap":
        import pacmap

        return pacmap.PaCMAP(n_components=2, distance="angular", random_state=seed).fit_transform(
            np.asarray(X, np.float32)).astype(np.float32)
    if method == "trimap":
        import trimap

        out = trimap.TorchTRIMAP(n_dims=2, distance="cosine", random_state=seed).fit_transform(np.asarray(X, np.float32))
        return np.asarray(out.cpu().numpy() if hasattr(out, "cpu") else out, np.float32)
    raise ValueError(method)


def rows_of(table: str, seed: int = 0):
    """(label, X, tokens) of a table name: a built-in, or ``name:rows`` for a seeded sample of it."""
    name, _, rows = table.partition(":")
    emb = load_builtin(name)
    ids = np.arange(emb.vocab_size)
    if rows:
        ids = np.sort(np.random.default_rng(seed).choice(emb.vocab_size, int(rows), replace=False))
    return f"{name} ({ids.size:,} × {emb.d_model})", np.asarray(emb.token_table[ids], np.float32), \
        [emb.token(int(i)) for i in ids]


def bench_methods_on(table: str, methods=METHOD_NAMES, seed: int = 0, full: bool | None = None) -> list[dict]:
    label, X, tokens = rows_of(table, seed)
    out = []
    for m in methods:
        t = time.perf_counter()
        try:
            coords = method_layout(m, X, seed)
        except Exception as exc:  # a method that cannot map this table: said, the others still run
            print(f"{label}: {m} failed: {exc}", flush=True)
            continue
        seconds = time.perf_counter() - t
        card = map_quality.card(X, coords, seed=seed, full=full)
        row = {"table": label, "points": X.shape[0], "method": m, "seconds": seconds, "estimate": card.full is None,
               **{key: getattr(card.best, key) for key in ("trustworthiness", "continuity", "triplets")},
               **class_accuracies(coords, tokens)}
        print(_line(row), flush=True)
        out.append(row)
    return out


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{v:.1%}"


def _line(r: dict) -> str:
    mark = "~" if r["estimate"] else ""
    return (f"| {r['table']} | {r['method']} | {r['seconds']:.1f} s | {mark}{r['trustworthiness']:.3f} | "
            f"{mark}{r['continuity']:.3f} | {mark}{r['triplets']:.1%} | {_pct(r['script'])} | {_pct(r['digits'])} | "
            f"{_pct(r['punctuation'])} | {_pct(r['word-initial'])} |")


def run(tables=TABLES, methods=METHOD_NAMES, seed: int = 0, full: bool | None = None) -> list[dict]:
    print("| table | method | wall | T@10 | C@10 | triplets | kNN script | kNN digits | kNN punctuation | "
          "kNN word-initial |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    for table in tables:
        rows += bench_methods_on(table, methods, seed, full)
    print("\nThe app's default per size (the fastest of its methods within 0.02 of the best T@10 and C@10):")
    for points in sorted({r["points"] for r in rows}):
        figures = {r["method"]: (r["seconds"], r["trustworthiness"], r["continuity"]) for r in rows
                   if r["points"] == points}
        print(f"  {points:,} points: {choose(figures)}   figures {figures}")
    return rows
