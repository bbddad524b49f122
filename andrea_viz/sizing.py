"""Parameter counts: how big embedding tables are and where a model's parameters live.

The ANDREA layout (microGPT's): untied ``wte (V,d)``, ``wpe (T,d)``, ``lm_head (V,d)``; per layer
``attn_wq, attn_wk, attn_wv, attn_wo (d,d)``, ``mlp_fc1 (4d,d)``, ``mlp_fc2 (d,4d)``; no biases,
RMSNorm without weights. So ``params = 2·V·d + T·d + 12·L·d²`` (untied).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import QueryError

NOMINAL_120M = 120_000_000


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
    note: str = ""  # how V is made up


ANDREA_FAMILY: dict[str, ModelShape] = {
    "ANDREA-12M": ModelShape(
        "ANDREA-12M", V=4_353, d=384, T=1024, L=6, heads=12, nominal=12_800_000,
        note="4,096 segments + 256 bytes + 1 BOS (course)",
    ),
    "ANDREA-12M (model card)": ModelShape(
        "ANDREA-12M (model card)", V=2_305, d=384, T=1024, L=6, heads=12, nominal=12_800_000,
        note="2,048 segments + 256 bytes + 1 BOS (model card)",
    ),
    "ANDREA-120M": ModelShape(
        "ANDREA-120M", V=8_449, d=768, T=1024, L=12, heads=12, nominal=NOMINAL_120M,
        note="8,192 segments + 256 bytes + 1 BOS",
    ),
    "ANDREA-480M": ModelShape(
        "ANDREA-480M", V=16_641, d=1536, T=1024, L=16, heads=24, nominal=480_000_000,
        note="16,384 segments + 256 bytes + 1 BOS",
    ),
}


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

    def shares(self, of: int | None = None) -> dict[str, float]:
        """Each part as a fraction of ``of`` (default: the computed total)."""
        base = of or self.total
        return {k: v / base for k, v in self.parts().items()}


def _check_positive(**sizes: int) -> None:
    for name, value in sizes.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise QueryError(f"{name} must be a whole number ≥ 0, got {value!r}")


def token_table_params(V: int, d: int) -> int:
    """Entries of a (V, d) lookup table."""
    _check_positive(V=V, d=d)
    return V * d


def count_params(V: int, d: int, T: int, L: int, tied: bool = False) -> ParamCount:
    """Parameters of a model with the ANDREA layout: ``2·V·d + T·d + 12·L·d²`` untied,
    ``V·d + T·d + 12·L·d²`` tied."""
    _check_positive(V=V, d=d, T=T, L=L)
    return ParamCount(
        token=V * d,
        position=T * d,
        output=0 if tied else V * d,
        attention=L * 4 * d * d,
        mlp=L * 8 * d * d,
        layers=L,
    )


def count_shape(shape: ModelShape, tied: bool | None = None) -> ParamCount:
    return count_params(shape.V, shape.d, shape.T, shape.L, shape.tied if tied is None else tied)


def tying_saving(V: int, d: int) -> int:
    """Parameters saved by tying: the output projection reuses the (V, d) token table."""
    return token_table_params(V, d)


BYTES_PER_PARAM = {"fp32": 4, "bf16": 2}


def table_bytes(n_params: int, dtype: str = "fp32") -> int:
    if dtype not in BYTES_PER_PARAM:
        raise QueryError(f"dtype must be one of {sorted(BYTES_PER_PARAM)}, got {dtype!r}")
    return n_params * BYTES_PER_PARAM[dtype]


def human_bytes(n: int) -> str:
    """1,536 -> '1.5 KB' (decimal units, as disk and download sizes are quoted)."""
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")


def product_arithmetic(V: int, d: int) -> str:
    """The exercise's arithmetic written out: '16,641 × 1,536 = 25,560,576'."""
    return f"{V:,} × {d:,} = {token_table_params(V, d):,}"
