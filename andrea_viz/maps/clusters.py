"""Regions of a token table found in its own d dimensions, and labels that are true of their tokens.

Clusters: scikit-learn's HDBSCAN on the graph of every token's CLUSTER_K nearest neighbours by cosine (exact,
``geometry.nearest``; distances as the chord ‖u − v‖ between unit rows), never on a 2-D picture. A dense
distance matrix of the whole MiniLM table would take 7 GB; the neighbour graph takes a few MB, and HDBSCAN's
mutual reachability only ever uses the nearest min_samples of each point. Where the graph falls into several
pieces, each piece is joined to the largest by one true distance (HDBSCAN needs one connected graph), so
they merge only at the top of the hierarchy.

Labels are written without any language model, from what a cluster's tokens share (``traits``): special tokens,
byte fragments, the word class of a grown model's corpus, the script,
WordPiece ``##`` pieces or a leading space, case, digits, punctuation, single characters; a trait names a
cluster when at least LABEL_SHARE of its tokens have it and the
table as a whole has not (every token of an uncased English vocabulary is lower case and Latin). Each label ends with the cluster's medoid tokens (the
members with the smallest total cosine distance to the others).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from ..errors import QueryError
from ..geometry import nearest, unit_rows
from ..neighbours import normalise
from .. import lexicon
from ..grow.corpus import CLASS_LABELS
from ..i18n import DEFAULT_LANGUAGE, N_, Msg
from ..model import Embeddings
from . import regions, umap_run

CLUSTER_K = 15  # neighbours of each token in the graph HDBSCAN runs on
GATHER_BLOCK_BYTES = 8 * 2**20  # the neighbours' rows gathered at once to take their cosines
LABEL_SHARE = 0.8  # a trait names a cluster when at least this share of its tokens have it
MEDOIDS = 10  # tokens listed per cluster
LABEL_MEDOIDS = 3  # of which the label shows this many
NOISE = -1
EXACT_NEIGHBOURS_MAX = 60_000  # above, rows × rows dot products would take minutes: say so and offer a sample


def min_cluster_size(n: int) -> int:
    """The smallest region worth a label: 5 tokens for a small table (andrea-micro's classes have 6-12 words),
    growing with the table (15 for MiniLM's 30,522) up to 50."""
    return int(max(5, min(50, round(n / 2000))))


def min_samples(size: int) -> int:
    """HDBSCAN's core distance (to the min_samples-th nearest neighbour): a third of the smallest cluster, at
    least 2 (andrea-micro: 2, MiniLM: 5)."""
    return max(2, size // 3)


SCRIPTS = {  # the first word of a letter's Unicode name → the trait's msgid
    "LATIN": N_("Latin script"), "CYRILLIC": N_("Cyrillic script"), "GREEK": N_("Greek script"),
    "ARABIC": N_("Arabic script"), "HEBREW": N_("Hebrew script"), "DEVANAGARI": N_("Devanagari script"),
    "THAI": N_("Thai script"), "HANGUL": N_("Hangul"), "HIRAGANA": N_("Japanese kana"),
    "KATAKANA": N_("Japanese kana"), "CJK": N_("Chinese characters"),
}
SPECIAL = N_("special tokens")
BYTES = N_("byte fragments")
PIECE = N_("word pieces (##)")
SPACE = N_("start with a space")
LOWER, CAPITALISED, UPPER = N_("lower case"), N_("capitalised"), N_("upper case")
DIGITS = N_("digits")
PUNCTUATION = N_("punctuation and symbols")
SINGLE = N_("single characters")
WORD_CLASS = N_("word class: {name}")
SPACE_MARKS = ("Ġ", "▁", " ")  # GPT-2's byte-level space, SentencePiece's, a plain one


WORD_CLASS_OF = lexicon.class_of_words()  # a grown model's words in any of the lesson's languages


def script_of(text: str) -> str | None:
    """The script of a token's letters (the first word of their Unicode names: LATIN, CJK, …), None when it
    has no letters or mixes scripts."""
    found = {unicodedata.name(ch, "?").split()[0] for ch in text if ch.isalpha()}
    return found.pop() if len(found) == 1 else None


def traits(token: str, word_classes: bool = False) -> set[str]:
    """What one token is, as trait keys: msgids of this module (and ``("class", name)`` for a grown corpus's
    word class, when ``word_classes``), plus ``("script", NAME)``."""
    out: set = set()
    if (token.startswith("[") and token.endswith("]") and len(token) > 2) or (
            token.startswith("<") and token.endswith(">") and not token.startswith("<0x") and len(token) > 2):
        return {SPECIAL}
    if (token.startswith("<0x") and token.endswith(">")) or "\ufffd" in token:
        return {BYTES}
    core = token
    if core.startswith("##") and len(core) > 2:
        out.add(PIECE)
        core = core[2:]
    elif core[:1] in SPACE_MARKS and len(core) > 1:
        out.add(SPACE)
        core = core[1:]
    if word_classes and core.lower() in WORD_CLASS_OF:
        out.add(("class", WORD_CLASS_OF[core.lower()]))
    script = script_of(core)
    if script:
        out.add(("script", script))
    letters = [ch for ch in core if ch.isalpha()]
    cased = [ch for ch in letters if ch.lower() != ch.upper()]
    if cased and len(cased) == len(letters):
        if all(ch.islower() for ch in cased):
            out.add(LOWER)
        elif len(cased) > 1 and all(ch.isupper() for ch in cased):
            out.add(UPPER)
        elif cased[0].isupper() and all(ch.islower() for ch in cased[1:]) and len(cased) > 1:
            out.add(CAPITALISED)
    if core and all(ch.isdigit() for ch in core):
        out.add(DIGITS)
    if core and all(unicodedata.category(ch)[0] in "PS" for ch in core):
        out.add(PUNCTUATION)
    if len(core) == 1:
        out.add(SINGLE)
    return out


TRAIT_ORDER = [SPECIAL, BYTES, "class", "script", PIECE, SPACE, LOWER, CAPITALISED, UPPER, DIGITS, PUNCTUATION,
               SINGLE]


def _rank(t) -> int:
    return TRAIT_ORDER.index(t[0] if isinstance(t, tuple) else t)


def _trait_msg(t) -> Msg:
    if isinstance(t, tuple) and t[0] == "class":
        return Msg(WORD_CLASS, name=Msg(CLASS_LABELS.get(t[1], t[1])))
    if isinstance(t, tuple):
        return Msg(SCRIPTS.get(t[1], t[1]))
    return Msg(t)


@dataclass(frozen=True)
class Cluster:
    id: int
    size: int
    shared: tuple[Msg, ...]  # what at least LABEL_SHARE of its tokens are, most telling first
    medoids: tuple[str, ...]  # up to MEDOIDS tokens, the most central first
    medoid_ids: tuple[int, ...]

    def label(self, lang: str | None = None) -> str:
        """The traits, then the first medoid tokens: ``word class: animals · lower case · cat dog horse``."""
        parts = [m.render(lang) for m in self.shared]
        return " · ".join([*parts, " ".join(self.medoids[:LABEL_MEDOIDS])])


@dataclass(frozen=True)
class Clustering:
    ids: np.ndarray  # (N,) token ids clustered
    assignment: np.ndarray  # (N,) cluster id of each, NOISE for noise
    clusters: tuple[Cluster, ...]  # largest first; ids 0, 1, … in that order
    min_cluster_size: int
    # zoom level (regions.ZOOM_LABELS) → its groups of clusters, labelled as clusters are: largest first, ids 0, 1, …
    levels: dict[int, tuple[Cluster, ...]] = field(default_factory=dict)
    level_of: dict[int, np.ndarray] = field(default_factory=dict)  # zoom level → (clusters,) each cluster's group

    def as_json(self, lang: str = DEFAULT_LANGUAGE) -> dict:
        """``clusters``: [{id, size, label, medoids}], ``assignment``: {token id: cluster id, −1 for noise}."""
        return {"clusters": [{"id": c.id, "size": c.size, "label": c.label(lang), "medoids": list(c.medoids)}
                             for c in self.clusters],
                "assignment": {str(int(i)): int(a) for i, a in zip(self.ids, self.assignment, strict=True)},
                "min_cluster_size": self.min_cluster_size}


def neighbour_graph(X: np.ndarray, k: int = CLUSTER_K, near: np.ndarray | None = None) -> sparse.csr_matrix:
    """(N, N) sparse, symmetric: each row's k nearest by cosine (exact; ``near``: those ids, (N, ≥ k), when searched
    already, e.g. a map's neighbour graph) at their chord distance ‖u − v‖ on unit rows; pieces that are not
    connected are each joined to the largest by one true distance. A row holding NaN or Inf has no neighbours
    (the neighbour kit's rule) and is joined like a piece, at distance √2."""
    n = X.shape[0]
    U = normalise(X).rows
    k = min(k, n - 1)
    nb = nearest(X, k) if near is None else np.asarray(near)[:, :k]  # (N, k), -1 for none
    has = nb >= 0
    cos = np.full(nb.shape, np.nan, dtype=U.dtype)
    step = max(1, GATHER_BLOCK_BYTES // (U.itemsize * max(1, k * U.shape[1])))  # rows whose neighbours' rows fit
    for i in range(0, n, step):  # gathered a block at a time: all at once is (N, k, d), 0.7 GB for MiniLM
        cos[i:i + step] = np.einsum("id,ikd->ik", U[i:i + step], U[np.where(has[i:i + step], nb[i:i + step], 0)])
    dist = np.sqrt(np.clip(2.0 - 2.0 * cos, 0.0, None)).astype(np.float64)
    dist = np.maximum(dist, 1e-9)  # equal rows (unused slots) are near, not absent
    rows = np.repeat(np.arange(n), k).reshape(n, k)
    g = sparse.coo_matrix((dist[has], (rows[has], nb[has])), shape=(n, n)).tocsr()
    g = g.maximum(g.T).tocsr()
    count, piece = csgraph.connected_components(g, directed=False)
    if count > 1:
        sizes = np.bincount(piece)
        main = int(np.argmax(sizes))
        anchor = int(np.flatnonzero(piece == main)[0])
        extra_r, extra_c, extra_d = [], [], []
        for p in range(count):
            if p == main:
                continue
            first = int(np.flatnonzero(piece == p)[0])
            d = float(np.sqrt(max(2.0 - 2.0 * float(U[first] @ U[anchor]), 1e-18)))
            extra_r += [first, anchor]
            extra_c += [anchor, first]
            extra_d += [d, d]
        g = (g + sparse.coo_matrix((extra_d, (extra_r, extra_c)), shape=(n, n)).tocsr()).tocsr()
    return g


def hdbscan_labels(X: np.ndarray, min_size: int, k: int = CLUSTER_K, near: np.ndarray | None = None) -> np.ndarray:
    """(N,) HDBSCAN cluster of each row (NOISE for noise), on the neighbour graph of X (``near``: its ids, when
    searched already)."""
    import warnings

    from sklearn.cluster import HDBSCAN

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the default of `copy` is about to change: irrelevant to a graph we built
        return HDBSCAN(min_cluster_size=min_size, min_samples=min_samples(min_size), metric="precomputed",
                       copy=True).fit_predict(neighbour_graph(X, k, near))


def medoid_order(X: np.ndarray) -> np.ndarray:
    """Positions of X's rows from the most central (the smallest sum of cosine distances to the others; for
    unit rows that is the largest dot product with their sum) to the least."""
    U = unit_rows(X).astype(np.float64)
    return np.argsort(-(U @ U.sum(axis=0)), kind="stable")


def trait_counts(tokens: list[str], word_classes: bool = False) -> Counter:
    """How many of the tokens have each trait."""
    counts: Counter = Counter()
    for t in tokens:
        counts.update(traits(t, word_classes))
    return counts


def usual_of(each: list) -> set:
    """The traits at least LABEL_SHARE of a whole table's tokens (its special tokens and bytes aside) have, from each
    token's ``traits``: lower case in an uncased vocabulary, its main script; true of every cluster, they tell nothing
    about one."""
    words = [t for t in each if not t & {SPECIAL, BYTES}]  # andrea-micro's 256 byte ids are no words
    counts: Counter = Counter()
    for t in words:
        counts.update(t)
    return {t for t, c in counts.items() if c >= LABEL_SHARE * len(words)}


def shared_traits(tokens: list[str], usual: set = frozenset(), word_classes: bool = False) -> tuple[Msg, ...]:
    """The traits at least LABEL_SHARE of the tokens have and the table as a whole has not, most telling
    first. A word class says more than the case and script of its words, which are then left out."""
    return _shared(trait_counts(tokens, word_classes), len(tokens), usual)


def _shared(counts: Counter, size: int, usual: set) -> tuple[Msg, ...]:
    """``shared_traits`` from the trait counts of ``size`` tokens."""
    found = [t for t, c in counts.items() if c >= LABEL_SHARE * size and t not in usual]
    if any(isinstance(t, tuple) and t[0] == "class" for t in found):
        found = [t for t in found if t not in {LOWER, CAPITALISED, UPPER} and not (
            isinstance(t, tuple) and t[0] == "script")]
    return tuple(_trait_msg(t) for t in sorted(found, key=lambda t: (_rank(t), str(t))))


def _cluster(cid: int, tokens: list[str], members: np.ndarray, order: np.ndarray, ids: np.ndarray,
             counts: Counter, usual: set) -> Cluster:
    """A Cluster of the rows ``members`` (positions in ``ids``), ``order``: its positions from the most central."""
    return Cluster(cid, int(members.size), _shared(counts, int(members.size), usual),
                   tuple(tokens[m] for m in order[:MEDOIDS]), tuple(int(ids[m]) for m in order[:MEDOIDS]))


def cluster_ids(emb: Embeddings, ids: np.ndarray | None = None, min_size: int | None = None,
                progress: Callable[[float, Msg], None] | None = None, near: np.ndarray | None = None) -> Clustering:
    """Cluster the rows ``ids`` of the token table (default: all) and label each cluster. ``near``: each row's
    CLUSTER_K (or more) nearest by cosine among the rows, when searched already (a map's neighbour graph,
    ``result.ProjectionResult.neighbour_graph``): sliced, not searched again.

    Above EXACT_NEIGHBOURS_MAX rows ``near`` is the map's own graph (UMAP's, cell by cell, positions in ``ids``; so
    it is from ``umap_run.UMAP_PCA_FIRST`` rows when given), and every row is clustered on it (``regions.label_every_row``: no noise); without it the table is refused.
    Every clustering also has its zoom levels (``regions.zoom_levels``): ``levels[8]`` … ``levels[64]``, the
    clusters merged into that many groups, each labelled as a cluster is."""
    ids = np.arange(emb.vocab_size) if ids is None else np.asarray(ids, dtype=np.int64)
    n = ids.size
    # on the map's own graph: above EXACT_NEIGHBOURS_MAX rows, or from UMAP_PCA_FIRST where that graph is UMAP's
    # approximate one (GRAPH_K − 1 columns, not the CLUSTER_K exact neighbours the small path slices)
    large = n > EXACT_NEIGHBOURS_MAX or (near is not None and n > umap_run.UMAP_PCA_FIRST)
    if large and near is None:
        raise QueryError("{n:,} tokens are too many to cluster on exact neighbours here (at most {most:,}): "
                         "cluster a sample (--n 50000)", n=n, most=EXACT_NEIGHBOURS_MAX)
    size = (regions.GRAPH_MIN_CLUSTER if large else min_cluster_size(n)) if min_size is None else int(min_size)
    if n <= max(size, CLUSTER_K):
        raise QueryError("clustering needs more than {k} tokens, got {n}", k=max(size, CLUSTER_K), n=n)
    report = progress or (lambda f, s: None)
    table = emb.token_table
    if large:
        say = Msg("clustering every token on the map's neighbour graph, in the full space")
        report(0.05, say)
        labels = regions.label_every_row(table, ids, np.asarray(near), lambda f: report(0.05 + 0.7 * f, say),
                                         min_size=size)
    else:
        report(0.05, Msg("nearest neighbours of every token in the full space"))
        labels = hdbscan_labels(table[ids], size, near=near)
    report(0.8, Msg("labelling the clusters"))
    tokens = [emb.token(int(i)) for i in ids]
    grown = bool(emb.card.trained)
    each = [traits(t, grown) for t in tokens]  # each token's traits once: the usual ones are counted from them too
    usual = usual_of(each)
    found = [int(c) for c in np.unique(labels) if c >= 0]
    sizes = np.bincount(labels[labels >= 0], minlength=max(found, default=-1) + 1)
    found.sort(key=lambda c: (-int(sizes[c]), c))
    new_id = np.full(sizes.size + 1, NOISE, dtype=np.int64)
    new_id[found] = np.arange(len(found))
    assignment = new_id[labels]  # NOISE (-1) reads new_id's last slot, NOISE
    by_cluster = np.argsort(assignment, kind="stable")
    starts = np.searchsorted(assignment[by_cluster], np.arange(len(found) + 1))
    sums = regions.unit_sums(table, ids, assignment) if found else np.zeros((0, table.shape[1]))
    # the zoom levels' groups first (they need only the sums), so that every centrality is scored in one pass
    grouped = {}  # zoom level → (each cluster's group, each row's group, each group's sum of unit rows)
    if found:
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        for level, group in regions.zoom_levels(sums / np.where(norms > 0, norms, 1)).items():
            weight = np.bincount(group, weights=np.diff(starts))  # rows in each group
            rank = np.empty(weight.size, np.int64)
            rank[np.lexsort((np.arange(weight.size), -weight))] = np.arange(weight.size)
            group = rank[group]  # group 0 the largest, as clusters are numbered
            totals = np.zeros((int(group.max()) + 1, sums.shape[1]))
            np.add.at(totals, group, sums)
            grouped[level] = (group, np.where(assignment >= 0, group[np.maximum(assignment, 0)], NOISE), totals)
    scorings = ([(assignment, sums)] if large else []) + [(of_row, totals) for _g, of_row, totals in grouped.values()]
    scores = regions.central_scores(table, ids, scorings) if found else []
    score = scores.pop(0) if large and found else None
    clusters, counts_of = [], []
    for c in range(len(found)):
        members = by_cluster[starts[c] : starts[c + 1]]
        counts = Counter()
        for m in members:
            counts.update(each[m])
        counts_of.append(counts)
        order = members[medoid_order(table[ids[members]])] if score is None else members[
            np.argsort(-score[members], kind="stable")]
        clusters.append(_cluster(c, tokens, members, order, ids, counts, usual))
    levels, level_of = {}, {}
    for (level, (group, _of_row, _totals)), central in zip(grouped.items(), scores, strict=True):
        level_of[level] = group
        merged = []
        for g in range(int(group.max()) + 1):
            parts = np.flatnonzero(group == g)
            members = np.concatenate([by_cluster[starts[c] : starts[c + 1]] for c in parts])
            counts = sum((counts_of[c] for c in parts), Counter())
            order = members[np.argsort(-central[members], kind="stable")]
            merged.append(_cluster(g, tokens, members, order, ids, counts, usual))
        levels[level] = tuple(merged)
    report(1.0, Msg("done"))
    return Clustering(ids, assignment, tuple(clusters), size, levels, level_of)


MAP_LABELS = 25  # regions labelled on a map: the largest clusters


def map_labels(found: Clustering, coords: np.ndarray, top: int = MAP_LABELS) -> list[tuple[float, float, Cluster]]:
    """Where to write the labels of the ``top`` largest clusters on a map of the same rows (``coords`` (N, 2+),
    row k of ``found.ids``): at each cluster's medoid, a point of the cluster itself (a mean could fall
    between two arms of it)."""
    where = {int(i): k for k, i in enumerate(found.ids)}
    return [(float(coords[where[c.medoid_ids[0]], 0]), float(coords[where[c.medoid_ids[0]], 1]), c)
            for c in found.clusters[:top]]


def zoom_labels(found: Clustering, coords: np.ndarray) -> list[tuple[float, float, Cluster, int, int | None]]:
    """The canvas map's labels by zoom, from ``found``'s nested levels (``regions.ZOOM_LABELS``): at zoom level k
    (2^k times closer than the whole map) the groups of the k-th level, each written at its most central token. A
    group that is the same set of clusters at the next level keeps its one label, so at each zoom exactly one level's
    groups are offered: (x, y, group, the level it is first shown at, the level its parts replace it at or None),
    largest group first."""
    where = {int(i): k for k, i in enumerate(found.ids)}
    out: list[list] = []
    shown: dict[frozenset, int] = {}  # the groups of the level before: their clusters → their place in ``out``
    for k, size in enumerate(sorted(found.levels)):
        of_cluster = found.level_of[size]
        now = {}
        for g, group in enumerate(found.levels[size]):
            members = frozenset(np.flatnonzero(of_cluster == g).tolist())
            if members not in shown:
                at = where[group.medoid_ids[0]]
                out.append([float(coords[at, 0]), float(coords[at, 1]), group, k, None])
            now[members] = shown.get(members, len(out) - 1)
        for members, j in shown.items():
            if members not in now:
                out[j][4] = k
        shown = now
    return [tuple(x) for x in sorted(out, key=lambda x: -x[2].size)]
