"""``python -m andrea_viz``: the library from a shell.

Bad input ends with exit code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from .anatomy.commands import add_parsers as add_anatomy
from .audit import audit_checkpoints, audit_report
from . import map_quality
from .bench import audit as bench_audit
from .bench import classroom
from .bench import drift as bench_drift
from .bench import forward as bench_forward
from .bench import geometry as bench_geometry
from .bench import gpu as bench_gpu
from .bench import grow as bench_grow
from .bench import load as bench_load
from .bench import map_compute as bench_map
from .bench import map_methods as bench_map_methods
from .bench import map_view as bench_map_view
from .bench import memory as bench_memory
from .bench import precision as bench_precision
from .bench.forward import DTYPES
from .catalogs import update as update_catalogs
from .compare import ALIGNMENTS, drift
from .forward_pass import block_input_formula
from .errors import CheckpointError, QueryError
from .family import CONTEXT, FAMILY
from .grow import grow_json, train
from .grow import tying
from .grow.corpus import CORPUS_LANGUAGES
from .i18n import DEFAULT_LANGUAGE, LANGUAGES
from .grow.ship import keep_final_weights_only
from .grow.trainer import DEFAULT_PRESET, PRESETS, read_corpus_file
from .precision import PRECISIONS, compare_precisions, result_json
from .map_cache import cache_dir
from .projection import ALL, METHODS, TRUST_SAMPLE, build_sample, coordinates_csv, project_model, sample_size
from .clusters import NOISE, cluster_ids
from .geometry import METRICS, analogy, neighbours
from .loading import load
from .model import Embeddings
from .tokenizer import TOKENIZER_HELP




class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse's default prints usage too)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


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
        "position_reason": str(emb.card["position_reason"]) if emb.card.get("position_reason") else None,
        "position_offset": emb.card.get("position_offset"),
        "block_1_input": block_input_formula(emb),
        "model_class": emb.card.get("model_class"),
        "shared_table": str(emb.card["shared_table"]) if emb.card.get("shared_table") else None,
        "output": emb.output_kind,
        "params": emb.params,
        "total_params": emb.card.get("total_params"),
        "layers": emb.card.get("layers"),
        "init_std": emb.card.get("init_std"),
        "tokenizer": str(emb.tokenizer.description),
        "notes": [str(n) for n in (*p.assumptions, *p.notes)],
        "warnings": [str(w) for w in p.warnings],
    }


def _gguf_facts(emb: Embeddings) -> dict:
    """A GGUF's context length (from its metadata: RoPE models have no position table) and its token table's stored
    type (Q4_K, F16, …); nothing for other formats."""
    return {k: emb.card[k] for k in ("context_length", "stored_type") if k in emb.card}


def _cmd_info(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=_named_tables(args))
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
    emb = load(args.source, tokenizer=args.tokenizer, tables=_named_tables(args))
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
    emb = load(args.source, tokenizer=args.tokenizer, tables=_named_tables(args))
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


def _cmd_bench_map(args: argparse.Namespace) -> int:
    if args.methods:  # the methods side by side instead of the UMAP map's timings
        bench_map_methods.run(tables=tuple(args.tables), full=True if args.full_quality else None)
        return 0
    bench_map.run(args.repeats, not args.no_big)
    if not args.no_browser:  # the browser half in the same run: the renderers side by side
        bench_map_view.run(sizes=tuple(args.sizes))
    return 0


def _cmd_project(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=_named_tables(args))
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
    for name, sc in (("every point", quality.full), (f"a seeded sample of {map_quality.SAMPLE_ROWS:,}", quality.sample)):
        if sc is not None:
            print(f"quality on {name}: T@{quality.k} {sc.trustworthiness:.3f}, C@{quality.k} {sc.continuity:.3f}, "
                  f"triplet accuracy {sc.triplets:.3f}, {quality.k} nearest kept {sc.kept:.1%}")
    if quality.full is None:
        print(f"(over {map_quality.SAMPLE_ROWS:,} points the card is estimated on a sample: --full-quality measures "
              "every point)")
    if columns:
        print(f"clusters: {len(labels):,} (the cluster and label columns; -1 and an empty label: noise)")
    return 0


def _cmd_clusters(args: argparse.Namespace) -> int:
    emb = load(args.source, tokenizer=args.tokenizer, tables=_named_tables(args))
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


def _cmd_drift(args: argparse.Namespace) -> int:
    a = load(args.a, tokenizer=args.tokenizer, tables=_named_tables(args))
    b = load(args.b, tokenizer=args.tokenizer, tables=_named_tables(args))
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
    emb = load(args.source, tokenizer=args.tokenizer, tables=_named_tables(args))
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


def _cmd_bench_precision(args: argparse.Namespace) -> int:
    bench_precision.run(repeats=args.repeats, precision=args.dtype)
    return 0


def _cmd_grow(args: argparse.Namespace) -> int:
    corpus = read_corpus_file(args.corpus) if args.corpus else None

    def progress(step: int, steps: int, loss: float) -> None:
        if not args.json and (step == steps or step % max(1, steps // 10) == 0):
            print(f"step {step:>6,} of {steps:,}  loss {loss:.3f}", file=sys.stderr, flush=True)

    r = train(args.out, preset=args.preset, corpus=corpus, steps=args.steps, seed=args.seed, snapshots=args.snapshots,
              progress=progress, tied=args.tied, language=args.language)
    if args.final_only:
        keep_final_weights_only(r)
    d = grow_json(r)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    print(f"{d['preset']}: V = {d['vocab_size']:,}, d = {d['d_model']}, T = {d['context']}, L = {d['layers']}, "
          f"{d['total_params']:,} parameters; {d['steps']:,} steps in {d['seconds']:.1f} s, final loss {d['final_loss']:.3f}")
    print(f"{len(d['snapshots'])} snapshots in {args.out}; {d['unseen_count']:,} ids were never an input")
    return 0


def _cmd_catalogs(args: argparse.Namespace) -> int:
    for lang, (n, done) in update_catalogs().items():
        print(f"{lang}: {n} msgids, {done} translated" + (f", {n - done} to translate" if n > done else ""))
    return 0


def _cmd_bench_pages(args: argparse.Namespace) -> int:
    from .ui.bench_pages import run  # here: it imports Streamlit, which the other commands never need

    run(repeats=args.repeats)
    return 0


def _cmd_bench_map_view(args: argparse.Namespace) -> int:
    bench_map_view.run(sizes=tuple(args.sizes))
    return 0


def _cmd_bench_drift(args: argparse.Namespace) -> int:
    bench_drift.run(repeats=args.repeats)
    return 0


def _cmd_bench_audit(args: argparse.Namespace) -> int:
    bench_audit.run(repeats=args.repeats, grow_steps=args.grow_steps, rows=args.rows, d=args.d, added=args.added,
                    anchors=args.anchors)
    return 0


def _cmd_bench_grow(args: argparse.Namespace) -> int:
    bench_grow.run(repeats=args.repeats)
    return 0


def _cmd_bench_geometry(args: argparse.Namespace) -> int:
    bench_geometry.run(repeats=args.repeats, tsne_points=args.tsne_points, tsne_repeats=args.tsne_repeats, whole=not args.no_whole,
        sklearn_all=not args.no_sklearn_whole)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    if min(args.B, args.T, args.d, args.V, args.repeats) < 1:
        raise QueryError("B, T, d, V and --repeats must all be at least 1")
    bench_forward.run(B=args.B, T=args.T, d=args.d, V=args.V, dtype=args.dtype, repeats=args.repeats, as_json=args.json,
        compile_torch=not args.no_compile)
    return 0


def _cmd_bench_gpu(args: argparse.Namespace) -> int:
    return bench_gpu.gpu_check(repeats=args.repeats)


def _cmd_bench_memory(args: argparse.Namespace) -> int:
    bench_memory.run(gb=args.gb, d=args.d, folder=args.folder)
    return 0


def _cmd_bench_class(args: argparse.Namespace) -> int:
    if args.trainings:
        classroom.run_trainings(steps=args.steps, only=args.only)
        return 0
    if not args.n or min(args.n) < 1:
        raise QueryError("give one or more class sizes of at least 1 learner, e.g. bench-class 5 10 20 30")
    classroom.run(args.n)
    return 0


def _cmd_bench_tying(args: argparse.Namespace) -> int:
    def tick(which: str, step: int, steps: int) -> None:
        if step == steps or step % 100 == 0:
            print(f"  {which}: step {step:,} of {steps:,}", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    r = tying.measure_pair(preset=args.preset, seed=args.seed, steps=args.steps, progress=tick)
    print(f"bench-tying: preset {r['preset']}, seed {r['seed']}, {r['steps']:,} steps each; held-out text: the generator's "
          f"sentences of seed {r['held_out_seed']} ({r['held_out_tokens']:,} tokens); {time.perf_counter() - t0:.0f} s")
    print("| head | parameters | training loss (last 50 steps) | held-out loss | held-out perplexity |")
    print("|---|---|---|---|---|")
    for name in ("untied", "tied"):
        m = r[name]
        print(f"| {name} | {m['params']:,} | {m['train_loss']:.4f} | {m['held_out_loss']:.4f} | {m['held_out_perplexity']:.2f} |")
    print(f"tied / untied held-out loss: {r['tied']['held_out_loss'] / r['untied']['held_out_loss']:.3f}")
    if args.write:
        print(f"kept in {tying.keep_result(r)}")
    return 0


def _cmd_bench_load(args: argparse.Namespace) -> int:
    bench_load.run(repeats=args.repeats, folder=args.folder)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m andrea_viz", description="ANDREA Embedding Explorer from a shell")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("info", help="what a model's embedding layer holds")
    p.add_argument("source", help="built-in name (minilm-l6, andrea-120m-init, ...) or a checkpoint path")
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_cmd_info)

    p = sub.add_parser("neighbors", help="the k nearest tokens of a word or #id")
    p.add_argument("source")
    p.add_argument("word", help="a word, or a token id written #42")
    p.add_argument("-k", type=int, default=10, help="how many neighbours (default 10)")
    p.add_argument("--metric", choices=METRICS, default="cosine")
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_neighbors)

    p = sub.add_parser("analogy", help="A - B + C (king man woman), the inputs excluded")
    p.add_argument("source")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("c")
    p.add_argument("-k", type=int, default=10)
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_analogy)

    p = sub.add_parser("project", help="PCA, t-SNE or UMAP coordinates of tokens, as a TSV file with each point's trust")
    p.add_argument("source")
    p.add_argument("--method", choices=METHODS, default="pca")
    p.add_argument("--n", default="5000", help="tokens in the sample (default 5000), or all")
    p.add_argument("--dims", type=int, choices=(2, 3), default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--include", nargs="*", metavar="WORD", help="words always in the sample")
    p.add_argument("--out", required=True, help="the .tsv file to write: id, token, group, coordinates, trust")
    p.add_argument("--labels", action="store_true", help="add each point's cluster (HDBSCAN in d dimensions) and its label")
    p.add_argument("--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="the labels' language")
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object: the map's figures and its quality card")
    p.add_argument("--full-quality", action="store_true", help="the quality card over every point (above 5,000 points the "
                                                                 "default is a seeded 5,000-point estimate)")
    p.set_defaults(func=_cmd_project)

    p = sub.add_parser("clusters", help="regions of the token table found in its d dimensions (HDBSCAN), each "
                                        "labelled by what its tokens share, with its 10 medoid tokens")
    p.add_argument("source")
    p.add_argument("--n", default="all", help="tokens to cluster: all (default) or a sample of this many")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed")
    p.add_argument("--json", action="store_true", help="clusters [{id, size, label, medoids}] and assignment "
                                                       "{token id: cluster id, -1 for noise}")
    p.add_argument("--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE, help="the labels' language")
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.set_defaults(func=_cmd_clusters)

    p = sub.add_parser("drift", help="how far each token moved between two checkpoints of one vocabulary")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.add_argument("--align", choices=ALIGNMENTS, default="procrustes",
                   help="procrustes: rotate A onto B first (two runs); none: compare in place (snapshots of one run)")
    p.add_argument("-k", type=int, default=10, help="neighbours compared per token (default 10)")
    p.add_argument("--top", type=int, default=20, help="how many tokens to list, largest drift first")
    p.add_argument("--json", action="store_true")
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
                                         "nearest neighbours")
    p.add_argument("source", help="the model at full precision (its float32 table is the reference)")
    p.add_argument("--dtypes", nargs="*", metavar="DTYPE", help="bf16 fp16 int8 q8_0 q4_0 (default: all five, or none "
                   "when --against is given)")
    p.add_argument("--against", action="append", metavar="FILE.gguf",
                   help="the same model read from another file (a GGUF of any type); repeat for several")
    p.add_argument("-k", type=int, default=10, help="neighbours compared per token (default 10)")
    p.add_argument("--worst", type=int, default=100, help="how many of the tokens that lost most to list")
    p.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_precision)

    p = sub.add_parser("bench-precision", help="exact top-10 of every MiniLM row at one precision, beside plain numpy")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--dtype", default="q4_0", help="the precision timed (default q4_0)")
    p.set_defaults(func=_cmd_bench_precision)

    p = sub.add_parser("catalogs", help="bring the translation catalogues (.po) in step with the msgids in the code")
    p.set_defaults(func=_cmd_catalogs)

    p = sub.add_parser("bench-pages", help="every page's warm rerun in AppTest, medians per page and model")
    p.add_argument("--repeats", type=int, default=7)
    p.set_defaults(func=_cmd_bench_pages)

    p = sub.add_parser("bench-map-view", help="the map renderers in headless Chromium: pan fps, hover ms, payload bytes")
    p.add_argument("--sizes", type=int, nargs="+", default=[30_000, 128_256])
    p.set_defaults(func=_cmd_bench_map_view)

    p = sub.add_parser("bench-drift", help="time to compare two 50,257 × 768 tables (Procrustes, drift, overlap)")
    p.add_argument("--repeats", type=int, default=3)
    p.set_defaults(func=_cmd_bench_drift)

    p = sub.add_parser("bench-audit", help="the audit of a 128,256 × 4,096 bf16 table with 1,000 added rows, the "
                       "alignment of 50,000 anchors × 4,096, and held-out cosines of grown runs beside a baseline")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--grow-steps", type=int, default=600, help="steps of the seed-2 micro run (0: skip it)")
    p.add_argument("--rows", type=int, default=bench_audit.V)
    p.add_argument("--d", type=int, default=bench_audit.D)
    p.add_argument("--added", type=int, default=bench_audit.ADDED)
    p.add_argument("--anchors", type=int, default=bench_audit.ANCHORS)
    p.set_defaults(func=_cmd_bench_audit)

    p = sub.add_parser("grow", help="train a small ANDREA and write its snapshots (real ANDREA .bin files)")
    p.add_argument("--preset", choices=sorted(PRESETS), default=DEFAULT_PRESET)
    p.add_argument("--corpus", metavar="FILE", help="a UTF-8 .txt to train on (default: the generated corpus)")
    p.add_argument("--steps", type=int, help="training steps (default: the preset's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--language", choices=CORPUS_LANGUAGES, default=CORPUS_LANGUAGES[0],
                   help="the generated corpus's language, a code as in the app's ?lang= (ignored with --corpus)")
    p.add_argument("--snapshots", type=int, help="how many snapshots, the first and last included (default: the preset's)")
    p.add_argument("--out", required=True, help="the folder to write (emptied first)")
    p.add_argument("--tied", action="store_true", help="one table for input and output (GPT-2's way; ANDREA is untied)")
    p.add_argument("--final-only", action="store_true",
                   help="keep only the first (step 0) and the final snapshot, weights without Adam state (how "
                        "andrea-micro ships)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_grow)

    p = sub.add_parser("bench-grow", help="steps per second and time until cat's neighbours include dog, beside plain torch")
    p.add_argument("--repeats", type=int, default=3)
    p.set_defaults(func=_cmd_bench_grow)

    p = sub.add_parser("bench-geometry", help="medians of neighbour search, PCA and t-SNE (openTSNE vs scikit-learn)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--tsne-points", type=int, default=5000)
    p.add_argument("--tsne-repeats", type=int, default=3)
    p.add_argument("--no-whole", action="store_true", help="skip the whole-table maps (UMAP, openTSNE, scikit-learn)")
    p.add_argument("--no-sklearn-whole", action="store_true", help="skip scikit-learn's t-SNE of the whole table (minutes)")
    p.set_defaults(func=_cmd_bench_geometry)

    p = sub.add_parser("bench-map", help="the whole-table UMAP map of MiniLM and a 128,256 × 4,096 bf16 table: cold, "
                                         "code cached and map cached, each a fresh process; trustworthiness; then the "
                                         "renderers in headless Chromium (bench-map-view)")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--no-big", action="store_true", help="MiniLM only")
    p.add_argument("--no-browser", action="store_true", help="the compute half only (no headless Chromium)")
    p.add_argument("--sizes", type=int, nargs="+", default=[30_000, 128_256], help="points of the browser half's maps")
    p.add_argument("--methods", action="store_true", help="PCA, UMAP, openTSNE FFT, PaCMAP and TriMap side by side: "
                                                          "wall time, T@10, C@10, triplet accuracy, kNN class accuracy")
    p.add_argument("--tables", nargs="+", default=list(bench_map_methods.TABLES),
                   help="with --methods: built-in tables, NAME:ROWS for a seeded sample of one")
    p.add_argument("--full-quality", action="store_true", help="with --methods: every card over every point")
    p.set_defaults(func=_cmd_bench_map)

    p = sub.add_parser("bench", help="the forward pass on every backend and torch, side by side")
    p.add_argument("--B", type=int, default=8)
    p.add_argument("--T", type=int, default=CONTEXT)
    p.add_argument("--d", type=int, default=FAMILY["ANDREA-120M"].d)
    p.add_argument("--V", type=int, default=FAMILY["ANDREA-120M"].V)
    p.add_argument("--dtype", choices=DTYPES, default="float32")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile (it takes a while to compile)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("bench-gpu", help="the GPU check: build the CUDA kernel, compare it with the reference, benchmark it")
    p.add_argument("--repeats", type=int, default=50)
    p.set_defaults(func=_cmd_bench_gpu)

    p = sub.add_parser("bench-memory", help="peak memory of a large table used as the pages use it, against its size")
    p.add_argument("--gb", type=float, default=4.0, help="size of the float32 table (default 4)")
    p.add_argument("-d", type=int, default=4096, help="its width (default 4,096)")
    p.add_argument("--folder", help="where to write it (default: the temporary folder)")
    p.set_defaults(func=_cmd_bench_memory)

    p = sub.add_parser("bench-tying", help="tied against untied: two grown ANDREAs that differ only in the head, "
                       "their training and held-out losses side by side")
    p.add_argument("--preset", choices=list(PRESETS), default=DEFAULT_PRESET)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, help="training steps of each run (default: the preset's)")
    p.add_argument("--write", action="store_true", help="keep the figures for the Lesson (andrea_viz/data/tying.json)")
    p.set_defaults(func=_cmd_bench_tying)
    p = sub.add_parser("bench-class", help="N learners in one Chromium on one server: p50/p95 page times, peak memory")
    p.add_argument("n", type=int, nargs="*", help="class sizes, each on a fresh server (e.g. 5 10 20 30)")
    p.add_argument("--trainings", action="store_true",
                   help="instead: three watched trainings, the settings before issue 22 against today's")
    p.add_argument("--steps", type=int, default=600, help="steps of each training with --trainings (default 600)")
    p.add_argument("--only", choices=["before", "gc", "today"], help="with --trainings: one row of settings only")
    p.set_defaults(func=_cmd_bench_class)

    p = sub.add_parser("bench-load", help="time and peak memory of info, neighbors, a PCA and a warm query on a "
                       "Llama-3-8B-shaped folder and a Gemma-3-shaped table, beside a plain safetensors read")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--folder", help="where to write the test files (default: the system temp folder)")
    p.set_defaults(func=_cmd_bench_load)

    add_anatomy(sub, TOKENIZER_HELP)
    for name in NAMED_TABLE_COMMANDS:
        add_table_options(sub.choices[name])
    return parser


NAMED_TABLE_COMMANDS = ("info", "neighbors", "analogy", "project", "clusters", "drift", "precision")  # read via _named_tables


def add_table_options(p: argparse.ArgumentParser) -> None:
    """--table KEY (and --position, --output): which of the file's tensors is which table, when no known name says."""
    p.add_argument("--table", metavar="KEY", help="the file's tensor that is the token table (when no known name matches)")
    p.add_argument("--position", metavar="KEY", help="the file's tensor that is the position table (with --table)")
    p.add_argument("--output", metavar="KEY", help="the file's tensor that is the output table (with --table)")


def _named_tables(args: argparse.Namespace) -> dict[str, str] | None:
    named = {"token": getattr(args, "table", None), "position": getattr(args, "position", None),
             "output": getattr(args, "output", None)}
    return {k: v for k, v in named.items() if v} or None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CheckpointError, QueryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
