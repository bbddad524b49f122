"""From a checkpoint's named tensors to the token, position and output tables.

One table of key names per role, checked in order, after stripping the wrapper prefixes that
``torch.compile`` (``_orig_mod.``) and ``DataParallel`` (``module.``) add. A reader can check
this at a glance (nanoGPT's ``from_pretrained`` does the same for GPT-2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import CheckpointError
from ..model import Embeddings, Provenance
from ..tokenizer import IdTokenizer, Tokenizer

WRAPPER_PREFIXES = ("_orig_mod.", "module.")

TOKEN_KEYS = [
    "transformer.wte.weight",  # nanoGPT, Hugging Face GPT2LMHeadModel
    "wte.weight",  # Hugging Face GPT2Model
    "model.embed_tokens.weight",  # Hugging Face Llama, Mistral, Qwen
    "tok_embeddings.weight",  # Meta consolidated.*.pth
    "bert.embeddings.word_embeddings.weight",  # Hugging Face BertFor*
    "embeddings.word_embeddings.weight",  # Hugging Face BertModel, MiniLM
    "embed_tokens.weight", "word_embeddings.weight", "token_embedding.weight",
    "wte", "token_embedding", "tok_embeddings", "embed_tokens", "embedding", "embeddings",  # .npz names
]
POSITION_KEYS = [
    "transformer.wpe.weight", "wpe.weight",
    "bert.embeddings.position_embeddings.weight", "embeddings.position_embeddings.weight",
    "position_embeddings.weight", "position_embedding.weight",
    "wpe", "position_embedding", "pos_embedding", "position_embeddings",
]
OUTPUT_KEYS = ["lm_head.weight", "output.weight", "lm_head", "output", "unembedding"]
ROPE_MARKERS = ("rotary_emb", "layers.0.attention.wq.weight", "model.layers.0.self_attn.q_proj.weight")


def strip_prefixes(name: str) -> str:
    changed = True
    while changed:
        changed = False
        for p in WRAPPER_PREFIXES:
            if name.startswith(p):
                name, changed = name[len(p):], True
    return name


@dataclass
class Found:
    """What a reader collected: tensor names with a way to read each one, plus notes."""

    format: str
    file: str
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    dtypes: dict[str, str] = field(default_factory=dict)
    readers: dict[str, Callable[[], np.ndarray]] = field(default_factory=dict)
    assumptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    config: dict = field(default_factory=dict)

    def add(self, name: str, shape: tuple[int, ...], dtype: str, read: Callable[[], np.ndarray]) -> None:
        self.shapes[name] = tuple(int(s) for s in shape)
        self.dtypes[name] = dtype
        self.readers[name] = read


def _pick(found: Found, keys: list[str], want_2d: bool = True) -> tuple[str | None, str]:
    by_clean = {strip_prefixes(n): n for n in found.shapes}
    for k in keys:
        n = by_clean.get(k)
        if n is not None and (not want_2d or len(found.shapes[n]) == 2):
            prefix = "" if n == k else f" (after removing the prefix {n[: len(n) - len(k)]!r})"
            return n, f"its name is {k!r}{prefix}"
    return None, ""


def to_float32(a: np.ndarray, name: str, found: Found) -> np.ndarray:
    if a.dtype != np.float32:
        found.notes.append(f"{name} is {a.dtype}; converted to float32 for analysis")
        a = a.astype(np.float32)
    return a


def nonfinite_rows(table: np.ndarray) -> int:
    return int((~np.isfinite(table).all(axis=1)).sum())


def build(found: Found, tokenizer: Tokenizer | None, name: str, key: str, tied_hint: bool | None = None,
          position_kind_hint: str | None = None, drop_rows_past: int | None = None) -> Embeddings:
    """Choose the tables, read them, and record why each was taken."""
    tok_name, tok_why = _pick(found, TOKEN_KEYS)
    if tok_name is None:
        two_d = [n for n, s in found.shapes.items() if len(s) == 2]
        if len(two_d) == 1:
            tok_name, tok_why = two_d[0], "it is the only 2-D tensor in the file"
        else:
            listed = ", ".join(f"{n} {list(s)}" for n, s in list(found.shapes.items())[:8]) or "no tensors"
            raise CheckpointError(
                f"no token embedding table found in {found.file}: expected a tensor named like "
                f"{', '.join(TOKEN_KEYS[:6])} …; found {listed}"
            )
    roles = [("token table", tok_name, tok_why)]
    wte = to_float32(np.asarray(found.readers[tok_name]()), tok_name, found)
    if wte.ndim != 2:
        raise CheckpointError(f"the token table {tok_name} must be 2-D (V, d); its shape is {list(wte.shape)}")
    if drop_rows_past is not None and drop_rows_past < wte.shape[0]:
        found.warnings.append(f"rows {drop_rows_past:,} to {wte.shape[0] - 1:,} of {tok_name} are padding; "
                              f"only the first {drop_rows_past:,} are tokens")
        wte = wte[:drop_rows_past]
    d = wte.shape[1]

    pos_name, pos_why = _pick(found, POSITION_KEYS)
    wpe = None
    if pos_name is not None and found.shapes[pos_name][1:] == (d,):
        wpe = to_float32(np.asarray(found.readers[pos_name]()), pos_name, found)
        roles.append(("position table", pos_name, pos_why))
    elif pos_name is not None:
        found.warnings.append(f"{pos_name} has shape {list(found.shapes[pos_name])}, not (T, {d}); not used")
    if wpe is not None:
        position_kind = "learned"
    elif position_kind_hint:
        position_kind = position_kind_hint
    elif any(any(m in n for m in ROPE_MARKERS) for n in found.shapes):
        position_kind = "rope"
        found.assumptions.append("no position table; the layer names are Llama's, so positions are RoPE")
    else:
        position_kind = "none"

    out_name, out_why = _pick(found, OUTPUT_KEYS)
    out, tied = None, False
    if out_name is not None and found.shapes[out_name][1:] == (d,):
        out = to_float32(np.asarray(found.readers[out_name]()), out_name, found)
        if drop_rows_past is not None:
            out = out[:drop_rows_past]
        if out.shape != wte.shape:
            found.warnings.append(f"{out_name} has shape {list(out.shape)}, not the token table's "
                                  f"{list(wte.shape)}; not used as the output table")
            out = None
        elif np.array_equal(out, wte):
            tied, out = True, None
            roles.append(("output table", out_name, out_why + "; it equals the token table, so the model is tied"))
        else:
            roles.append(("output table", out_name, out_why + "; it differs from the token table (untied)"))
    elif tied_hint:
        tied = True
        found.assumptions.append("no output table in the file and the config ties it to the token table: tied")

    bad = nonfinite_rows(wte)
    if bad:
        found.warnings.append(f"{bad:,} rows of the token table hold NaN or Inf; searches leave them out")
    tk: Tokenizer = tokenizer or IdTokenizer(wte.shape[0])
    if tokenizer is None:
        found.warnings.append("no tokenizer: tokens show as #id and word look-ups need a tokenizer file")
    elif tk.vocab_size < wte.shape[0]:
        found.warnings.append(f"the table has {wte.shape[0]:,} rows but the tokenizer knows {tk.vocab_size:,} "
                              f"tokens: rows {tk.vocab_size:,} and up show as #id")
    elif tk.vocab_size > wte.shape[0]:
        found.warnings.append(f"the tokenizer knows {tk.vocab_size:,} tokens but the table has only "
                              f"{wte.shape[0]:,} rows: words with larger ids cannot be looked up")
    provenance = Provenance(
        format=found.format, file=found.file, assumptions=tuple(found.assumptions), notes=tuple(found.notes),
        tensors=tuple((n, s, found.dtypes[n]) for n, s in found.shapes.items()), roles=tuple(roles),
        warnings=tuple(found.warnings),
    )
    card = {k: v for k, v in found.config.items() if k in ("layers", "heads")}
    return Embeddings(name=name, token_table=wte, position_table=wpe, position_kind=position_kind,
                      output_table=out, tied=tied, tokenizer=tk, provenance=provenance, key=key, card=card)


