"""The lesson's share claims, reconciled with what the layout computes: where the parameters live."""

from __future__ import annotations

from dataclasses import dataclass

from ..family import FAMILY, count_shape


@dataclass(frozen=True)
class BlockShare:
    """The lesson's "the other 94% live in the transformer blocks", against the computed layout."""

    embeddings_of_nominal: float  # token + position, of the nominal 120M: the lesson's "about 6%"
    rest_of_nominal: float  # 100% minus that: the lesson's "94%"
    blocks_of_nominal: float  # the blocks alone, of the nominal
    blocks_of_computed: float  # the blocks alone, of the computed total
    output_of_nominal: float  # the untied output table, which the 94% silently includes
    output_of_computed: float


def block_share(size: str = "ANDREA-120M") -> BlockShare:
    s = FAMILY[size]
    pc = count_shape(s)
    return BlockShare(pc.embeddings / s.nominal, 1 - pc.embeddings / s.nominal, pc.blocks / s.nominal,
                      pc.blocks / pc.total, pc.output / s.nominal, pc.output / pc.total)
