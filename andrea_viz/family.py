"""The ANDREA family, stated once: its id layout, its sizes, its parameter formula and its init.

Id layout: ids 0-255 are the bytes, then the Harris segments, then one BOS id (the last), so
``V = 256 + segments + 1``. Every size has context T = 1,024.

Layout (microGPT's): untied ``wte (V,d)``, ``wpe (T,d)``, ``lm_head (V,d)``; per layer
``attn_wq, attn_wk, attn_wv, attn_wo (d,d)``, ``mlp_fc1 (4d,d)``, ``mlp_fc2 (d,4d)``; no biases,
RMSNorm without weights. So ``params = 2·V·d + T·d + 12·L·d²`` (untied).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import QueryError
from .i18n import N_

BYTE_TOKENS = 256  # ids 0-255: one per byte value
FIRST_SEGMENT_ID = BYTE_TOKENS
BOS_TOKENS = 1  # one BOS id, the last of the vocabulary
CONTEXT = 1024  # T of every published ANDREA size
NOMINAL_120M = 120_000_000
WEIGHT_ORDER = ("wte", "wpe", "lm_head")  # the tables at the start of the weights block, in file order
LAYER_ORDER = ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")  # then per layer


def vocab_size(segments: int) -> int:
    """V = 256 bytes + the segments + 1 BOS."""
    return BYTE_TOKENS + segments + BOS_TOKENS


def segment_count(V: int) -> int:
    """The segments in a vocabulary of V ids (V - 257)."""
    return V - BYTE_TOKENS - BOS_TOKENS


def bos_id(V: int) -> int:
    return V - 1


def init_std(d: int) -> float:
    """The lesson's initial scale: std = 1/sqrt(d_model) (0.0361 for d = 768)."""
    return 1.0 / math.sqrt(d)


@dataclass(frozen=True)
class ModelShape:
    """The sizes that fix a model's parameter count."""

    name: str
    V: int
    d: int
    T: int
    L: int
    heads: int = 12
    tied: bool = False
    nominal: int | None = None  # the size in the model's name, e.g. 120M
    segments: int | None = None  # for the ANDREA sizes: V = 256 + segments + 1


def andrea_shape(name: str, segments: int, d: int, L: int, heads: int, nominal: int) -> ModelShape:
    return ModelShape(name, V=vocab_size(segments), d=d, T=CONTEXT, L=L, heads=heads, nominal=nominal,
                      segments=segments)


FAMILY: dict[str, ModelShape] = {
    "ANDREA-12M": andrea_shape("ANDREA-12M", 4_096, d=384, L=6, heads=12, nominal=12_800_000),  # the course
    "ANDREA-12M (model card)": andrea_shape("ANDREA-12M (model card)", 2_048, d=384, L=6, heads=12,
                                            nominal=12_800_000),
    "ANDREA-120M": andrea_shape("ANDREA-120M", 8_192, d=768, L=12, heads=12, nominal=NOMINAL_120M),
    "ANDREA-480M": andrea_shape("ANDREA-480M", 16_384, d=1536, L=16, heads=24, nominal=480_000_000),
}
# how a size's name is written on screen where it holds words (the names are keys, kept in English)
SHAPE_LABELS = {"ANDREA-12M (model card)": N_("ANDREA-12M (model card)")}
LAYERS_OF_WIDTH = {s.d: s.L for s in FAMILY.values()}  # d_model -> layers across the published sizes


@dataclass(frozen=True)
class ParamCount:
    """Parameters of each part of a model with the ANDREA layout."""

    token: int
    position: int
    output: int
    attention: int  # all layers: 4·d² each
    mlp: int  # all layers: 8·d² each
    layers: int

    @property
    def embeddings(self) -> int:
        return self.token + self.position

    @property
    def blocks(self) -> int:
        return self.attention + self.mlp

    @property
    def total(self) -> int:
        return self.token + self.position + self.output + self.blocks

    def parts(self) -> dict[str, int]:
        """The parts in display order (an output table of 0 means tied: it reuses the token table)."""
        return {
            "token table": self.token,
            "position table": self.position,
            "output table": self.output,
            "attention (wq, wk, wv, wo)": self.attention,
            "MLP (fc1, fc2)": self.mlp,
        }

    def shares(self, of: int | None = None, parts: dict[str, int] | None = None) -> dict[str, float]:
        """Each part (default: ``parts()``) as a fraction of ``of`` (default: the computed total)."""
        base = of or self.total
        return {k: v / base for k, v in (self.parts() if parts is None else parts).items()}


def _check_sizes(**sizes: int) -> None:
    for name, value in sizes.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise QueryError("{name} must be a whole number ≥ 0, got '{value}'", name=name, value=value)


def count_params(V: int, d: int, T: int, L: int, tied: bool = False) -> ParamCount:
    """Parameters of a model with the ANDREA layout: ``2·V·d + T·d + 12·L·d²`` untied,
    ``V·d + T·d + 12·L·d²`` tied."""
    _check_sizes(V=V, d=d, T=T, L=L)
    return ParamCount(token=V * d, position=T * d, output=0 if tied else V * d, attention=L * 4 * d * d,
                      mlp=L * 8 * d * d, layers=L)


def count_shape(shape: ModelShape, tied: bool | None = None) -> ParamCount:
    return count_params(shape.V, shape.d, shape.T, shape.L, shape.tied if tied is None else tied)
