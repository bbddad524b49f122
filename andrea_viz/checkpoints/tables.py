"""From a checkpoint's named tensors to the token, position and output tables.

One table of key names per role, checked in order, after stripping the wrapper prefixes that
``torch.compile`` (``_orig_mod.``) and ``DataParallel`` (``module.``) add. A reader can check
this at a glance (nanoGPT's ``from_pretrained`` does the same for GPT-2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg, N_
from ..model import (KEPT_DTYPES, BlockInput, Card, Embeddings, Provenance, blocked_rows, f32,
                     row_blocks)
from ..tokenizer import IdTokenizer, Tokenizer
from .architectures import Recipe, resolve_key, sinusoid_rows

WRAPPER_PREFIXES = ("_orig_mod.", "module.")

TOKEN_KEYS = [
    "transformer.wte.weight",  # nanoGPT, Hugging Face GPT2LMHeadModel
    "wte.weight",  # Hugging Face GPT2Model
    "model.embed_tokens.weight",  # Hugging Face Llama, Mistral, Qwen
    "tok_embeddings.weight",  # Meta consolidated.*.pth
    "bert.embeddings.word_embeddings.weight",  # Hugging Face BertFor*
    "embeddings.word_embeddings.weight",  # Hugging Face BertModel, MiniLM
    "embed_tokens.weight", "word_embeddings.weight", "token_embedding.weight",
    "token_embd.weight",  # GGUF (llama.cpp)
    "wte", "token_embedding", "tok_embeddings", "embed_tokens", "embedding", "embeddings",  # .npz names
]
POSITION_KEYS = [
    "transformer.wpe.weight", "wpe.weight",
    "bert.embeddings.position_embeddings.weight", "embeddings.position_embeddings.weight",
    "position_embeddings.weight", "position_embedding.weight",
    "position_embd.weight",  # GGUF (llama.cpp's GPT-2, StarCoder, BERT)
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
    """What a reader collected: tensor names with a way to read each one, notes, and hints.

    Every reader has the same contract: ``read(path, found) -> None``; it adds tensors and may set
    ``format`` (a more precise name), ``tied_hint``, ``position_kind_hint``, ``vocab_rows`` (rows past
    it are padding), ``step`` and ``config`` (layers, heads).
    """

    format: Msg | str
    file: str
    shapes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    dtypes: dict[str, str] = field(default_factory=dict)
    readers: dict[str, Callable[[], np.ndarray]] = field(default_factory=dict)
    assumptions: list[Msg] = field(default_factory=list)
    notes: list[Msg] = field(default_factory=list)
    warnings: list[Msg] = field(default_factory=list)
    config: dict = field(default_factory=dict)
    tied_hint: bool | None = None
    position_kind_hint: str | None = None
    vocab_rows: int | None = None
    step: int | None = None
    tokenizer_reason: Msg | None = None  # why a tokenizer that was given or found could not be used
    tokenizer: Tokenizer | None = None  # one the file itself carries (GGUF's metadata)
    recipe: Recipe | None = None  # transformers' own view of the model (a folder with a config.json it knows)
    steps: Recipe | None = None  # without a recipe: the steps around the lookup a format's own rules name (GGUF)

    def add(self, name: str, shape: tuple[int, ...], dtype: str, read: Callable[[], np.ndarray]) -> None:
        self.shapes[name] = tuple(int(s) for s in shape)
        self.dtypes[name] = dtype
        self.readers[name] = read


@dataclass(frozen=True)
class Choice:
    """Which tensor plays each role, and why (names are the file's own)."""

    token: str
    token_why: Msg
    position: str | None = None
    position_why: Msg | None = None
    output: str | None = None
    output_why: Msg | None = None
    extras: dict = field(default_factory=dict)  # recipe parameter name -> the file's key (token type, norm, projections)


def two_d_listing(found: Found, n: int = 8) -> str:
    """The 2-D tensors of a file with their shapes, largest first (what a refusal shows)."""
    two_d = sorted(((k, s) for k, s in found.shapes.items() if len(s) == 2), key=lambda ks: -int(np.prod(ks[1])))
    listed = ", ".join(f"{k} {list(s)}" for k, s in two_d[:n])
    return listed + (f", … ({len(two_d) - n} more)" if len(two_d) > n else "") if two_d else "no 2-D tensors"


def choose_by_recipe(found: Found, rec: Recipe) -> Choice:
    """The tables transformers' model class names, found among the file's own keys."""
    taken: set[str] = set()

    def find(names) -> str | None:
        names = [n for n in ([names] if isinstance(names, str) else names) if n]
        key = resolve_key(names, rec.shapes.get(names[0]) if names else None, found.shapes, taken)
        if key is not None:
            taken.add(key)
        return key

    tok = find(rec.token)
    if tok is None:
        raise CheckpointError("{cls} (transformers' class for this config.json) takes its token table from {names}, but "
                              "{file} holds no such tensor; its 2-D tensors are {listed}", cls=rec.model_class,
                              names=", ".join(rec.token), file=Path(found.file).name, listed=two_d_listing(found))
    how = Msg("transformers' {cls}.get_input_embeddings() is {name}", cls=rec.model_class, name=rec.token[0])
    tok_why = how if tok == rec.token[0] else Msg("{how}; in this file: {key}", how=how, key=tok)
    pos = find(rec.position) if rec.position else None
    pos_why = rec.position_reason if pos else None
    if rec.position and pos is None:
        found.warnings.append(Msg("{cls} has a position table {name}, but the file holds none; positions not shown",
                                  cls=rec.model_class, name=rec.position))
    out = out_why = None
    if rec.output and not rec.tied:
        out = find([n for n in rec.output if n not in rec.token])
        out_why = Msg("transformers' {cls}.get_output_embeddings() is {name}", cls=rec.model_class, name=rec.output[0])
        if out is None:
            found.warnings.append(Msg("{cls} has an untied output table {name}, but the file holds none",
                                      cls=rec.model_class, name=rec.output[0]))
    extras = {n: find([n, *([rec.saved[n]] if n in getattr(rec, "saved", {}) else [])]) for n in rec.extra_names}
    return Choice(tok, tok_why, pos, pos_why, out, out_why, extras={k: v for k, v in extras.items() if v})


def _pick(found: Found, keys: list[str]) -> tuple[str | None, Msg | None]:
    by_clean = {strip_prefixes(n): n for n in found.shapes}
    for k in keys:
        n = by_clean.get(k)
        if n is not None and len(found.shapes[n]) == 2:
            if n == k:
                return n, Msg("its name is '{key}'", key=k)
            return n, Msg("its name is '{key}' (after removing the prefix '{prefix}')", key=k, prefix=n[: len(n) - len(k)])
    return None, None


class NoTableError(CheckpointError):
    """No tensor has a name this app knows as the token table: ``tensors`` lists the ones that could be named by hand
    (2-D, largest first), for a picker."""

    def __init__(self, msg: Msg, tensors: list[tuple[str, tuple[int, ...]]]):
        super().__init__(msg)
        self.tensors = tensors


ROLES = {"token": N_("token table"), "position": N_("position table"), "output": N_("output table")}  # named by hand


def nameable(found: Found) -> list[tuple[str, tuple[int, ...]]]:
    """The tensors that can be named as a table: 2-D ones, and (1, T, d) ones such as minGPT's pos_emb; largest first."""
    ok = [(k, s) for k, s in found.shapes.items() if len(s) == 2 or len(s) == 3 and s[0] == 1]
    return sorted(ok, key=lambda ks: -int(np.prod(ks[1], dtype=np.float64)))


def _as_table(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[1:] if len(shape) == 3 and shape[0] == 1 else shape


def choose_named(found: Found, named: dict[str, str]) -> Choice:
    """The tables named by hand (role -> the file's key): each must exist and be a table of the token table's width."""
    listed = two_d_listing(found)
    for role, key in named.items():
        if key not in found.shapes or len(_as_table(found.shapes[key])) != 2:
            raise CheckpointError("{file} holds no table named '{key}' (given as the {role}); its 2-D tensors, largest "
                                  "first: {listed}", file=found.file, key=key, role=Msg(ROLES[role]), listed=listed)
    if "token" not in named:
        raise CheckpointError("a position or output table was named, but not the token table: name it too "
                              "(its 2-D tensors, largest first: {listed})", listed=listed)
    shapes = {role: _as_table(found.shapes[key]) for role, key in named.items()}
    d = shapes["token"][1]
    for role in ("position", "output"):
        if role in shapes and shapes[role][1] != d:
            raise CheckpointError("the {role} '{key}' has shape {shape}, but the token table has width d = {d:,}: "
                                  "expected (rows, {d:,})", role=Msg(ROLES[role]), key=named[role], shape=str(list(shapes[role])),
                                  d=d)
    whys = {role: Msg("named by hand: '{key}'", key=key) for role, key in named.items()}
    for role, key in named.items():
        found.assumptions.append(Msg("the {role} is '{key}', as named by hand", role=Msg(ROLES[role]), key=key))
    return Choice(named["token"], whys["token"], named.get("position"), whys.get("position"), named.get("output"),
                  whys.get("output"))


def choose_tables(found: Found, named: dict[str, str] | None = None) -> Choice:
    """The tables named by hand, else those transformers names (a config.json it knows), else the token table by name or
    as the only 2-D tensor, and a position and output table of its width."""
    if named:
        return choose_named(found, named)
    if found.recipe is not None:
        return choose_by_recipe(found, found.recipe)
    tok, tok_why = _pick(found, TOKEN_KEYS)
    if tok is None:
        two_d = [n for n, s in found.shapes.items() if len(s) == 2]
        if len(two_d) != 1:
            options = nameable(found)
            raise NoTableError(Msg("no token embedding table found in {file}: expected a tensor named like {keys} …; its "
                                   "2-D tensors, largest first: {listed}. Name the one that is the token table (--table "
                                   "KEY on the command line, the table picker on the Checkpoint page)",
                                   file=found.file, keys=", ".join(TOKEN_KEYS[:6]), listed=two_d_listing(found)),
                               options)
        tok, tok_why = two_d[0], Msg("it is the only 2-D tensor in the file")
    d = found.shapes[tok][1]
    pos, pos_why = _pick(found, POSITION_KEYS)
    if pos is not None and found.shapes[pos][1:] != (d,):
        found.warnings.append(Msg("{name} has shape {shape}, not (T, {d}); not used", name=pos,
                                  shape=str(list(found.shapes[pos])), d=d))
        pos, pos_why = None, None
    out, out_why = _pick(found, OUTPUT_KEYS)
    if out is not None and found.shapes[out][1:] != (d,):
        out, out_why = None, None
    extras = {n: n for n in found.steps.extra_names if n in found.shapes} if found.steps else {}
    return Choice(tok, tok_why, pos, pos_why, out, out_why, extras=extras)


def to_float32(a: np.ndarray, name: str, found: Found) -> np.ndarray:
    """float32, or bfloat16 / float16 kept as stored (memory-mapped where the format allows): those are widened to
    float32 block by block where a computation needs it."""
    if a.dtype in KEPT_DTYPES and a.dtype != np.float32:
        found.notes.append(Msg("{name} is {dtype}; kept as stored and widened to float32 where a computation needs it",
                               name=name, dtype=str(a.dtype)))
    elif a.dtype != np.float32:
        found.notes.append(Msg("{name} is {dtype}; converted to float32 for analysis", name=name, dtype=str(a.dtype)))
        a = a.astype(np.float32)
    return a


NONFINITE_CHECK_MAX = 2**26  # float32 bytes (MiniLM: 47 MB): larger tables are not read at load to count NaN rows


def nonfinite_rows(table: np.ndarray) -> int:
    return int((~blocked_rows(table, lambda b: np.isfinite(b).all(axis=1))).sum())


TIE_ROWS = 8  # rows compared first: two untied tables differ there at once


def same_table(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two tables are equal, value for value: a few rows first, then the whole in blocks of rows
    (never a temporary of the whole table)."""
    if a.shape != b.shape or not np.array_equal(f32(a[:TIE_ROWS]), f32(b[:TIE_ROWS])):
        return False
    return whole_tables_equal(a, b)


def whole_tables_equal(a: np.ndarray, b: np.ndarray) -> bool:
    """The full comparison, block by block."""
    blocks_a, blocks_b = row_blocks(a), row_blocks(b)
    return all(np.array_equal(blocks_a[j], blocks_b[j]) for j in range(len(blocks_a)))


def token_rows(found: Found, choice: Choice) -> int:
    """The number of token ids: the token table's rows, or fewer when the rows past them are padding."""
    rows = found.shapes[choice.token][0]
    return min(rows, found.vocab_rows) if found.vocab_rows else rows


def _read_table(found: Found, name: str) -> np.ndarray:
    return to_float32(np.asarray(found.readers[name]()), name, found)


def read_tables(found: Found, choice: Choice) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None, bool,
                                                        list[tuple[str, str, Msg]]]:
    """(token table, position table, output table, tied, roles) with padding rows dropped."""
    roles = [(N_("token table"), choice.token, choice.token_why)]
    wte = _read_table(found, choice.token)
    if wte.ndim != 2:
        raise CheckpointError("the token table {name} must be 2-D (V, d); its shape is {shape}", name=choice.token,
                              shape=str(list(wte.shape)))
    V = token_rows(found, choice)
    if V < wte.shape[0]:
        found.warnings.append(Msg("rows {first:,} to {last:,} of {name} are padding; only the first {first:,} are tokens",
                                  first=V, last=wte.shape[0] - 1, name=choice.token))
        wte = wte[:V]
    wpe = None
    if choice.position is not None:
        wpe = _read_table(found, choice.position)
        if wpe.ndim == 3 and wpe.shape[0] == 1:  # minGPT's pos_emb: a (1, T, d) parameter
            wpe = wpe[0]
        offset = found.recipe.position_offset if found.recipe else 0
        if offset:
            found.notes.append(Msg("{name} has {rows:,} rows; positions 0 to {last:,} use rows {offset} and up, so the first "
                                   "{offset} rows are left out", name=choice.position, rows=wpe.shape[0],
                                   last=wpe.shape[0] - offset - 1, offset=offset))
            wpe = wpe[offset:]
        roles.append((N_("position table"), choice.position, choice.position_why))
    elif found.recipe is not None and found.recipe.sinusoid:  # fixed rows, computed as the model computes them
        wpe = sinusoid_rows(found.recipe.sinusoid)
    out, tied = None, False
    if found.recipe is not None and found.recipe.tied:
        tied = True
        roles.append((N_("output table"), choice.token, Msg("transformers' {cls} ties its output projection to the token "
                                                            "table", cls=found.recipe.model_class)))
    elif found.recipe is not None and choice.output is None:
        pass  # the class has no output head, or an untied one the file lacks (warned): none
    elif choice.output is not None:
        out = _read_table(found, choice.output)[:V]
        if out.shape != wte.shape:
            found.warnings.append(Msg("{name} has shape {shape}, not the token table's {want}; not used as the output "
                                      "table", name=choice.output, shape=str(list(out.shape)), want=str(list(wte.shape))))
            out = None
        elif same_table(out, wte):
            tied, out = True, None
            roles.append((N_("output table"), choice.output,
                          Msg("{why}; it equals the token table, so the model is tied", why=choice.output_why)))
        else:
            roles.append((N_("output table"), choice.output,
                          Msg("{why}; it differs from the token table (untied)", why=choice.output_why)))
    elif found.tied_hint:
        tied = True
        found.assumptions.append(Msg("no output table in the file and the config ties it to the token table: tied"))
    return wte, wpe, out, tied, roles


def position_kind(found: Found, has_table: bool) -> str:
    if has_table:
        return "sinusoidal" if found.recipe is not None and found.recipe.sinusoid else "learned"
    if found.recipe is not None:
        return found.recipe.position_kind if found.recipe.position_kind != "learned" else "none"
    if found.position_kind_hint:
        return found.position_kind_hint
    if any(any(m in n for m in ROPE_MARKERS) for n in found.shapes):
        found.assumptions.append(Msg("no position table; the layer names are Llama's, so positions are RoPE"))
        return "rope"
    return "none"


GPT2_VOCABULARIES = (50_257, 50_304)  # GPT-2's BPE, and nanoGPT's padding of it to a multiple of 64


def tokenizer_warnings(found: Found, tokenizer: Tokenizer | None, V: int) -> None:
    if tokenizer is None and found.tokenizer_reason is not None:
        found.warnings.append(Msg("the tokenizer could not be used: {reason}; tokens show as #id",
                                  reason=found.tokenizer_reason))
    elif tokenizer is None and V in GPT2_VOCABULARIES:
        found.warnings.append(Msg("no tokenizer file: V = {V:,} is GPT-2's vocabulary, which nanoGPT takes from tiktoken "
                                  "at run time and never writes to disk; give a GPT-2 tokenizer.json, or its vocab.json "
                                  "with merges.txt", V=V))
    elif tokenizer is None:
        found.warnings.append(Msg("no tokenizer: tokens show as #id and word look-ups need a tokenizer file"))
    elif tokenizer.vocab_size < V:
        found.warnings.append(Msg("the table has {rows:,} rows but the tokenizer knows {n:,} tokens: rows {n:,} and up "
                                  "show as #id", rows=V, n=tokenizer.vocab_size))
    elif tokenizer.vocab_size > V:
        found.warnings.append(Msg("the tokenizer knows {n:,} tokens but the table has only {rows:,} rows: words with "
                                  "larger ids cannot be looked up", n=tokenizer.vocab_size, rows=V))


FLOAT_DTYPES = ("float", "F16", "F32", "F64", "BF16", "half", "bfloat16", "double")
MASK_SUFFIXES = ("attn.bias", "attn.masked_bias")  # GPT-2's causal-mask buffers in older checkpoints


def is_parameter(name: str, shape: tuple[int, ...], dtype: str) -> bool:
    """A trained floating-point tensor: not an integer buffer (BERT's position_ids) nor a causal mask."""
    if not any(dtype.startswith(f) or f in dtype for f in FLOAT_DTYPES):
        return False
    return not (strip_prefixes(name).endswith(MASK_SUFFIXES) and len(shape) == 4)


def total_params(found: Found, shared: int) -> int:
    """Parameters the file holds: its floating-point tensors, a tied output table (``shared`` entries) counted once."""
    if "total_params" in found.config:  # the family's own count (ANDREA's header)
        return int(found.config["total_params"])
    n = sum(int(np.prod(s)) for name, s in found.shapes.items() if is_parameter(name, s, found.dtypes[name]))
    return n - shared


def max_model_bytes() -> int:
    """The most float32 bytes the tables of one model may take (``ANDREA_VIZ_MAX_MODEL_BYTES``, default 8 GiB)."""
    import os

    raw = os.environ.get("ANDREA_VIZ_MAX_MODEL_BYTES", "")
    return int(raw) if raw.isdigit() else 8 * 2**30


def check_size(found: Found, choice: Choice) -> None:
    """Refuse, from the declared shapes alone, tables larger than the bound (before anything is read)."""
    names = [n for n in (choice.token, choice.position, choice.output) if n is not None]
    need = sum(int(np.prod(found.shapes[n], dtype=np.float64)) * 4 for n in names)
    limit = max_model_bytes()
    if need > limit:
        raise CheckpointError("{file} declares embedding tables of {need:,} bytes as float32; this server opens at most "
                              "{limit:,} bytes per model (ANDREA_VIZ_MAX_MODEL_BYTES)", file=Path(found.file).name,
                              need=need, limit=limit)


def build(found: Found, choice: Choice, tokenizer: Tokenizer | None, name: str, key: str) -> Embeddings:
    """Read the chosen tables and make the model, recording why each table was taken."""
    check_size(found, choice)
    wte, wpe, out, tied, roles = read_tables(found, choice)
    bad = nonfinite_rows(wte) if wte.size * 4 <= NONFINITE_CHECK_MAX else 0  # a large table is not read at load
    if wte.size * 4 > NONFINITE_CHECK_MAX:
        found.notes.append(Msg("the token table is too large to be scanned for NaN or Inf when it opens; searches leave "
                               "such rows out"))
    if bad:
        found.warnings.append(Msg("{n:,} rows of the token table hold NaN or Inf; searches leave them out", n=bad))
    tokenizer_warnings(found, tokenizer, wte.shape[0])
    provenance = Provenance(
        format=found.format, file=found.file, assumptions=tuple(found.assumptions), notes=tuple(found.notes),
        tensors=tuple((n, s, found.dtypes[n]) for n, s in found.shapes.items()), roles=tuple(roles),
        warnings=tuple(found.warnings),
    )
    shared = tied and choice.output is not None  # the output table's tensor is the token table's, stored again
    rec = found.recipe
    steps = rec or found.steps
    kind = position_kind(found, wpe is not None)
    card = Card(**{k: v for k, v in found.config.items() if k in ("layers", "heads", "family", "init_std",
                                                                 "context_length", "stored_type")},
                step=found.step, total_params=rec.total_params if rec and rec.total_params else total_params(found, wte.size if shared else 0),
                **(recipe_card(rec, choice) if rec else {"position_reason": steps.position_reason} if steps and
                   (wpe is not None or steps.position_kind == kind != "none") else {}))
    return Embeddings(name=name, token_table=wte, position_table=wpe, position_kind=kind,
                      output_table=out, tied=tied,
                      tokenizer=tokenizer or IdTokenizer(wte.shape[0], found.tokenizer_reason),
                      provenance=provenance, key=key, card=card,
                      block_input=block_input_of(found, choice, steps) if steps else BlockInput())


def recipe_card(rec: Recipe, choice: Choice) -> dict:
    """What the card says that only transformers' view gives: the position kind's reason, the offset, sharing."""
    out = {"model_class": rec.model_class, "position_reason": rec.position_reason if (choice.position or
                                                                                     rec.position_kind != "learned")
           else None, "position_offset": rec.position_offset if choice.position else None}
    if rec.shared:
        dec = (Msg("; the decoder's own position table is {name}", name=rec.decoder_position) if rec.decoder_position
               else "")
        out["shared_table"] = Msg("one token table, {name}, is shared by the encoder and the decoder{dec}",
                                  name=choice.token, dec=dec)
    return out


def block_input_of(found: Found, choice: Choice, rec: Recipe) -> BlockInput:
    """The extra steps of the model's own embedding module (``rec``: transformers' recipe, or the format's own rules),
    with their weights read from the file."""

    def get(name: str | None) -> np.ndarray | None:
        key = choice.extras.get(name) if name else None
        return None if key is None else np.asarray(_read_table(found, key), np.float32)

    def linear(lin):
        w = get(lin.weight) if lin else None
        return None if w is None else (w, get(lin.bias))

    tt = get(rec.token_type)
    norm = affine = None
    if rec.norm is not None and get(rec.norm.weight) is not None and getattr(rec.norm, "affine_only", False):
        affine = (get(rec.norm.weight), get(rec.norm.bias))
    elif rec.norm is not None and (rec.norm.weight is None or get(rec.norm.weight) is not None):
        norm = (get(rec.norm.weight), get(rec.norm.bias), rec.norm.eps, rec.norm.rms)
    return BlockInput(scale=rec.scale, project_in=linear(rec.project_in), token_type=None if tt is None else tt[0],
                      norm=norm, project_out=linear(rec.project_out), module=rec.model_class,
                      trigram=getattr(rec, "trigram", False), affine=affine, unstated=getattr(rec, "unstated", None))
