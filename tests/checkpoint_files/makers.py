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


def nanogpt_ckpt(path: Path, compiled: bool = False, vocab_size: int = 96, dataset: str = "openwebtext",
                 iter_num: int = 7, steps: int = 1, seed: int = 0, model: NanoGPTLike | None = None,
                 data: torch.Tensor | None = None) -> NanoGPTLike:
    """Saved as nanoGPT's train.py saves: model, optimizer, model_args, iter_num, best_val_loss, config.

    ``model``: go on training a model already made (for several checkpoints of one run); ``data``: the
    token ids to train on (random ids when None)."""
    torch.manual_seed(seed)
    model = model or NanoGPTLike(vocab_size=vocab_size)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    for _ in range(steps):
        idx = data[torch.randint(0, len(data) - 9, (4,))[:, None] + torch.arange(9)] if data is not None \
            else torch.randint(0, vocab_size, (2, 9))
        logits = model(idx[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, vocab_size), idx[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    raw = torch.compile(model) if compiled else model  # an OptimizedModule's keys carry '_orig_mod.'
    torch.save({
        "model": raw.state_dict(), "optimizer": opt.state_dict(),
        "model_args": dict(n_layer=1, n_head=2, n_embd=16, block_size=32, bias=False, vocab_size=vocab_size,
                           dropout=0.0),
        "iter_num": iter_num, "best_val_loss": torch.tensor(3.2),
        "config": {"batch_size": 2, "learning_rate": 1e-3, "dataset": dataset},
    }, path)
    return model


def nanogpt_char_prepare(folder: Path, text: str) -> dict:
    """nanoGPT's data/<dataset>/prepare.py for a character-level run: sorted characters, stoi, itos, and
    meta.pkl written with pickle.dump (its default protocol)."""
    import pickle

    chars = sorted(list(set(text)))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    meta = {"vocab_size": len(chars), "itos": itos, "stoi": stoi}
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "meta.pkl", "wb") as f:
        pickle.dump(meta, f)
    return meta


def llmc_write_tokenizer(tokens: list[bytes], filename: Path, version: int = 2, eot: int | None = None) -> None:
    """llm.c's train_gpt2.py write_tokenizer, with the token bytes given instead of tiktoken's encoding."""
    import struct

    n = len(tokens)
    header = torch.zeros(256, dtype=torch.int32)
    header[0] = 20240328  # magic
    header[1] = version  # 1, or 2 (includes the EOT token)
    header[2] = n  # number of tokens
    if version == 2:
        header[3] = n - 1 if eot is None else eot  # EOT token
    with open(filename, "wb") as file:
        file.write(header.numpy().tobytes())
        for b in tokens:
            assert len(b) < 256
            file.write(struct.pack("<B", len(b)))  # the length as a 1-byte unsigned int
            file.write(b)


GPT2_LIKE_TOKENS = [bytes([i]) for i in range(256)] + [b" the", b" cat", b"cat", b" dog", b"\xe7\x8c", b"\xab", b" sat",
                                                       b"<|endoftext|>"]


def byte_level_bpe(folder: Path) -> tuple[Path, Path, Path]:
    """A GPT-2-style byte-level BPE trained by the tokenizers package: vocab.json, merges.txt and tokenizer.json."""
    from tokenizers import ByteLevelBPETokenizer

    tok = ByteLevelBPETokenizer()
    text = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog", "cats and dogs sit"] * 20
    tok.train_from_iterator(text, vocab_size=300, min_frequency=2, show_progress=False)
    folder.mkdir(parents=True, exist_ok=True)
    vocab, merges = tok.save_model(str(folder))
    tok.save(str(folder / "tokenizer.json"))
    return Path(vocab), Path(merges), folder / "tokenizer.json"


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


# --- GGUF, written by the gguf package's own GGUFWriter -------------------------------------------
SPM_WORDS = ["cat", "dog", "the", "sat", "tuesday", "kit", "ten"]


def spm_vocab(V: int) -> tuple[list[str], list[float], list[int]]:
    """A llama-style SentencePiece vocabulary: <unk> <s> </s>, the 256 byte tokens, then ▁, letters and the
    merges that build ▁cat, ▁dog, … (longer pieces score higher, as SentencePiece BPE's do), padded to V."""
    tokens, scores, types = ["<unk>", "<s>", "</s>"], [0.0, 0.0, 0.0], [2, 3, 3]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    scores += [0.0] * 256
    types += [6] * 256
    pieces = ["\u2581"] + sorted({c for w in SPM_WORDS for c in w})
    for w in SPM_WORDS:
        pieces += ["\u2581" + w[:n] for n in range(1, len(w) + 1)]
    for p in dict.fromkeys(pieces):
        tokens.append(p)
        scores.append(-100.0 + len(p))
        types.append(1)
    n = 0
    while len(tokens) < V:
        tokens.append(f"\u2581w{n}")
        scores.append(-1000.0)
        types.append(1)
        n += 1
    return tokens[:V], scores[:V], types[:V]


def pack_k_blocks(qtype, rows: int, d: int, seed: int = 0) -> np.ndarray:
    """(rows, bytes) of Q4_K or Q6_K blocks packed by hand (gguf's quants.quantize does not make K-quants): random
    quants and 6-bit scales, with small finite fp16 super-block scales, in llama.cpp's block_q4_K / block_q6_K layout."""
    from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType

    g = np.random.default_rng(seed)
    block, size = GGML_QUANT_SIZES[qtype]
    n = rows * d // block
    raw = g.integers(0, 256, (n, size), dtype=np.uint8)
    if qtype == GGMLQuantizationType.Q4_K:  # d (f16), dmin (f16), 12 bytes of scales and mins, 128 bytes of quants
        raw[:, 0:2] = g.uniform(0.005, 0.015, n).astype(np.float16).view(np.uint8).reshape(n, 2)
        raw[:, 2:4] = g.uniform(0.001, 0.004, n).astype(np.float16).view(np.uint8).reshape(n, 2)
    elif qtype == GGMLQuantizationType.Q6_K:  # 128 bytes low bits, 64 high bits, 16 int8 scales, d (f16) last
        raw[:, size - 2 : size] = g.uniform(0.0005, 0.002, n).astype(np.float16).view(np.uint8).reshape(n, 2)
    else:
        raise ValueError(qtype)
    return raw.reshape(rows, -1)


def gguf_model(path: Path, V: int = 320, d: int = 64, qtype: str = "F32", tokenizer: str = "llama",
               untied: bool = False, table: np.ndarray | None = None, layers: int = 2, context: int = 256,
               seed: int = 0, arch: str = "llama", positions: int = 0, output_qtype: str = "F32",
               big_endian: bool = False) -> dict:
    """A llama-architecture GGUF as llama.cpp's converters write one: metadata, the tokenizer, token_embd.weight in
    ``qtype`` (F32, F16, BF16, Q8_0, Q4_0 by gguf.quants.quantize; Q4_K, Q6_K packed by pack_k_blocks), and
    output.weight when untied (in ``output_qtype``), position_embd.weight when ``positions`` > 0 (GPT-2, BERT).
    Returns what was written: the raw bytes, the type and the tokens."""
    import gguf
    from gguf import quants

    qt = gguf.GGMLQuantizationType[qtype]
    g = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), arch=arch, endianess=gguf.GGUFEndian.BIG if big_endian else gguf.GGUFEndian.LITTLE)
    w.add_name(f"tiny-{arch}")
    w.add_block_count(layers)
    w.add_context_length(context)
    w.add_embedding_length(d)
    w.add_head_count(2)
    if not positions:
        w.add_rope_freq_base(10000.0)
    if tokenizer == "llama":
        tokens, scores, types = spm_vocab(V)
        w.add_tokenizer_model("llama")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        w.add_unk_token_id(0)
    elif tokenizer == "gpt2":
        vocab, merges, _ = byte_level_bpe(path.parent / "bpe")
        by_id = sorted(json.loads(vocab.read_text()).items(), key=lambda kv: kv[1])
        tokens = [t for t, _ in by_id]
        tokens += [f"<pad{i}>" for i in range(V - len(tokens))]
        w.add_tokenizer_model("gpt2")
        w.add_token_list(tokens)
        w.add_token_merges([m for m in merges.read_text().splitlines() if m and not m.startswith("#")])
    elif tokenizer == "bert":
        tokens = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "cat", "dog", "kit", "##ten", "##s", "sat"]
        tokens += [f"w{i}" for i in range(V - len(tokens))]
        w.add_tokenizer_model("bert")
        w.add_token_list(tokens)
        w.add_token_types([3 if t.startswith("[") else 1 for t in tokens])
        w.add_unk_token_id(1)
    else:
        tokens = []
    if table is None:
        table = g.standard_normal((V, d)).astype(np.float32) * np.float32(0.05)
    if qtype in ("Q4_K", "Q6_K"):
        raw = pack_k_blocks(qt, V, d, seed)
    else:
        raw = quants.quantize(table, qt)
    w.add_tensor("token_embd.weight", raw, raw_dtype=qt)
    out = pos = None
    if positions:
        pos = g.standard_normal((positions, d)).astype(np.float32)
        w.add_tensor("position_embd.weight", pos)
    if untied:
        out = g.standard_normal((V, d)).astype(np.float32)
        oq = gguf.GGMLQuantizationType[output_qtype]
        w.add_tensor("output.weight", quants.quantize(out, oq), raw_dtype=oq)
        out = quants.dequantize(quants.quantize(out, oq), oq)
    w.add_tensor("blk.0.attn_q.weight", g.standard_normal((d, d)).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return {"raw": raw, "qtype": qt, "tokens": tokens, "output": out, "table": table, "positions": pos}


# Tiny configurations of real Hugging Face families: (architecture class, model_type, config fields). Written by
# transformers' own save_pretrained, so the files hold the keys real checkpoints hold (renames on save included).
HF_V, HF_D = 96, 16
_LAYERS = dict(num_hidden_layers=1, num_attention_heads=2)
HF_FAMILIES = {
    "gpt2": ("GPT2LMHeadModel", "gpt2", dict(n_embd=HF_D, n_layer=1, n_head=2, n_positions=32)),
    "llama-untied": ("LlamaForCausalLM", "llama", dict(hidden_size=HF_D, intermediate_size=32, num_key_value_heads=2,
                                                       tie_word_embeddings=False, **_LAYERS)),
    "llama-tied": ("LlamaForCausalLM", "llama", dict(hidden_size=HF_D, intermediate_size=32, num_key_value_heads=2,
                                                     tie_word_embeddings=True, **_LAYERS)),
    "qwen2": ("Qwen2ForCausalLM", "qwen2", dict(hidden_size=HF_D, intermediate_size=32, num_key_value_heads=1,
                                                tie_word_embeddings=False, **_LAYERS)),
    "mistral": ("MistralForCausalLM", "mistral", dict(hidden_size=HF_D, intermediate_size=32, num_key_value_heads=1,
                                                      head_dim=8, **_LAYERS)),
    "gpt_neox": ("GPTNeoXForCausalLM", "gpt_neox", dict(hidden_size=HF_D, intermediate_size=32, rotary_pct=0.5,
                                                        **_LAYERS)),
    "opt": ("OPTForCausalLM", "opt", dict(hidden_size=HF_D, ffn_dim=32, word_embed_proj_dim=8, max_position_embeddings=32,
                                          **_LAYERS)),
    "bloom": ("BloomForCausalLM", "bloom", dict(hidden_size=HF_D, n_layer=1, n_head=2)),
    "falcon": ("FalconForCausalLM", "falcon", dict(hidden_size=HF_D, alibi=True, **_LAYERS)),
    "phi": ("PhiForCausalLM", "phi", dict(hidden_size=HF_D, intermediate_size=32, **_LAYERS)),
    "gemma": ("GemmaForCausalLM", "gemma", dict(hidden_size=HF_D, intermediate_size=32, num_key_value_heads=1, head_dim=8,
                                                **_LAYERS)),
    "gptj": ("GPTJForCausalLM", "gptj", dict(n_embd=HF_D, n_layer=1, n_head=2, rotary_dim=4, n_positions=32)),
    "mpt": ("MptForCausalLM", "mpt", dict(d_model=HF_D, n_layers=1, n_heads=2, max_seq_len=32)),
    "bert": ("BertForMaskedLM", "bert", dict(hidden_size=HF_D, intermediate_size=32, max_position_embeddings=32,
                                             **_LAYERS)),
    "roberta": ("RobertaForMaskedLM", "roberta", dict(hidden_size=HF_D, intermediate_size=32, max_position_embeddings=34,
                                                      **_LAYERS)),
    "modernbert": ("ModernBertForMaskedLM", "modernbert", dict(hidden_size=HF_D, intermediate_size=32, pad_token_id=0,
                                                               bos_token_id=1, eos_token_id=2, cls_token_id=1,
                                                               sep_token_id=2, **_LAYERS)),
    "distilbert": ("DistilBertForMaskedLM", "distilbert", dict(dim=HF_D, hidden_dim=32, n_layers=1, n_heads=2,
                                                               max_position_embeddings=32)),
    "albert": ("AlbertForMaskedLM", "albert", dict(embedding_size=8, hidden_size=HF_D, intermediate_size=32,
                                                   max_position_embeddings=32, **_LAYERS)),
    "t5": ("T5ForConditionalGeneration", "t5", dict(d_model=HF_D, d_kv=8, d_ff=32, num_layers=1, num_heads=2)),
    "bart": ("BartForConditionalGeneration", "bart", dict(d_model=HF_D, encoder_layers=1, decoder_layers=1,
                                                          encoder_attention_heads=2, decoder_attention_heads=2,
                                                          encoder_ffn_dim=32, decoder_ffn_dim=32,
                                                          max_position_embeddings=32)),
}


def hf_family(folder: Path, family: str, dtype=None, max_shard_size: str | None = None, seed: int = 0):
    """A tiny random model of one family, saved by transformers' save_pretrained; returns the model (fp32, eval)."""
    import transformers

    arch, model_type, fields = HF_FAMILIES[family]
    torch.manual_seed(seed)
    cfg = transformers.AutoConfig.for_model(model_type, vocab_size=HF_V, **fields)
    model = getattr(transformers, arch)(cfg).eval()
    saved = model.to(dtype) if dtype is not None else model
    saved.save_pretrained(folder, **({"max_shard_size": max_shard_size} if max_shard_size else {}))
    return model


LESSON_WORDS = ["[UNK]", "the", "cat", "sat", "on", "a", "mat", "dog", "log", "completely", "different", "sentence",
                "king", "queen", "man", "woman", "and", "is", "of", "to"]


def word_level_tokenizer(folder: Path, size: int = HF_V) -> Path:
    """A tokenizer.json of ``size`` whole words (the lesson's words first), written by the tokenizers package."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.pre_tokenizers import Whitespace

    words = LESSON_WORDS + [f"w{i}" for i in range(size - len(LESSON_WORDS))]
    tok = Tokenizer(WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    return folder / "tokenizer.json"


class _Args:  # stands for transformers' TrainingArguments: an arbitrary object, pickled by torch.save
    def __init__(self, **kw):
        self.__dict__.update(kw)


def trainer_output_dir(folder: Path, steps=(2, 4), final_step: int | None = 5, family: str = "gpt2"):
    """A Trainer's output_dir as transformers' Trainer leaves it (_save_checkpoint, then save_model and save_state):
    checkpoint-N/ with the model by save_pretrained, optimizer.pt, scheduler.pt, rng_state.pth, training_args.bin and
    trainer_state.json; the final model at the top level. The weights change between steps (an SGD step each).
    (Written by hand: the Trainer itself needs accelerate, which is not installed here.)"""
    model = hf_family(folder / "_start", family)
    import shutil

    shutil.rmtree(folder / "_start")
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
    ids = torch.randint(0, HF_V, (2, 8), generator=torch.Generator().manual_seed(0))
    tables = {}
    for step in range(1, max(max(steps), final_step or 0) + 1):
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        tables[step] = model.get_input_embeddings().weight.detach().clone().numpy()
        if step in steps:
            ck = folder / f"checkpoint-{step}"
            model.save_pretrained(ck)
            torch.save(opt.state_dict(), ck / "optimizer.pt")
            torch.save(sched.state_dict(), ck / "scheduler.pt")
            torch.save({"python": 1, "cpu": torch.get_rng_state()}, ck / "rng_state.pth")
            torch.save(_Args(output_dir=str(folder), save_steps=steps[0]), ck / "training_args.bin")
            (ck / "trainer_state.json").write_text(json.dumps({"global_step": step, "log_history": []}))
    if final_step is not None:
        model.save_pretrained(folder)
        torch.save(_Args(output_dir=str(folder)), folder / "training_args.bin")
        (folder / "trainer_state.json").write_text(json.dumps({"global_step": final_step, "log_history": []}))
    return tables
