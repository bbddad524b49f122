"""The one object every page and command works on: a model's embedding tables."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace

import ml_dtypes
import numpy as np

from .errors import CheckpointError, choices
from .i18n import Msg, N_
from .tokenizer import Tokenizer
from .tokenizer.visible import visible

POSITION_KINDS = ("learned", "sinusoidal", "rope", "alibi", "relative", "none")
DERIVED_COPY_MAX = 2**28  # bytes: a derived (V, d) copy (the unit rows) is kept only for tables up to this size
BLOCK_BYTES = 16 * 2**20  # a whole-table pass works on blocks of rows this large as float64, never on a full copy


KEPT_DTYPES = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))  # tables kept as stored


def is_narrow(a: np.ndarray) -> bool:
    """A table kept in 16 bits (bfloat16 or float16), which every computation widens to float32 block by block."""
    return a.dtype != np.float32 and a.dtype in KEPT_DTYPES


def f32(a: np.ndarray) -> np.ndarray:
    """``a`` as float32: itself when it is already, else a float32 copy (exact for bfloat16 and float16)."""
    return a if a.dtype == np.float32 else np.asarray(a, np.float32)


def torch_view(table: np.ndarray):
    """A torch tensor over the same bytes (no copy): bfloat16 through a uint16 view (torch cannot take ml_dtypes'
    type from numpy), others directly."""
    import warnings

    import torch

    a = np.ascontiguousarray(table)
    with warnings.catch_warnings():  # torch warns on read-only arrays; nothing that takes this view writes to it
        warnings.simplefilter("ignore", UserWarning)
        if a.dtype == np.dtype(ml_dtypes.bfloat16):
            return torch.from_numpy(a.view(np.uint16)).view(torch.bfloat16)
        return torch.from_numpy(a)


def block_rows(d: int) -> int:
    """Rows of d numbers per block of a whole-table pass."""
    return max(1, BLOCK_BYTES // (8 * d))


class RowBlocks:
    """The table's consecutive blocks of rows: views of a float32 table (no copy), float32 copies of one block at a
    time of a bfloat16 / float16 one (never the whole table widened at once)."""

    def __init__(self, table: np.ndarray) -> None:
        self.table, self.n = table, block_rows(table.shape[1])
        self.starts = range(0, table.shape[0], self.n)

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, j: int) -> np.ndarray:
        i = self.starts[j]
        return f32(self.table[i:i + self.n])

    def __iter__(self):
        return (self[j] for j in range(len(self)))


def row_blocks(table: np.ndarray) -> RowBlocks:
    """The table as consecutive blocks of float32 rows (views of a float32 table, no copy)."""
    return RowBlocks(table)


def gather_rows(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``table[ids]`` as stored, gathered one block of rows at a time: numpy's gather of a bfloat16 table holds the
    interpreter's lock for the whole copy (0.68 s for 128k rows × 4,096 in the server, every other page waiting),
    while between blocks of ``block_rows`` rows the lock passes to whoever waits for it."""
    ids = np.asarray(ids, dtype=np.int64)
    out = np.empty((ids.shape[0], *table.shape[1:]), dtype=table.dtype)
    n = block_rows(table.shape[1])
    for s in range(0, ids.shape[0], n):
        out[s:s + n] = table[ids[s:s + n]]
    return out


def blocked_rows(table: np.ndarray, fn) -> np.ndarray:
    """``fn(block)`` for blocks of rows, concatenated: a per-row result without a temporary of the whole table."""
    return np.concatenate([fn(b) for b in row_blocks(table)])


@dataclass(frozen=True)
class Card(Mapping):
    """What is known about the whole model beyond its embedding tables; a field nobody knows is None (or
    False) and is then not a key. The package reads it by attribute (``card.layers``); it stays a read-only mapping
    for scripts (``card["total_params"]``, ``card.get("layers")``)."""

    family: str | None = None  # "ANDREA", "BERT", "GPT-2", …
    size: str | None = None  # a family member's name, e.g. "ANDREA-120M"
    layers: int | None = None
    heads: int | None = None
    init_std: float | None = None  # the standard deviation the model's own code initialised with
    total_params: int | None = None
    step: int | None = None  # the training step of a snapshot
    context_length: int | None = None  # the context the file's metadata names (GGUF)
    stored_type: str | None = None  # how the token table is stored, when not float32 (GGUF: Q4_0, F16, …)
    untrained: bool = False
    trained: bool = False  # trained by this app (andrea-micro)
    position_reason: Msg | None = None  # why the position kind is what it is (a sentence for the card)
    position_offset: int | None = None  # rows of the stored position table before position 0 (RoBERTa, OPT, BART)
    shared_table: Msg | None = None  # an encoder-decoder's one token table, and who shares it
    model_class: str | None = None  # the transformers class that located the tables

    def _known(self) -> list[str]:
        return [f.name for f in fields(self) if getattr(self, f.name) is not None and getattr(self, f.name) is not False]

    def __getitem__(self, key: str):
        if key not in self._known():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._known())

    def __len__(self) -> int:
        return len(self._known())

    def but(self, **changes) -> Card:
        """A copy with some fields changed."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Provenance:
    """Where a model came from and what the loader had to assume to read it.

    Sentences are Msgs (translated where they are drawn); ``str()`` of each is English.
    """

    format: Msg | str
    file: str | None = None
    assumptions: tuple[Msg, ...] = ()
    notes: tuple[Msg, ...] = ()
    tensors: tuple[tuple[str, tuple[int, ...], str], ...] = ()  # every tensor found: (name, shape, dtype)
    roles: tuple[tuple[str, str, Msg], ...] = ()  # (role, tensor name, why it was taken)
    warnings: tuple[Msg, ...] = ()

    def text(self) -> str:
        """Every sentence in English, one per line (for tests and logs)."""
        return "\n".join(str(x) for x in (self.format, *self.assumptions, *self.notes, *self.warnings,
                                           *(why for _, _, why in self.roles)))


@dataclass(frozen=True, eq=False)
class BlockInput:
    """What a model's own embedding module does around the lookup, in this order:
    ``x = project_out(affine(norm(project_in(trigram(scale · tok[ids])) + pos[:T] + token_type)))``. A field that is
    None (or False) is a step the model does not take; ``BlockInput()`` is GPT-2's and ANDREA's plain ``x = tok + pos``.

    trigram:                  each token's row beside the next token's and the previous one's, zeros past the ends
                              (MobileBERT: [tok[id_t+1], tok[id_t], tok[id_t-1]], 3·d columns)
    affine:                   ((d,) weight, (d,) bias): x·weight + bias per column, no normalisation (MobileBERT's NoNorm)

    project_in / project_out: ((out, in) weight, (out,) bias or None)
    token_type:               (d,) row 0 of the token-type table (BERT family: every token is type 0)
    norm:                     ((d,) weight or None, (d,) bias or None, eps, rms)
    """

    scale: float | None = None
    project_in: tuple[np.ndarray, np.ndarray | None] | None = None
    token_type: np.ndarray | None = None
    norm: tuple[np.ndarray, np.ndarray | None, float, bool] | None = None
    project_out: tuple[np.ndarray, np.ndarray | None] | None = None
    trigram: bool = False
    affine: tuple[np.ndarray, np.ndarray] | None = None
    unstated: Msg | None = None  # the model's forward does more than these steps: x cannot be stated, and why
    module: str = ""  # the module whose output this is, e.g. "BertEmbeddings"

    @property
    def plain(self) -> bool:
        return not self.trigram and self.unstated is None and all(v is None for v in (self.scale, self.project_in, self.token_type, self.norm,
                                                             self.affine, self.project_out))


def _readonly_f32(name: str, a: np.ndarray | None, d: int | None = None) -> np.ndarray | None:
    if a is None:
        return None
    if not isinstance(a, np.ndarray) or a.ndim != 2:
        got = getattr(a, "shape", type(a).__name__)
        raise CheckpointError("the {table} must be a 2-D array (rows, d_model); got {got}", table=Msg(name), got=str(got))
    if d is not None and a.shape[1] != d:
        raise CheckpointError("the {table} has {cols} columns but the token table has d_model = {d}; they must agree",
                              table=Msg(name), cols=a.shape[1], d=d)
    if a.shape[0] == 0 or a.shape[1] == 0:
        raise CheckpointError("the {table} is empty (shape {shape}); expected at least one row and column", table=Msg(name),
                              shape=str(a.shape))
    if a.dtype not in KEPT_DTYPES:  # bfloat16 and float16 stay as stored (memory-mapped); anything else is widened
        a = a.astype(np.float32)
    if a.flags.writeable:
        a = a.view()
        a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class Embeddings:
    """A model's first layer, immutable.

    token_table:    (V, d) float32, read-only; bfloat16 or float16 when the file stores it so (memory-mapped:
                    ``np.asarray(emb.token_table, np.float32)`` gives the float32 table)
    position_table: (T, d) float32 (or as stored, like the token table) or None
    position_kind:  "learned" | "sinusoidal" | "rope" | "alibi" | "relative" | "none"
    output_table:   (V, d) float32 or None (None when tied or when the model has no output head)
    tied:           True when the output projection reuses the token table
    """

    name: str
    token_table: np.ndarray
    position_table: np.ndarray | None
    position_kind: str
    output_table: np.ndarray | None
    tied: bool
    tokenizer: Tokenizer
    provenance: Provenance
    key: str = ""
    card: Card = field(default_factory=Card)
    block_input: BlockInput = field(default_factory=BlockInput)  # what block 1 receives beyond tok + pos

    def __post_init__(self) -> None:
        if not isinstance(self.card, Card):  # a plain dict of card fields is accepted and typed here
            object.__setattr__(self, "card", Card(**self.card))
        tok = _readonly_f32(N_("token table"), self.token_table)
        d = tok.shape[1]
        proj = self.block_input.project_in
        pos = _readonly_f32(N_("position table"), self.position_table, d if proj is None else proj[0].shape[0])
        out = _readonly_f32(N_("output table"), self.output_table, d)
        if out is not None and out.shape[0] != tok.shape[0]:
            raise CheckpointError("the output table has {out:,} rows but the token table has {tok:,}; an output "
                                  "projection must have one row per token", out=out.shape[0], tok=tok.shape[0])
        choices("position_kind", self.position_kind, POSITION_KINDS, CheckpointError)
        if (self.position_kind == "learned" and pos is None) or (pos is not None and self.position_kind not in (
                "learned", "sinusoidal")):
            raise CheckpointError("a learned position kind needs a position table, and only it has one")
        if self.tied and out is not None:
            raise CheckpointError("a tied model has no separate output table")
        object.__setattr__(self, "token_table", tok)
        object.__setattr__(self, "position_table", pos)
        object.__setattr__(self, "output_table", out)
        if not self.key:
            object.__setattr__(self, "key", self.name)

    # --- sizes -------------------------------------------------------------------------------
    @property
    def vocab_size(self) -> int:
        return int(self.token_table.shape[0])

    @property
    def d_model(self) -> int:
        return int(self.token_table.shape[1])

    @property
    def context(self) -> int | None:
        return None if self.position_table is None else int(self.position_table.shape[0])

    @property
    def output_kind(self) -> str:
        """"untied" (its own output table), "tied" (reuses the token table) or "none"."""
        if self.tied:
            return "tied"
        return "untied" if self.output_table is not None else "none"

    @property
    def params(self) -> dict[str, int]:
        """Parameters held by each table (a tied output table holds none of its own)."""
        return {
            "token": self.token_table.size,
            "position": 0 if self.position_table is None else self.position_table.size,
            "output": 0 if self.output_table is None else self.output_table.size,
        }

    # --- derived arrays, computed once --------------------------------------------------------
    @property
    def row_norms(self) -> np.ndarray:
        """(V,) float32: the length of every token row (computed once)."""
        return self.memo(("row_norms",), lambda: blocked_rows(
            self.token_table, lambda b: np.sqrt(np.einsum("ij,ij->i", b, b, dtype=np.float64)).astype(np.float32)))

    @property
    def keeps_unit_copy(self) -> bool:
        """Whether a unit-length copy of the token table is kept (small tables); large ones are scaled as they
        are read, so a model never holds twice its table."""
        return self.token_table.size * 4 <= DERIVED_COPY_MAX  # the copy is float32 whatever the table's dtype

    def token(self, token_id: int) -> str:
        """How one id is drawn everywhere (tables, chips, plots): the tokenizer's piece, whitespace made visible."""
        return visible(self.tokenizer.token(int(token_id)))

    def memo(self, key: tuple, compute):
        """A derived array computed once per model (the tables never change)."""
        cache = self.__dict__.setdefault("_memo", {})
        if key not in cache:
            cache[key] = compute()
        return cache[key]
