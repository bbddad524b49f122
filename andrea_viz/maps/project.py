"""``project_model``: a map of a model's token table, made (sample, method, trust) or read from the map cache."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable

import numpy as np

from ..errors import QueryError
from ..i18n import Msg
from ..model import Embeddings, gather_rows
from .cache import cache_dir, fingerprint, load_map, map_key, save_map
from .layout import Projection, map_graph
from .methods import check_map_size, method_of, settings_for
from .result import ProjectionResult
from .sample import DEFAULT_SAMPLE, Sample, build_sample, sample_size
from .trust import TRUST_SAMPLE, trust_scores


def _note_json(note: Msg | None) -> dict | None:
    return None if note is None else {"msgid": note.msgid, "params": note.params}


def _note_of(saved: dict | None) -> Msg | None:
    return None if not saved else Msg(str(saved["msgid"]), **dict(saved.get("params") or {}))


def _import_ahead(module: str) -> None:
    """Start importing ``module`` in a daemon thread (scikit-learn: about 1.2 s of a fresh process), so that it
    loads while the table is fingerprinted (the hash lets go of the interpreter's lock); whoever imports it next
    finds it loaded or waits for it. A failure is left to that next import to report."""
    import importlib
    import sys

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    if module not in sys.modules:
        threading.Thread(target=load, name=f"import {module}", daemon=True).start()


def project_model(emb: Embeddings, method: str = "pca", n: int | str = DEFAULT_SAMPLE, include: tuple[str, ...] = (),
                  seed: int = 0, dims: int = 2, axes: tuple[int, ...] | None = None, perplexity: float = 30.0,
                  n_iter: int = 500, progress: Callable[[float, Msg], None] | None = None) -> ProjectionResult:
    """Sample the token table (``n="all"``: every row), project it, and score how much of each
    neighbourhood survives (on a seeded sample of 5,000 points for larger maps).

    The map is kept on disk (``maps.cache``) under the model's fingerprint and the settings this method reads;
    the same map asked for again, in this process or another, is read from there (``from_cache``)."""
    m = method_of(method)
    if dims not in (2, 3):
        raise QueryError("dims must be 2 or 3, got {dims}", dims=dims)
    check_map_size(method, sample_size(emb, n))
    given = {"axes": tuple(axes) if axes else tuple(range(dims)), "perplexity": perplexity, "n_iter": n_iter}
    used = settings_for(method, n=n, include=include, seed=seed, dims=dims, **given)
    key = map_key(fingerprint(emb), method, used) if cache_dir() is not None else None
    kept = load_map(key, emb.vocab_size) if key else None
    if key and kept is None:  # every method runs scikit-learn's PCA (UMAP and t-SNE on its 50 components); not
        _import_ahead("sklearn.decomposition")  # for a map read from the cache (its 3 s of imports would be waited on)
    if kept is not None:
        meta = kept["meta"]
        sample = Sample(ids=kept["ids"], groups=tuple(str(g) for g in kept["groups"]))
        ratio = kept["ratio"] if kept["ratio"].size else None
        proj = Projection(kept["coords"], method, ratio, float(meta["seconds"]), _note_of(meta.get("note")))
        if progress:
            progress(1.0, Msg("read from the map cache"))
        result = ProjectionResult(sample, [emb.token(i) for i in sample.ids], proj, kept["trust"],
                                  float(meta["trust_mean"]), used, from_cache=True)
        if kept["graph"].size:  # a large map's approximate graph, kept for the labels' clusters
            result.kept["approximate_ids"] = kept["graph"].astype(np.int64)
        return result
    sample = build_sample(emb, n, include, seed)
    X = gather_rows(emb.token_table, sample.ids)  # in blocks: other pages keep the interpreter's lock meanwhile
    proj = m.run(X, dims=dims, seed=seed, progress=progress, **{k: given[k] for k in m.uses})
    if progress:
        progress(1.0, Msg("scoring how many neighbours each point keeps"))
    graph = proj.graph if proj.graph is not None or len(sample) > TRUST_SAMPLE else map_graph(X)
    trust, mean = trust_scores(X, proj.coords, seed=seed, graph=graph)
    if key:
        try:
            meta = {"method": method, "seconds": proj.seconds, "trust_mean": mean, "note": _note_json(proj.note)}
            json.dumps(meta)
        except TypeError:  # a note whose parameters are not plain values: not kept
            meta = None
        if meta is not None:
            save_map(key, meta, sample.ids, sample.groups, proj.coords, trust, proj.explained_variance_ratio,
                     graph=proj.graph.ids if proj.approximate else None)
    result = ProjectionResult(sample, [emb.token(i) for i in sample.ids], proj, trust, mean, used)
    if graph is not None and proj.approximate:
        result.kept["approximate_ids"] = graph.ids
    elif graph is not None:
        result.kept["graph"] = graph
    return result
