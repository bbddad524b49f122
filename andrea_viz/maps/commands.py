"""``project`` and ``clusters`` for ``python -m andrea_viz``: a map of the token table, and its regions."""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import quality as map_quality
from ..cli_options import Common, named_tables
from .clusters import NOISE, cluster_ids
from ..errors import QueryError
from ..i18n import DEFAULT_LANGUAGE, LANGUAGES
from ..loading import load
from .cache import cache_dir
from .export import coordinates_csv
from .methods import METHODS
from .project import project_model
from .sample import ALL, build_sample, sample_size
from .trust import TRUST_SAMPLE


def _cmd_project(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=named_tables(args))
    n = ALL if args.n == ALL else _whole_number(args.n, "--n")

    def progress(f: float, text) -> None:
        print(f"  {f:4.0%}  {text}", file=sys.stderr, flush=True)

    t = time.perf_counter()
    r = project_model(emb, args.method, n=n, include=tuple(args.include or ()), seed=args.seed, dims=args.dims,
                      progress=progress)
    columns = None
    if args.labels:  # each point's cluster, found on the same rows in d dimensions, and its label
        found = cluster_ids(emb, r.sample.ids, progress=progress, near=r.graph_ids(emb))  # the map's own graph
        labels = [c.label(args.lang) for c in found.clusters]
        columns = {"cluster": [int(a) for a in found.assignment],
                   "label": [labels[a] if a != NOISE else "" for a in found.assignment]}
    quality = None
    if args.json or args.quality or args.full_quality:  # seconds of work: a map read from the cache is not kept waiting
        progress(0.0, "measuring the map's quality (T@10, C@10, triplets, kept)")
        quality = map_quality.card(emb.token_table[r.sample.ids], r.projection.coords, seed=args.seed,
                                   full=args.full_quality)  # over 5,000 points: the estimate unless asked
    elapsed = time.perf_counter() - t
    out = coordinates_csv(r.projection.coords, r.tokens, r.sample.ids, r.sample.groups, sep="\t", trust=r.trust,
                          columns=columns)
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(out)
    except OSError as exc:
        raise QueryError("cannot write {path}: {reason}", path=args.out, reason=exc.strerror or str(exc)) from exc
    if args.json:  # one JSON object on stdout
        ratio = r.projection.explained_variance_ratio
        print(json.dumps({"points": len(r.sample), "method": args.method, "dims": args.dims, "out": args.out,
                          "seconds": elapsed, "map_seconds": r.projection.seconds, "from_cache": r.from_cache,
                          "trust_mean": r.trust_mean, "explained_variance": None if ratio is None else
                          [float(v) for v in ratio], "quality": quality.as_json()}, indent=2))
        return 0
    print(f"wrote {len(r.sample):,} points ({args.method}, {args.dims}-D) to {args.out} in {elapsed:.2f} s")
    if r.from_cache:
        print(f"read from the map cache in {cache_dir()} (computed in {r.projection.seconds:.2f} s the first time)")
    if r.projection.explained_variance_ratio is not None:
        ev = ", ".join(f"PC{j + 1} {v:.2%}" for j, v in enumerate(r.projection.explained_variance_ratio))
        print(f"explained variance: {ev}")
    scored = "" if len(r.sample) <= TRUST_SAMPLE else f" (scored on a seeded sample of {TRUST_SAMPLE:,} points; the " \
        "other rows' trust column is empty)"
    print(f"trust (share of each point's 10 nearest kept): {r.trust_mean:.1%}{scored}")
    if quality is None:
        print("(--quality adds the map's quality card: T@10, C@10, triplet accuracy, 10 nearest kept)")
    for name, sc in (("every point", quality and quality.full),
                     (f"a seeded sample of {map_quality.SAMPLE_ROWS:,}", quality and quality.sample)):
        if sc is not None:
            print(f"quality on {name}: T@{quality.k} {sc.trustworthiness:.3f}, C@{quality.k} {sc.continuity:.3f}, "
                  f"triplet accuracy {sc.triplets:.3f}, {quality.k} nearest kept {sc.kept:.1%}")
    if quality is not None and quality.full is None:
        print(f"(over {map_quality.SAMPLE_ROWS:,} points the card is estimated on a sample: --full-quality measures "
              "every point)")
    if columns:
        print(f"clusters: {len(labels):,} (the cluster and label columns; -1 and an empty label: noise)")
    return 0


def _cmd_clusters(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=named_tables(args))
    n = ALL if args.n == ALL else _whole_number(args.n, "--n")
    ids = None if sample_size(emb, n) >= emb.vocab_size else build_sample(emb, n, seed=args.seed).ids
    t = time.perf_counter()
    found = cluster_ids(emb, ids, progress=None if args.json else lambda f, s: print(
        f"  {f:4.0%}  {s}", file=sys.stderr, flush=True))
    if args.json:
        print(json.dumps(found.as_json(args.lang), ensure_ascii=False))
        return 0
    noise = int((found.assignment == NOISE).sum())
    print(f"{len(found.clusters):,} clusters of {found.ids.size:,} tokens (HDBSCAN, smallest {found.min_cluster_size}; "
          f"noise {noise:,}) in {time.perf_counter() - t:.1f} s")
    for c in found.clusters:
        print(f"{c.id:>5}  {c.size:>6,}  {c.label(args.lang)}")
        print(f"{'':>14}{'  '.join(c.medoids)}")
    return 0


def _whole_number(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError as exc:
        raise QueryError("{name} must be a whole number or all, got '{text}'", name=name, text=text) from exc


def add_commands(sub, common: Common) -> None:
    p = sub.add_parser("project", help="PCA, t-SNE or UMAP coordinates of tokens, as a TSV file with each point's trust",
                       parents=[common.tokenizer, common.tables])
    p.add_argument("source")
    p.add_argument("--method", choices=METHODS, default="pca")
    p.add_argument("--n", default="5000", help="tokens in the sample (default 5000), or all")
    p.add_argument("--dims", type=int, choices=(2, 3), default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--include", nargs="*", metavar="WORD", help="words always in the sample")
    p.add_argument("--out", required=True, help="the .tsv file to write: id, token, group, coordinates, trust")
    p.add_argument("--labels", action="store_true", help="add each point's cluster (HDBSCAN in d dimensions) and its label")
    p.add_argument("--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="the labels' language")
    p.add_argument("--json", action="store_true", help="print one JSON object: the map's figures and its quality card")
    p.add_argument("--quality", action="store_true", help="measure the map's quality card (always in --json): "
                                                           "T@10, C@10, triplet accuracy, the 10 nearest kept")
    p.add_argument("--full-quality", action="store_true", help="the quality card over every point (above 5,000 points the "
                                                                 "default is a seeded 5,000-point estimate)")
    p.set_defaults(func=_cmd_project)

    p = sub.add_parser("clusters", help="regions of the token table found in its d dimensions (HDBSCAN), each "
                                        "labelled by what its tokens share, with its 10 medoid tokens",
                       parents=[common.tokenizer, common.tables])
    p.add_argument("source")
    p.add_argument("--n", default="all", help="tokens to cluster: all (default) or a sample of this many")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed")
    p.add_argument("--json", action="store_true", help="clusters [{id, size, label, medoids}] and assignment "
                                                       "{token id: cluster id, -1 for noise}")
    p.add_argument("--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="the labels' language")
    p.set_defaults(func=_cmd_clusters)
