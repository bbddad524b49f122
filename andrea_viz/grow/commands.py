"""``grow`` for ``python -m andrea_viz``: train a small ANDREA and write its snapshots."""

from __future__ import annotations

import argparse
import json
import sys

from ..cli_options import Common
from .corpus import CORPUS_LANGUAGES
from .ship import keep_final_weights_only
from .trainer import DEFAULT_PRESET, PRESETS, grow_json, read_corpus_file, train


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


def add_commands(sub, common: Common) -> None:
    p = sub.add_parser("grow", help="train a small ANDREA and write its snapshots (real ANDREA .bin files)",
                       parents=[common.json])
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
    p.set_defaults(func=_cmd_grow)
