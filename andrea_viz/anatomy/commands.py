"""``undertrained``, ``dims`` and ``hubs`` for ``python -m andrea_viz`` (``bench-anatomy`` is a row of the bench
table, andrea_viz/bench/commands.py)."""

from __future__ import annotations

import argparse
import json

import numpy as np

from ..cli_options import Common, whole
from ..errors import QueryError
from ..i18n import Msg
from ..model import Embeddings
from . import dims, hubs, reference, undertrained
from .truth import grow_truth
from ..loading import load


def reference_of(emb: Embeddings, path: str | None) -> reference.ReferenceSet:
    return reference.from_file(path, emb.vocab_size) if path else reference.automatic(emb.tokenizer, emb.vocab_size)


def undertrained_report(emb: Embeddings, top: int = 20, reference_file: str | None = None) -> dict:
    """What ``undertrained --json`` prints: the indicator, the reference set, the top ``top`` ids ranked."""
    ref = reference_of(emb, reference_file)
    r = undertrained.rank(emb, ref)
    truth = grow_truth(emb)
    norms = emb.row_norms
    ranked = []
    for i in r.order[:max(0, top)]:
        i = int(i)
        row = {"id": i, "token": emb.token(i), "score": round(float(r.scores[i]), 6),
               "flagged": bool(r.scores[i] >= r.threshold), "in_reference": i in ref.reasons,
               "why": str(r.describe(i, norms))}
        if truth is not None:
            row["never_in_batch"] = bool(truth.never_in_batch[i])
            if truth.counts is not None:
                row["corpus_count"] = int(truth.counts[i])
        ranked.append(row)
    out = {"model": emb.name, "indicator": r.indicator, "reference_ids": list(ref.ids),
           "reference": str(ref.note), "threshold": round(r.threshold, 6), "threshold_why": str(r.why),
           "flagged": int(r.flagged.size), "ranked": ranked, "auroc": None}
    if truth is not None:
        keep = np.ones(emb.vocab_size, bool)
        keep[list(ref.ids)] = False
        out["auroc"] = undertrained.auroc(r.scores, truth.never_in_batch, keep)
        out["auroc_of"] = str(Msg("the {n:,} ids never in a batch of the run, outside the reference set",
                                  n=int(truth.never_in_batch[keep].sum())))
    return out


def dims_report(emb: Embeddings, top: int = 10) -> dict:
    st = dims.stats_of(emb)
    return {"model": emb.name, "avg_cosine": st.avg_cosine,
            "share_of_top": {str(k): st.share(k) for k in (1, 2, 3, 5, 10) if k <= emb.d_model},
            "dims": [{"dim": int(k), "mean": float(st.mean[k]), "std": float(st.std[k]),
                      "kurtosis": float(st.kurtosis[k]), "part": float(st.contribution[k])} for k in st.top(top)]}


def hubs_report(emb: Embeddings, k: int = 10, top: int = 20, sample: int | None = None, seed: int = 0) -> dict:
    if sample is None and not hubs.fits_exact(emb.vocab_size, emb.d_model):
        raise QueryError("an exact pass over all {V:,} rows ({cost:.1e} multiply-adds) is too large for this machine; "
                         "give --sample N for a seeded sample of N rows (20000, say)", V=emb.vocab_size,
                         cost=hubs.exact_cost(emb.vocab_size, emb.d_model))
    h = hubs.hubs(emb.token_table, k, sample=sample, seed=seed)
    return {"model": emb.name, "k": k, "exact": h.exact, "rows": int(h.ids.size), "seed": None if h.exact else seed,
            "skewness": h.skewness, "never_a_neighbour": h.never,
            "hubs": [{"id": i, "token": emb.token(i), "count": c} for i, c in h.top(top)]}


def _cmd_undertrained(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer)
    d = undertrained_report(emb, args.top, args.reference)
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False))
        return 0
    print(f"{d['model']}: indicator {d['indicator']}; {d['reference']}")
    print(f"threshold {d['threshold']:.4f} ({d['threshold_why']}); {d['flagged']:,} ids at or above it")
    for rank, row in enumerate(d["ranked"], 1):
        extra = f"  corpus {row['corpus_count']:,}" if "corpus_count" in row else ""
        print(f"  {rank:>4}. {row['token']:<20} #{row['id']:<7} {row['score']: .4f}{'  *' if row['flagged'] else ''}"
              f"{extra}  {row['why']}")
    if d["auroc"] is not None:
        print(f"AUROC {d['auroc']:.4f} on {d['auroc_of']}")
    return 0


def _cmd_dims(args: argparse.Namespace) -> int:
    d = dims_report(load(args.source, tokenizer=args.tokenizer), args.top)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    print(f"{d['model']}: average cosine {d['avg_cosine']:+.4f}; share of it in the top k dimensions: "
          + ", ".join(f"{k}: {v:.0%}" for k, v in d["share_of_top"].items()))
    for row in d["dims"]:
        print(f"  dim {row['dim']:>5}  mean {row['mean']:+.4f}  std {row['std']:.4f}  kurtosis {row['kurtosis']:7.2f}"
              f"  part {row['part']:+.5f}")
    return 0


def _cmd_hubs(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer)
    if args.k < 1:
        raise QueryError("k must be a whole number ≥ 1, got '{k}'", k=args.k)
    d = hubs_report(emb, args.k, args.top, args.sample, args.seed)
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False))
        return 0
    print(f"{d['model']}: k = {d['k']}, {'exact over' if d['exact'] else 'a seeded sample of'} {d['rows']:,} rows; "
          f"skewness {d['skewness']:.2f}, {d['never_a_neighbour']:,} rows in no list")
    for rank, row in enumerate(d["hubs"], 1):
        print(f"  {rank:>3}. {row['token']:<20} #{row['id']:<7} {row['count']:,}")
    return 0


def add_commands(sub, common: Common) -> None:
    p = sub.add_parser("undertrained", help="rows that never trained, by Magikarp's indicators, ranked",
                       parents=[common.tokenizer, common.json])
    p.add_argument("source")
    p.add_argument("--top", type=whole, default=20, help="how many ids to list (V lists every id)")
    p.add_argument("--reference", metavar="FILE", help="ids known to be unused, one a line (replaces the automatic set)")
    p.set_defaults(func=_cmd_undertrained)

    p = sub.add_parser("dims", help="per-dimension mean, std, kurtosis and share of the average cosine",
                       parents=[common.tokenizer, common.json])
    p.add_argument("source")
    p.add_argument("--top", type=whole, default=10, help="how many dimensions to list, largest part first")
    p.set_defaults(func=_cmd_dims)

    p = sub.add_parser("hubs", help="tokens in the most k-nearest lists (k-occurrence, exact and blocked)",
                       parents=[common.tokenizer, common.json])
    p.add_argument("source")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--top", type=whole, default=20)
    p.add_argument("--sample", type=whole, help="a seeded sample of this many rows instead of the whole table")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_hubs)
