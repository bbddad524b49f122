"""A corpus of (base, tuned) checkpoint pairs made here by transformers' own code, for the fine-tune audit.

Tiny GPT-2 and Llama models (66 tokens × 16) saved with ``save_pretrained``, with a WordLevel tokenizer wrapped in
``PreTrainedTokenizerFast``; each failure pair is one kind of vocabulary surgery (``resize_token_embeddings`` with
each ``mean_resizing`` setting, rows set to zeros / a copy / a description's mean, ``add_tokens`` then a few training
steps, reserved rows reused, renamed rows, padding rows, a tokenizer longer than the table, a shrunk table, a
config/bytes tie mismatch, a folder of config and weights alone), and each clean pair a fine-tune that changed no
vocabulary (copies, a few training steps, sharded files, no tokenizer). ``Pair.expect`` says what the audit must
find: the number of entries of each non-empty list, the init method of each added row and whether it moved, and
the tie state.

``Corpus(root).pair(name)`` builds a pair on first use (bases once); ``SPECS`` names every pair.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import torch
import transformers

WORDS = ["[UNK]", "[PAD]", *(f"[unused{i}]" for i in range(5)), "cat", "dog", "kat", "hond", "the", "a", "sat", "on",
         "mat", "ran", "home", "big", "small", "red", "blue", *(f"w{i}" for i in range(44))]  # 66 tokens
V, D = len(WORDS), 16
TEXT = "the cat sat on the mat a dog ran home the big red cat the small blue dog"
NEW = ["<tool>", "</tool>", "<sep>", "<end>", "<img>", "</img>", "<a>", "<b>"]
KEEPS = {"transformers": "keeps", "vllm": "keeps", "llama_cpp": "keeps"}


def tokenizer(words: list[str] = WORDS, added: list[str] = ()):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]")
    if added:
        fast.add_tokens(list(added))
    return fast


def model(kind: str, tied: bool = True, seed: int = 0):
    torch.manual_seed(seed)
    if kind == "gpt2":
        cfg = transformers.GPT2Config(vocab_size=V, n_embd=D, n_layer=1, n_head=2, n_positions=32, tie_word_embeddings=tied)
    else:
        cfg = transformers.LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=1,
                                       num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=32,
                                       tie_word_embeddings=tied)
    return transformers.AutoModelForCausalLM.from_config(cfg)


def train(m, tok, steps: int = 3, text: str = TEXT, lr: float = 1e-2, embeddings_only: bool = False) -> None:
    """A few Adam steps on ``text`` (no weight decay: rows no gradient reaches stay exactly as they were);
    ``embeddings_only``: every other parameter frozen."""
    ids = torch.tensor([tok(text)["input_ids"]])
    params = [m.get_input_embeddings().weight] if embeddings_only else list(m.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        m(input_ids=ids, labels=ids).loss.backward()
        opt.step()


def edit_config(folder: Path, **changes) -> None:
    p = folder / "config.json"
    cfg = json.loads(p.read_text())
    cfg.update(changes)
    p.write_text(json.dumps(cfg))


@dataclass(frozen=True)
class Expect:
    findings: dict[str, int] = field(default_factory=dict)  # list name -> entries (every other list empty)
    init: tuple[str, ...] = ()  # the init method of each added row, in id order
    moved: tuple[bool | None, ...] = ()
    tie: dict[str, str] | None = None  # None: consistent (config == bytes) and every loader keeps

    @property
    def clean(self) -> bool:
        return not self.findings and self.tie is None


@dataclass(frozen=True)
class Pair:
    name: str
    mode: str  # the failure mode, or "clean"
    base: str
    tuned: str
    step0: str | None
    expect: Expect


BASES = {"gpt2": ("gpt2", True, 0), "llama": ("llama", False, 1), "llama_tied": ("llama", True, 2)}


@dataclass(frozen=True)
class Spec:
    name: str
    mode: str
    base: str  # a key of BASES
    build: Callable  # (model, root) -> tokenizer | None (None: the base's tokenizer; False: save no tokenizer)
    expect: Expect
    step0: bool = False  # build saves a step-0 snapshot at root / f"{name}-step0"


def _resize(n: int, mean: bool, after: Callable | None = None, pad: int | None = None):
    def build(m, folder):
        t = tokenizer(added=NEW[:n])
        m.resize_token_embeddings(len(t), mean_resizing=mean, pad_to_multiple_of=pad)
        if after is not None:
            with torch.no_grad():
                after(m.get_input_embeddings().weight)
        return t
    return build


def _trained_after_resize(n: int, steps: int):
    def build(m, folder):
        t = tokenizer(added=NEW[:n])
        m.resize_token_embeddings(len(t), mean_resizing=True)
        m.save_pretrained(folder.parent / f"{folder.name}-step0")
        t.save_pretrained(folder.parent / f"{folder.name}-step0")
        train(m, t, steps, TEXT + " " + " ".join(NEW[:n]) + " the cat")  # every new token is fed in and predicted
        return t
    return build


def _words(change: dict[int, str]):
    def build(m, folder):
        words = list(WORDS)
        for i, w in change.items():
            words[i] = w
        return tokenizer(words)
    return build


def _reserved_trained(i: int):
    def build(m, folder):
        with torch.no_grad():  # the row of [unused i] learned (its string kept): the rest of the table untouched
            m.get_input_embeddings().weight[i] += 0.5
        return None
    return build


def _description(m, folder):
    t = tokenizer(added=["cat dog", "big red"])
    m.resize_token_embeddings(len(t), mean_resizing=False)
    with torch.no_grad():
        w = m.get_input_embeddings().weight
        w[V] = (w[7] + w[8]) / 2
        w[V + 1] = (w[18] + w[20]) / 2
    return t


def _bf16_mean(n: int):
    def build(m, folder):
        m.to(torch.bfloat16)
        t = tokenizer(added=NEW[:n])
        m.resize_token_embeddings(len(t), mean_resizing=True)
        return t
    return build


def _ids_only(n: int):
    def build(m, folder):
        m.resize_token_embeddings(V + n, mean_resizing=True)
        return False
    return build


def _trained(steps: int, text: str = TEXT, lr: float = 1e-2, embeddings_only: bool = False):
    def build(m, folder):
        train(m, tokenizer(), steps, text, lr, embeddings_only)
        return None
    return build


def _sharded(m, folder):
    train(m, tokenizer(), 2)
    m.save_pretrained(folder, max_shard_size="20KB")  # an index and several files: the audit reads the index
    return None


def _tie(config_tied: bool):
    def build(m, folder):
        m.save_pretrained(folder)
        edit_config(folder, tie_word_embeddings=config_tied)
        return None
    return build


def _added(n: int, init: str, moved: bool | None = False, extra: dict | None = None, base_n: int | None = None):
    return Expect({"added_rows": base_n or n, **(extra or {})}, (init,) * n, (moved,) * n)


SPECS: list[Spec] = [
    # added rows, mean_resizing=True: a sample of N(mean, 1e-9·Σ)
    Spec("mvn_gpt2_1", "resize_mvn", "gpt2", _resize(1, True), _added(1, "mvn")),
    Spec("mvn_gpt2_4", "resize_mvn", "gpt2", _resize(4, True), _added(4, "mvn")),
    Spec("mvn_llama_tied_8", "resize_mvn", "llama_tied", _resize(8, True), _added(8, "mvn")),
    Spec("mvn_llama_untied_3", "resize_mvn", "llama", _resize(3, True),
         Expect({"added_rows": 3, "added_output_rows": 3}, ("mvn",) * 3, (False,) * 3)),
    # mean_resizing=True on a bf16 table: the sample rounds to the mean
    Spec("mean_bf16_gpt2_2", "resize_mean_bf16", "gpt2", _bf16_mean(2), _added(2, "mean")),
    Spec("mean_bf16_llama_tied_3", "resize_mean_bf16", "llama_tied", _bf16_mean(3), _added(3, "mean")),
    # mean_resizing=False: N(0, initializer_range)
    Spec("normal_gpt2_4", "resize_normal", "gpt2", _resize(4, False), _added(4, "normal", None)),
    Spec("normal_llama_tied_6", "resize_normal", "llama_tied", _resize(6, False), _added(6, "normal", None)),
    # rows set by hand after the resize
    Spec("zeros_gpt2_4", "init_zeros", "gpt2", _resize(4, True, lambda w: w[V:].zero_()), _added(4, "zeros")),
    Spec("zeros_llama_tied_2", "init_zeros", "llama_tied", _resize(2, True, lambda w: w[V:].zero_()),
         _added(2, "zeros")),
    Spec("copy_gpt2_4", "init_copy", "gpt2", _resize(4, True, lambda w: w[V:].copy_(w[7])), _added(4, "copy")),
    Spec("copy_llama_tied_3", "init_copy", "llama_tied", _resize(3, True, lambda w: w[V:].copy_(w[12])),
         _added(3, "copy")),
    Spec("description_gpt2", "init_description_mean", "gpt2", _description, _added(2, "description_mean")),
    Spec("description_llama_tied", "init_description_mean", "llama_tied", _description, _added(2, "description_mean")),
    # add_tokens, resize, then a few training steps (the step-0 snapshot says how each row began, and that it moved)
    Spec("trained_gpt2_4", "trained_after_resize", "gpt2", _trained_after_resize(4, 3), _added(4, "mvn", True),
         step0=True),
    Spec("trained_llama_3", "trained_after_resize", "llama", _trained_after_resize(3, 2),
         Expect({"added_rows": 3, "added_output_rows": 3}, ("mvn",) * 3, (True,) * 3), step0=True),
    # reserved rows reused: renamed, or trained in place
    Spec("reserved_renamed_1", "reserved_reused", "gpt2", _words({3: "<think>"}), Expect({"reserved_reused": 1})),
    Spec("reserved_renamed_2", "reserved_reused", "llama_tied", _words({2: "<tool>", 6: "</tool>"}),
         Expect({"reserved_reused": 2})),
    Spec("reserved_trained", "reserved_reused", "gpt2", _reserved_trained(4), Expect({"reserved_reused": 1})),
    # renamed rows (the same id holding another string)
    Spec("renamed_1", "renamed", "gpt2", _words({7: "feline"}), Expect({"renamed_rows": 1})),
    Spec("renamed_3", "renamed", "llama", _words({7: "feline", 8: "canine", 20: "crimson"}),
         Expect({"renamed_rows": 3})),
    # padding rows (pad_to_multiple_of): rows with no token
    Spec("padding_gpt2_32", "padding_rows", "gpt2", _resize(1, True, pad=32),
         Expect({"added_rows": 30, "padding_rows": 29}, ("mvn",) * 30, (False,) * 30)),
    Spec("padding_llama_tied_8", "padding_rows", "llama_tied", _resize(3, True, pad=8),
         Expect({"added_rows": 6, "padding_rows": 3}, ("mvn",) * 6, (False,) * 6)),
    # a tokenizer longer than the table
    Spec("tokenizer_longer_3", "ids_without_row", "gpt2", lambda m, f: tokenizer(added=NEW[:3]),
         Expect({"ids_without_row": 3})),
    Spec("tokenizer_longer_8", "ids_without_row", "llama_tied", lambda m, f: tokenizer(added=NEW),
         Expect({"ids_without_row": 8})),
    # a shrunk table (its tokenizer kept: those ids now have no row)
    Spec("removed_6", "removed_rows", "gpt2", lambda m, f: m.resize_token_embeddings(V - 6) and None,
         Expect({"removed_rows": 6, "ids_without_row": 6})),
    Spec("removed_2", "removed_rows", "llama_tied", lambda m, f: m.resize_token_embeddings(V - 2) and None,
         Expect({"removed_rows": 2, "ids_without_row": 2})),
    # config and bytes disagree on the tie
    Spec("config_tied_bytes_untied", "tie_mismatch", "llama", _tie(True),
         Expect(tie={"config": "tied", "bytes": "untied", "transformers": "warns", "vllm": "drops_head",
                     "llama_cpp": "keeps"})),
    Spec("config_untied_bytes_tied", "tie_mismatch", "llama_tied", _tie(False),
         Expect(tie={"config": "untied", "bytes": "tied", "transformers": "warns", "vllm": "reties",
                     "llama_cpp": "reties"})),
    # a folder of config.json and weights alone, audited by ids
    Spec("ids_only_4", "ids_only_added", "gpt2", _ids_only(4), _added(4, "mvn")),
    Spec("ids_only_2", "ids_only_added", "llama_tied", _ids_only(2), _added(2, "mvn")),
    # clean pairs: no vocabulary surgery
    *(Spec(f"clean_copy_{b}", "clean", b, lambda m, f: None, Expect()) for b in BASES),
    *(Spec(f"clean_trained_{b}_{s}", "clean", b, _trained(s), Expect()) for b in BASES for s in (1, 3, 6)),
    Spec("clean_trained_other_text", "clean", "gpt2", _trained(3, "a dog sat on a big blue mat w1 w2 w3"), Expect()),
    Spec("clean_trained_low_lr", "clean", "llama", _trained(4, lr=1e-4), Expect()),
    Spec("clean_embeddings_only", "clean", "llama_tied", _trained(3, embeddings_only=True), Expect()),
    Spec("clean_sharded_gpt2", "clean", "gpt2", _sharded, Expect()),
    Spec("clean_sharded_llama", "clean", "llama", _sharded, Expect()),
    Spec("clean_bf16_gpt2", "clean", "gpt2", lambda m, f: m.to(torch.bfloat16) and None, Expect()),
    Spec("clean_bf16_trained_llama", "clean", "llama", lambda m, f: (train(m, tokenizer(), 2), m.to(torch.bfloat16),
                                                                      None)[2], Expect()),
    Spec("clean_no_tokenizer_gpt2", "clean", "gpt2", lambda m, f: False, Expect()),
    Spec("clean_no_tokenizer_llama", "clean", "llama", lambda m, f: (train(m, tokenizer(), 2), False)[1], Expect()),
]


class Corpus:
    """Builds each pair into ``root`` on first use; the three bases once."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.specs = {s.name: s for s in SPECS}
        self._bases: dict[str, str] = {}
        self._pairs: dict[str, Pair] = {}

    def base(self, key: str) -> str:
        if key not in self._bases:
            kind, tied, seed = BASES[key]
            folder = self.root / f"base_{key}"
            model(kind, tied, seed).save_pretrained(folder)
            tokenizer().save_pretrained(folder)
            self._bases[key] = str(folder)
        return self._bases[key]

    def pair(self, name: str) -> Pair:
        if name not in self._pairs:
            s = self.specs[name]
            base = self.base(s.base)
            m = transformers.AutoModelForCausalLM.from_pretrained(base)
            folder = self.root / name
            tok = s.build(m, folder)
            if not (folder / "config.json").is_file():
                m.save_pretrained(folder)
            if tok is not False:
                (tok or tokenizer()).save_pretrained(folder)
            step0 = str(self.root / f"{name}-step0") if s.step0 else None
            self._pairs[name] = Pair(name, s.mode, base, str(folder), step0, s.expect)
        return self._pairs[name]
