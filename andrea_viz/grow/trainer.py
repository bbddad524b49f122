"""Training a small ANDREA and writing its snapshots: the loop a reader can hold in one screen.

AdamW; the token, position and output tables get no weight decay, so a row whose id is never an input
of any batch has zero gradient, zero Adam moments and therefore a zero update: it keeps its step-0
value bit for bit. The output table is different: the softmax gives every logit a gradient, so every
output row moves at every step.
"""

from __future__ import annotations

import math
import shutil
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..errors import QueryError, choices
from ..family import vocab_size
from ..i18n import N_
from ..tokenizer import ByteTokenizer
from . import snapshots as snap
from .corpus import check_corpus_language, generate
from .harris import __doc__ as HARRIS_RULE
from .harris import harris_segments
from ..family import ModelShape, count_params
from .harris import WORD


@dataclass(frozen=True)
class Preset:
    name: str
    label: str  # msgid
    d: int  # d_model
    L: int  # layers
    heads: int
    T: int  # context
    batch: int
    steps: int
    snapshots: int
    lr: float
    warmup: int
    weight_decay: float  # block matrices only
    max_segments: int
    sentences: int  # of the generated corpus

    def shape(self, V: int, tied: bool = False) -> ModelShape:
        """The model this preset grows on a vocabulary of V ids (V is known once the corpus is segmented)."""
        return ModelShape(f"ANDREA ({self.name})", V=V, d=self.d, T=self.T, L=self.L, heads=self.heads, tied=tied)


PRESETS = {
    "micro": Preset("micro", N_("micro: d = 64, 2 layers, T = 32"), d=64, L=2, heads=4,
                    T=32, batch=32, steps=600, snapshots=9, lr=3e-3, warmup=30, weight_decay=0.1,
                    max_segments=4_096, sentences=6_000),
    "small": Preset("small", N_("small: d = 128, 4 layers, T = 64"), d=128, L=4, heads=4,
                    T=64, batch=32, steps=1_500, snapshots=11, lr=2e-3, warmup=60, weight_decay=0.1,
                    max_segments=8_192, sentences=12_000),
}
DEFAULT_PRESET = "micro"
TABLE_LR_SCALE = 10.0  # the tables learn faster than the blocks (each row is updated only when its id appears)
MIN_WORDS = 50  # a corpus shorter than this cannot fill a training batch meaningfully
MAX_CORPUS_BYTES = 50_000_000


@dataclass
class GrowResult:
    folder: Path
    preset: str
    config: dict
    steps_planned: int
    steps_done: int
    seconds: float
    losses: list[float]
    snapshots: list[tuple[int, Path]]
    unseen_ids: list[int]
    cancelled: bool
    segments: list[str] = field(repr=False, default_factory=list)

    @property
    def final_loss(self) -> float | None:
        return self.losses[-1] if self.losses else None


def read_corpus_file(path: str | Path) -> bytes:
    """A corpus file's bytes: a regular file only (a FIFO would block for ever, a device never end), at most
    ``MAX_CORPUS_BYTES`` of it read."""
    import os
    import stat

    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode) or
                    stat.S_ISBLK(info.st_mode) else "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file")
            raise QueryError("the corpus {path} is {kind}; expected a UTF-8 text file", path=str(path), kind=kind)
        with open(path, "rb") as f:
            return f.read(MAX_CORPUS_BYTES + 1)
    except OSError as exc:
        raise QueryError("cannot read the corpus {path}: {reason}", path=str(path), reason=exc.strerror or str(exc)) from exc


def corpus_text(data: bytes | str, name: str = "the corpus") -> str:
    """UTF-8 text with enough words to train on, or a QueryError saying what was expected."""
    if isinstance(data, bytes):
        if len(data) > MAX_CORPUS_BYTES:
            raise QueryError("{name} is {size:,} bytes; a corpus here is at most {most:,}", name=name, size=len(data),
                             most=MAX_CORPUS_BYTES)
        if b"\x00" in data:
            raise QueryError("{name} is binary (it holds NUL bytes); expected plain UTF-8 text", name=name)
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise QueryError("{name} is not UTF-8 text (byte {pos:,} cannot be decoded); expected plain UTF-8 text",
                             name=name, pos=exc.start) from exc
    words = len(WORD.findall(data))
    if words < MIN_WORDS:
        raise QueryError("{name} has {n:,} words; expected UTF-8 text with at least {most:,} words to train on",
                         name=name, n=words, most=MIN_WORDS)
    return data


def snapshot_steps(steps: int, count: int) -> list[int]:
    """Step 0, the last step, and count - 2 more spaced geometrically (the table changes fastest early)."""
    if count < 2:
        raise QueryError("a run keeps at least 2 snapshots (the first and the last), got {n}", n=count)
    inner = np.geomspace(max(1, steps // 64), steps, max(count - 1, 1))
    return sorted({0, steps, *(int(round(s)) for s in inner)})


def learning_rate(step: int, preset: Preset, steps: int) -> float:
    if step < preset.warmup:
        return preset.lr * (step + 1) / preset.warmup
    frac = (step - preset.warmup) / max(1, steps - preset.warmup)
    return preset.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))


def _adam_state(opt, p, key: str) -> np.ndarray:
    import torch

    s = opt.state.get(p, {})
    return (s[key] if key in s else torch.zeros_like(p)).detach().numpy()


@dataclass
class Prepared:
    """The corpus made ready: its text, segments, tokenizer and token stream (a BOS before each line)."""

    text: str
    segments: list[str]
    tokenizer: ByteTokenizer
    stream: np.ndarray  # (N,) int64


def encode_lines(tok: ByteTokenizer, text: str) -> np.ndarray:
    """The token stream (N,) int64 of ``text``: a BOS before each non-empty line, the line and its newline after it."""
    return np.array([i for line in text.splitlines() if line.strip() for i in [tok.bos_id, *tok.encode(line + "\n")]],
                    dtype=np.int64)


def prepare(p: Preset, corpus: str | bytes | None, seed: int, language: str = "en", max_segments: int | None = None
            ) -> Prepared:
    """``corpus``, or when None the generated corpus in ``language`` (en, nl, pt-BR, zh-TW), segmented into at most
    ``max_segments`` segments (the preset's number when None)."""
    text = corpus_text(corpus if corpus is not None else generate(seed, p.sentences, language))
    segments = harris_segments(text, max_segments=p.max_segments if max_segments is None else max_segments)
    tok = ByteTokenizer(vocab_size(len(segments)), segments)
    stream = encode_lines(tok, text)
    if stream.size < p.T + 1:
        raise QueryError("the corpus gives {n:,} tokens; expected at least {most:,} (one training window)", n=stream.size,
                         most=p.T + 1)
    return Prepared(text, segments, tok, stream)


def build_model(p: Preset, V: int, seed: int, tied: bool = False):
    """(model, optimizer): ANDREA's layout at init (``tied``: the head is the token table); AdamW with no decay on the
    tables, whose learning rate is TABLE_LR_SCALE times the blocks'."""
    import torch

    from .model import Andrea  # here: grow.model imports torch at its top (seconds)

    torch.manual_seed(seed)
    model = Andrea(p.shape(V, tied))
    model.init_weights(torch.Generator().manual_seed(seed))
    tables = [model.wte, model.wpe] + ([] if tied else [model.lm_head])
    blocks = [w for n, w in model.ordered_parameters() if n.startswith("layer")]
    opt = torch.optim.AdamW([{"params": blocks, "weight_decay": p.weight_decay, "lr_scale": 1.0},
                             {"params": tables, "weight_decay": 0.0, "lr_scale": TABLE_LR_SCALE}],
                            lr=p.lr, betas=(0.9, 0.95), eps=1e-8)
    return model, opt


def batch(stream: np.ndarray, rng: np.random.Generator, p: Preset):
    """(x, y): B windows of T ids and the ids that follow them."""
    import torch

    starts = rng.integers(0, stream.size - p.T, p.batch)
    window = torch.from_numpy(np.stack([stream[s : s + p.T + 1] for s in starts]))  # (B, T+1)
    return window[:, :-1], window[:, 1:]


def step_once(model, opt, x, y, lr: float) -> float:
    """One AdamW step on a batch; returns the loss."""
    import torch

    for group in opt.param_groups:
        group["lr"] = lr * group["lr_scale"]
    logits = model(x)  # (B, T, V)
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    return float(loss.detach())


def train(folder: str | Path, preset: str = DEFAULT_PRESET, corpus: str | bytes | None = None, steps: int | None = None,
          seed: int = 0, snapshots: int | None = None, snapshot_at: list[int] | None = None,
          progress: Callable[[int, int, float], None] | None = None,
          should_stop: Callable[[], bool] | None = None,
          observe: Callable[[int, object], None] | None = None, tied: bool = False,
          language: str = "en", max_segments: int | None = None) -> GrowResult:
    """Train an ANDREA of the preset's shape on ``corpus`` (the generated one in ``language`` when None), writing
    snapshots into ``folder`` (emptied first). ``progress(step, steps, loss)`` after each step;
    ``should_stop()`` is asked before each step, and a stopped run keeps the snapshots written so far;
    ``observe(step, model)`` (for benchmarks) sees the model after each step; ``tied`` trains one table for input and
    output (GPT-2's way; its snapshots still store the head, equal to the token table); ``max_segments`` caps the
    tokenizer's segments (the preset's cap when None): the same corpus grown with another tokenizer."""
    choices("preset", preset, PRESETS)
    p = PRESETS[preset]
    steps = p.steps if steps is None else steps
    if steps < 1:
        raise QueryError("steps must be at least 1, got {n}", n=steps)
    check_corpus_language(language)
    t0 = time.perf_counter()
    data = prepare(p, corpus, seed, language, max_segments)
    wanted = sorted(set(snapshot_at)) if snapshot_at else snapshot_steps(steps, snapshots or p.snapshots)
    if wanted[0] < 0 or wanted[-1] > steps:
        raise QueryError("snapshot steps must lie between 0 and {steps:,}; got {got}", steps=steps, got=str(wanted))

    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    model, opt = build_model(p, data.tokenizer.vocab_size, seed, tied)
    cfg = snap.config_json(model.shape)
    corpus_language = language if corpus is None else None  # an uploaded corpus's language is not known
    snap.write_json(folder / snap.CONFIG, {**cfg, "preset": p.name, "seed": seed, "corpus_language": corpus_language})
    snap.write_segments(folder, data.segments, " ".join(HARRIS_RULE.split()))
    rng = np.random.default_rng(seed)
    seen = np.zeros(model.shape.V, bool)
    losses: list[float] = []
    written: list[tuple[int, Path]] = []
    manifest = {"preset": p.name, "seed": seed, "corpus_language": corpus_language, "config": cfg,
                "steps_planned": steps, "snapshot_steps": wanted,
                "corpus_chars": len(data.text), "corpus_tokens": int(data.stream.size), "finished": False,
                **({} if max_segments is None else {"max_segments": max_segments})}

    def save(step: int) -> None:
        params = model.ordered_parameters()
        path = snap.write_bin(folder / snap.snapshot_name(step), step, [t.detach().numpy() for _, t in params],
                              [_adam_state(opt, t, "exp_avg") for _, t in params],
                              [_adam_state(opt, t, "exp_avg_sq") for _, t in params])
        written.append((step, path))
        snap.write_json(folder / snap.MANIFEST, {**manifest, "steps_done": step, "losses": losses,
                                                 "snapshots": [{"step": s, "file": f.name} for s, f in written]})

    cancelled = False
    step = 0
    try:
        if 0 in wanted:
            save(0)
        for step in range(1, steps + 1):
            if should_stop is not None and should_stop():
                cancelled = True
                step -= 1
                break
            x, y = batch(data.stream, rng, p)
            seen[x.numpy().ravel()] = True
            losses.append(step_once(model, opt, x, y, learning_rate(step - 1, p, steps)))
            if step in wanted:
                save(step)
            if observe is not None:
                observe(step, model)
            if progress is not None:
                progress(step, steps, losses[-1])
    finally:  # a stop from outside (an exception in the progress callback) still leaves a readable manifest
        done = step if written and losses else 0
        final = {**manifest, "steps_done": done, "losses": losses, "cancelled": cancelled,
                 "snapshots": [{"step": s, "file": f.name} for s, f in written],
                 "seconds": time.perf_counter() - t0, "unseen_ids": np.flatnonzero(~seen).tolist()}
        final["finished"] = not cancelled and done == steps
        snap.write_json(folder / snap.MANIFEST, final)
    return GrowResult(folder, p.name, cfg, steps, step, time.perf_counter() - t0, losses, written,
                      np.flatnonzero(~seen).tolist(), cancelled, data.segments)


def grow_json(r: GrowResult) -> dict:
    """What ``python -m andrea_viz grow --json`` prints."""
    return {"preset": r.preset, "vocab_size": r.config["vocab_size"], "d_model": r.config["d_model"],
            "context": r.config["context"], "layers": r.config["layers"],
            "total_params": _total(r.config), "steps": r.steps_done, "seconds": round(r.seconds, 2),
            "final_loss": r.final_loss, "snapshots": [str(p) for _, p in r.snapshots],
            "unseen_count": len(r.unseen_ids), "unseen_ids": r.unseen_ids}


def _total(cfg: dict) -> int:
    return count_params(cfg["vocab_size"], cfg["d_model"], cfg["context"], cfg["layers"], cfg.get("tied", False)).total


__all__ = ["DEFAULT_PRESET", "PRESETS", "GrowResult", "Preset", "asdict", "corpus_text", "grow_json",
           "snapshot_steps", "train"]
