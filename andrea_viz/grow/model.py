"""A model with ANDREA's exact layout, in PyTorch (microGPT's, see andrea_viz.family).

Untied ``wte (V,d)``, ``wpe (T,d)``, ``lm_head (V,d)`` (``tied``: ``lm_head`` is ``wte``, GPT-2's way); per layer ``attn_wq, attn_wk, attn_wv,
attn_wo (d,d)``, ``mlp_fc1 (4d,d)``, ``mlp_fc2 (d,4d)``; no biases; RMSNorm without weights; GELU in
the MLP; causal multi-head attention. Its parameter count is ``2·V·d + T·d + 12·L·d²`` exactly.
The three tables start as N(0, 1/√d), the lesson's init.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..family import LAYER_ORDER, WEIGHT_ORDER, ModelShape, init_std


def rms_norm(x: torch.Tensor) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.attn_wq, self.attn_wk, self.attn_wv, self.attn_wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.mlp_fc1 = nn.Linear(d, 4 * d, bias=False)  # weight (4d, d)
        self.mlp_fc2 = nn.Linear(4 * d, d, bias=False)  # weight (d, 4d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, T, d)
        B, T, d = x.shape
        h = rms_norm(x)
        q, k, v = (w(h).view(B, T, self.heads, d // self.heads).transpose(1, 2)
                   for w in (self.attn_wq, self.attn_wk, self.attn_wv))  # (B, heads, T, d/heads)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, d)
        x = x + self.attn_wo(a)
        return x + self.mlp_fc2(F.gelu(self.mlp_fc1(rms_norm(x))))


class Andrea(nn.Module):
    def __init__(self, shape: ModelShape):
        super().__init__()
        V, d, T = shape.V, shape.d, shape.T
        self.shape = shape
        self.wte = nn.Parameter(torch.empty(V, d))
        self.wpe = nn.Parameter(torch.empty(T, d))
        self.lm_head = self.wte if shape.tied else nn.Parameter(torch.empty(V, d))  # tied: one tensor, two names
        self.blocks = nn.ModuleList(Block(d, shape.heads) for _ in range(shape.L))

    def init_weights(self, generator: torch.Generator) -> None:
        """Tables from N(0, 1/√d); block matrices from N(0, 1/√fan_in), the output projections of each
        layer scaled down by √(2L) so the residual stream starts near the embeddings."""
        std = init_std(self.shape.d)
        with torch.no_grad():
            # tied: the head's draw is still made (and dropped), so every other tensor starts exactly as in the
            # untied model of the same seed, and the two differ in the head alone
            for i, t in enumerate((self.wte, self.wpe, self.lm_head)):
                (torch.empty_like(t) if i == 2 and self.shape.tied else t).normal_(0.0, std, generator=generator)
            for b in self.blocks:
                for name in LAYER_ORDER:
                    w = getattr(b, name).weight
                    scale = 1 / math.sqrt(w.shape[1])
                    if name in ("attn_wo", "mlp_fc2"):
                        scale /= math.sqrt(2 * self.shape.L)
                    w.normal_(0.0, scale, generator=generator)

    def ordered_parameters(self) -> list[tuple[str, torch.Tensor]]:
        """Every parameter in the file's order: the three tables, then each layer's six matrices."""
        out = [(n, getattr(self, n)) for n in WEIGHT_ORDER]
        for i, b in enumerate(self.blocks):
            out += [(f"layer{i}.{n}", getattr(b, n).weight) for n in LAYER_ORDER]
        return out

    def forward(self, idx: torch.Tensor) -> torch.Tensor:  # (B, T) -> logits (B, T, V)
        T = idx.shape[1]
        x = self.wte[idx] + self.wpe[:T]  # x_t = token_embedding[id_t] + position_embedding[t]
        for b in self.blocks:
            x = b(x)
        return rms_norm(x) @ self.lm_head.T
