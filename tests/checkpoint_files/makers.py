"""Checkpoint files written by the real tools of each format, small enough for tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn


class NanoGPTLike(nn.Module):
    """nanoGPT's module names and weight tying (model.py): transformer.wte / wpe, lm_head tied to wte."""

    def __init__(self, vocab_size=96, block_size=32, n_embd=16):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd),
                                              ln_f=nn.LayerNorm(n_embd)))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying, as nanoGPT does

    def forward(self, idx):
        x = self.transformer.wte(idx) + self.transformer.wpe(torch.arange(idx.shape[1]))
        return self.lm_head(self.transformer.ln_f(x))


def nanogpt_ckpt(path: Path, compiled: bool = False) -> NanoGPTLike:
    """Saved as nanoGPT's train.py saves: model, optimizer, model_args, iter_num, best_val_loss, config."""
    torch.manual_seed(0)
    model = NanoGPTLike()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss = model(torch.randint(0, 96, (2, 8))).logsumexp(-1).mean()
    loss.backward()
    opt.step()
    raw = torch.compile(model) if compiled else model  # an OptimizedModule's keys carry '_orig_mod.'
    torch.save({
        "model": raw.state_dict(), "optimizer": opt.state_dict(),
        "model_args": dict(n_layer=1, n_head=2, n_embd=16, block_size=32, bias=False, vocab_size=96, dropout=0.0),
        "iter_num": 7, "best_val_loss": torch.tensor(3.2), "config": {"batch_size": 2, "learning_rate": 1e-3},
    }, path)
    return model


def hf_gpt2(folder: Path, safe: bool = True):
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, vocab_size=120, n_positions=64))
    model.save_pretrained(folder, safe_serialization=safe)
    return model


def hf_bert(folder: Path):
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "dog", "kit", "##ten", "sat"] + [f"w{i}" for i in range(90)]
    model = BertModel(BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=64, max_position_embeddings=40))
    model.save_pretrained(folder)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    return model


def hf_llama(folder: Path):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                         num_attention_heads=2, num_key_value_heads=2, tie_word_embeddings=False))
    model.save_pretrained(folder)
    return model


def meta_consolidated(path: Path) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    sd = {"tok_embeddings.weight": torch.randn(64, 16, generator=g), "output.weight": torch.randn(64, 16, generator=g),
          "layers.0.attention.wq.weight": torch.randn(16, 16, generator=g), "norm.weight": torch.ones(16)}
    torch.save(sd, path)
    return sd


def andrea_weights(V: int, d: int, T: int, L: int) -> np.ndarray:
    """Known values at known offsets: weight i is i·1e-6 (exact in float32 for these sizes)."""
    n = 2 * V * d + T * d + 12 * L * d * d
    return (np.arange(n, dtype=np.float64) * 1e-6).astype(np.float32)


def andrea_bin(path: Path, V: int, d: int, T: int, L: int, step: int = 1234, adam: bool = True,
               config: bool = False) -> np.ndarray:
    """The published layout: int32 step, int32 n_params, the weights, then Adam m and v."""
    w = andrea_weights(V, d, T, L)
    with open(path, "wb") as f:
        f.write(np.array([step, w.size], "<i4").tobytes())
        f.write(w.astype("<f4").tobytes())
        if adam:  # NaN in m and v: a loader that reads them would show it
            nan = np.full(w.size, np.nan, "<f4").tobytes()
            f.write(nan)
            f.write(nan)
    if config:
        path.with_suffix(".json").write_text(json.dumps({"vocab_size": V, "n_embd": d, "block_size": T, "n_layer": L}))
    return w


def llmc_bin(path: Path, V: int = 100, Vp: int = 128, maxT: int = 32, C: int = 16, L: int = 1, bf16: bool = False):
    """llm.c's write_model layout: 256 × int32 header, then wte (Vp, C), wpe (maxT, C), then the rest."""
    header = np.zeros(256, "<i4")
    header[:8] = [20240326, 5 if bf16 else 3, maxT, V, L, 2, C, Vp]
    g = np.random.default_rng(0)
    wte, wpe, rest = (g.standard_normal(s).astype(np.float32) for s in ((Vp, C), (maxT, C), (4 * C * C,)))
    with open(path, "wb") as f:
        f.write(header.tobytes())
        for a in (wte, wpe, rest):
            if bf16:
                f.write((a.view(np.uint32) >> 16).astype("<u2").tobytes())
            else:
                f.write(a.astype("<f4").tobytes())
    if bf16:
        wte = ((wte.view(np.uint32) >> 16) << 16).view(np.float32)
        wpe = ((wpe.view(np.uint32) >> 16) << 16).view(np.float32)
    return wte[:V], wpe
