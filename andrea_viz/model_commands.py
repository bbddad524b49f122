"""``info``, ``neighbors`` and ``analogy`` for ``python -m andrea_viz``: one model read, and asked."""

from __future__ import annotations

import argparse
import json

from .cli_options import Common, named_tables
from .forward_pass import block_input_formula
from .geometry import METRICS, analogy, neighbours
from .loading import load
from .model import Embeddings


def info_dict(emb: Embeddings) -> dict:
    p = emb.provenance
    return _gguf_facts(emb) | {
        "name": emb.name,
        "format": str(p.format),
        "vocab_size": emb.vocab_size,
        "d_model": emb.d_model,
        "context": emb.context,
        "position_width": None if emb.position_table is None else int(emb.position_table.shape[1]),
        "position_kind": emb.position_kind,
        "position_reason": str(emb.card.position_reason) if emb.card.position_reason else None,
        "position_offset": emb.card.position_offset,
        "block_1_input": block_input_formula(emb),
        "model_class": emb.card.model_class,
        "shared_table": str(emb.card.shared_table) if emb.card.shared_table else None,
        "output": emb.output_kind,
        "params": emb.params,
        "total_params": emb.card.total_params,
        "layers": emb.card.layers,
        "init_std": emb.card.init_std,
        "tokenizer": str(emb.tokenizer.description),
        "notes": [str(n) for n in (*p.assumptions, *p.notes)],
        "warnings": [str(w) for w in p.warnings],
    }


def _gguf_facts(emb: Embeddings) -> dict:
    """A GGUF's context length (from its metadata: RoPE models have no position table) and its token table's stored
    type (Q4_K, F16, …); nothing for other formats."""
    return {k: getattr(emb.card, k) for k in ("context_length", "stored_type") if getattr(emb.card, k) is not None}


def _cmd_info(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=named_tables(args))
    d = info_dict(emb)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    print(f"{d['name']}  ({d['format']})")
    print(f"  token table     {d['vocab_size']:,} × {d['d_model']:,}  = {d['params']['token']:,} parameters")
    if d["context"] is not None:
        print(f"  position table  {d['context']:,} × {d['position_width']:,}  = {d['params']['position']:,} "
              f"({d['position_kind']})")
    else:
        print(f"  position table  none ({d['position_kind']})")
    if d["position_reason"]:
        print(f"  positions       {d['position_reason']}")
    print(f"  output table    {d['output']}" + (f"  = {d['params']['output']:,}" if d["params"]["output"] else ""))
    print(f"  block 1 input   {d['block_1_input']}")
    if d["shared_table"]:
        print(f"  shared          {d['shared_table']}")
    if d["total_params"]:
        print(f"  whole model     {d['total_params']:,} parameters" + (f", {d['layers']} layers" if d["layers"] else ""))
    print(f"  tokenizer       {d['tokenizer']}")
    for n in d["notes"]:
        print(f"  note: {n}")
    for w in d["warnings"]:
        print(f"  warning: {w}")
    return 0


def _cmd_neighbors(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=named_tables(args))
    q, found = neighbours(emb, args.word, k=args.k, metric=args.metric)
    if args.json:
        print(json.dumps({
            "query": q.text,
            "query_ids": list(q.ids),
            "neighbors": [{"id": n.id, "token": n.token, "score": round(n.score, 6)} for n in found],
        }, indent=2, ensure_ascii=False))
        return 0
    print(f"{q.text}  ids {list(q.ids)}  ({args.metric})" + (f"\n  {q.note}" if q.note else ""))
    for rank, n in enumerate(found, 1):
        print(f"  {rank:>3}. {n.token:<20} #{n.id:<7} {n.score: .4f}")
    return 0


def _cmd_analogy(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=named_tables(args))
    inputs, found = analogy(emb, args.a, args.b, args.c, k=args.k)
    if args.json:
        print(json.dumps({
            "query": f"{args.a} - {args.b} + {args.c}",
            "inputs": [{"text": q.text, "ids": list(q.ids)} for q in inputs],
            "answers": [{"id": n.id, "token": n.token, "score": round(n.score, 6)} for n in found],
        }, indent=2, ensure_ascii=False))
        return 0
    print(f"{args.a} − {args.b} + {args.c} ≈")
    for rank, n in enumerate(found, 1):
        print(f"  {rank:>3}. {n.token:<20} #{n.id:<7} {n.score: .4f}")
    return 0


def add_commands(sub, common: Common) -> None:
    p = sub.add_parser("info", help="what a model's embedding layer holds", parents=[common.tokenizer, common.tables])
    p.add_argument("source", help="built-in name (minilm-l6, andrea-120m-init, ...) or a checkpoint path")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_info)

    p = sub.add_parser("neighbors", help="the k nearest tokens of a word or #id",
                       parents=[common.tokenizer, common.json, common.tables])
    p.add_argument("source")
    p.add_argument("word", help="a word, or a token id written #42")
    p.add_argument("-k", type=int, default=10, help="how many neighbours (default 10)")
    p.add_argument("--metric", choices=METRICS, default="cosine")
    p.set_defaults(func=_cmd_neighbors)

    p = sub.add_parser("analogy", help="A - B + C (king man woman), the inputs excluded",
                       parents=[common.tokenizer, common.json, common.tables])
    p.add_argument("source")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("c")
    p.add_argument("-k", type=int, default=10)
    p.set_defaults(func=_cmd_analogy)
