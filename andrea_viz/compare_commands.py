"""``drift``, ``audit`` and ``precision`` for ``python -m andrea_viz``: a table against another of the same
vocabulary (a later checkpoint, a fine-tune, the same table at a lower precision)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from .audit import audit_checkpoints, audit_report
from .cli_options import Common, named_tables
from .compare import ALIGNMENTS, drift
from .errors import QueryError
from .i18n import DEFAULT_LANGUAGE, LANGUAGES
from .loading import load
from .precision import PRECISIONS, compare_precisions, result_json


def _cmd_drift(args: argparse.Namespace) -> int:
    a = load(args.a, tokenizer=args.tokenizer, tables=named_tables(args))
    b = load(args.b, tokenizer=args.tokenizer, tables=named_tables(args))
    if a.token_table.shape != b.token_table.shape:
        raise QueryError("the two tables must have the same vocabulary and width: {a} is {a_v:,} × {a_d:,}, {b} is "
                         "{b_v:,} × {b_d:,}", a=a.name, a_v=a.vocab_size, a_d=a.d_model, b=b.name, b_v=b.vocab_size,
                         b_d=b.d_model)
    r = drift(a.token_table, b.token_table, align=args.align, k=args.k)
    order = r.most_moved(args.top)
    d = {"a": args.a, "b": args.b, "vocab_size": a.vocab_size, "d_model": a.d_model, "aligned": r.aligned,
         "median_drift": r.median_drift, "max_drift": r.max_drift, "mean_overlap": r.mean_overlap,
         "overlap_tokens": int(r.overlap_ids.size), "k": r.k, "seconds": round(r.seconds, 2),
         "tokens": [{"id": int(i), "token": b.token(int(i)), "drift": float(r.drift[i]),
                     "overlap": None if np.isnan(r.overlap[i]) else float(r.overlap[i])} for i in order]}
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False))
        return 0
    print(f"{a.name} → {b.name}: {a.vocab_size:,} × {a.d_model}, aligned: {r.aligned}; median drift {r.median_drift:.4f}, "
          f"max {r.max_drift:.4f}; mean overlap of the {r.k} nearest {r.mean_overlap:.2f} (on {r.overlap_ids.size:,} tokens); "
          f"{r.seconds:.1f} s")
    for t in d["tokens"]:
        ov = "—" if t["overlap"] is None else f"{t['overlap']:.1f}"
        print(f"  {t['token']!r:<24} #{t['id']:<7} drift {t['drift']:.4f}  overlap {ov}")
    return 0


def _cmd_audit(args: argparse.Namespace) -> int:
    result = audit_checkpoints(args.base, args.tuned, init=args.step0)
    if args.json:  # one JSON object on stdout; evidence sentences in English
        print(json.dumps(result, indent=2, ensure_ascii=False, default=str))
        return 0
    print("\n".join(line.render(args.lang) for line in audit_report(result)))
    return 0


def _cmd_precision(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=named_tables(args))
    dtypes = args.dtypes if args.dtypes is not None else ([] if args.against else list(PRECISIONS))
    against = {Path(f).name: load(f) for f in args.against or ()}

    def progress(label: str, f: float) -> None:
        if not args.json:
            print(f"  {label:<12} {f:4.0%}", file=sys.stderr, end="\r" if f < 1 else "\n", flush=True)

    results = compare_precisions(emb, dtypes, against, k=args.k, progress=progress)
    d = {name: result_json(emb, r, args.worst) for name, r in results.items()}
    if args.json:
        print(json.dumps(d, indent=2, ensure_ascii=False))
        return 0
    print(f"{emb.name}: {emb.vocab_size:,} × {emb.d_model}, each token's {args.k} nearest by cosine against float32")
    for name, r in results.items():
        pairs = ", ".join(f"cos({p.replace('/', ', ')}) {a:+.3f} → {b:+.3f}" for p, (a, b) in r.pairs.items())
        print(f"  {name:<12} Jaccard@{args.k} median {r.median:.2f}, 5th percentile {r.p05:.2f}; {r.seconds:.1f} s"
              + (f"; {pairs}" if pairs else ""))
        worst = ", ".join(f"{emb.token(int(i))!r} {r.jaccard[i]:.2f}" for i in r.worst(8))
        print(f"  {'':<12} lost most: {worst}")
    return 0


def add_commands(sub, common: Common) -> None:
    p = sub.add_parser("drift", help="how far each token moved between two checkpoints of one vocabulary",
                       parents=[common.tokenizer, common.json, common.tables])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--align", choices=ALIGNMENTS, default="procrustes",
                   help="procrustes: rotate A onto B first (two runs); none: compare in place (snapshots of one run)")
    p.add_argument("-k", type=int, default=10, help="neighbours compared per token (default 10)")
    p.add_argument("--top", type=int, default=20, help="how many tokens to list, largest drift first")
    p.set_defaults(func=_cmd_drift)

    p = sub.add_parser("audit", help="a fine-tune against its base: rows added (and how each was initialised), removed, "
                       "renamed, reserved rows reused, padding rows, ids without a row, tie state")
    p.add_argument("base", help="the base checkpoint (built-in name or path)")
    p.add_argument("tuned", help="the fine-tuned checkpoint")
    p.add_argument("--step0", help="the tuned model right after its resize, before training: says which rows moved")
    p.add_argument("--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="the report's language")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_audit)

    p = sub.add_parser("precision", help="what bf16, fp16, int8, Q8_0, Q4_0 (or a GGUF file) keep of each token's "
                                         "nearest neighbours", parents=[common.tokenizer, common.json, common.tables])
    p.add_argument("source", help="the model at full precision (its float32 table is the reference)")
    p.add_argument("--dtypes", nargs="*", metavar="DTYPE", help="bf16 fp16 int8 q8_0 q4_0 (default: all five, or none "
                   "when --against is given)")
    p.add_argument("--against", action="append", metavar="FILE.gguf",
                   help="the same model read from another file (a GGUF of any type); repeat for several")
    p.add_argument("-k", type=int, default=10, help="neighbours compared per token (default 10)")
    p.add_argument("--worst", type=int, default=100, help="how many of the tokens that lost most to list")
    p.set_defaults(func=_cmd_precision)
