"""The tokenizer a GGUF file carries in its metadata: ``tokenizer.ggml.model``, ``.tokens``, ``.merges``,
``.scores`` and ``.token_type``.

- ``gpt2``: GPT-2's byte-level BPE, its vocabulary and merges given to the ``tokenizers`` package, the text split
  first by llama.cpp's regex for ``tokenizer.ggml.pre``: Llama-3's (``llama-bpe`` and its kin), Qwen2's (digits one
  by one), else GPT-2's (a model whose ``pre`` llama.cpp splits otherwise, such as ``deepseek-llm`` or ``falcon``,
  may cut long text differently, never a single word);
- ``llama``: SentencePiece BPE as llama.cpp runs it: spaces become ``▁`` (one is put in front when
  ``add_space_prefix``, the default), the adjacent pair with the highest score is merged first, and a
  piece left outside the vocabulary falls back to its ``<0xNN>`` byte tokens;
- ``bert``: WordPiece (``##`` continuations, lower-cased) through the ``tokenizers`` package. llama.cpp's converter
  (``convert_hf_to_gguf.py``, ``BertModel.set_vocab``) stores it in its "phantom space" form: a word-start piece
  ``return`` as ``▁return``, a continuation ``##turn`` as ``turn``, control tokens (``[CLS]``) as they are; that
  form is undone here (``wordpiece_from_phantom``), so the ids are llama.cpp's and the pieces the original's;
- ``t5``: a Unigram (UGM) SentencePiece model as llama.cpp runs it (``ugm.UgmTokenizer``): the text normalized by the
  file's ``precompiled_charsmap``, spaces made ``▁``, then the Viterbi path of highest summed score;
- ``rwkv``: RWKV's World tokenizer as llama.cpp runs it (``rwkv.RwkvTokenizer``): the longest token of the bytes, from
  left to right, over tokens stored escaped (``\\xe4``, ``\\n``);
- ``plamo2``: PLaMo 2's tokenizer as llama.cpp runs it (``plamo2.Plamo2Tokenizer``): the cheapest cut by score, from
  the end of the text, with byte tokens for a character no token covers (a vocabulary without all 256 byte tokens,
  which llama.cpp refuses to load, gets exact tokens only);
- any other model: each token shows as itself and a word is found as an exact token (or its ``▁`` / ``Ġ`` form), with
  no encoding of longer text.
"""

from __future__ import annotations

import numpy as np

from ..errors import CheckpointError, QueryError
from ..i18n import Msg
from .gguf_exact import SPACE, GgufVocab
from .hf import HFTokenizer
from .plamo2 import Plamo2Tokenizer, byte_tokens
from .rwkv import RwkvTokenizer
from .ugm import UgmTokenizer

UNKNOWN, CONTROL, BYTE = 2, 3, 6  # tokenizer.ggml.token_type values (llama.cpp's llama_token_type)


class SpmTokenizer(GgufVocab):
    """llama.cpp's SentencePiece BPE (``llm_tokenizer_spm``): merge by score, fall back to bytes."""

    def __init__(self, tokens: list[str], scores: list[float], types: list[int] | None, source: str,
                 add_space_prefix: bool = True, unknown_id: int | None = None):
        super().__init__(tokens, "llama", source, unknown_id)
        self.scores = scores
        self.add_space_prefix = add_space_prefix
        self._bytes = {}
        for i, t in enumerate(tokens):
            if (types is None or types[i] == BYTE) and len(t) == 6 and t.startswith("<0x") and t.endswith(">"):
                try:
                    self._bytes.setdefault(int(t[3:5], 16), i)
                except ValueError:
                    pass
        self.description = Msg("GGUF metadata of {name}: SentencePiece BPE (tokenizer.ggml.model = llama), {n:,} tokens",
                               name=source, n=self.vocab_size)

    def encode(self, text: str) -> list[int]:
        if not text:
            return []
        text = (" " + text if self.add_space_prefix else text).replace(" ", SPACE)
        pieces = list(text)
        while len(pieces) > 1:  # the adjacent pair whose merge is a token with the highest score; ties: leftmost
            best, at = None, -1
            for j in range(len(pieces) - 1):
                i = self._ids.get(pieces[j] + pieces[j + 1])
                if i is not None and (best is None or self.scores[i] > best):
                    best, at = self.scores[i], j
            if at < 0:
                break
            pieces[at : at + 2] = [pieces[at] + pieces[at + 1]]
        ids = []
        for p in pieces:
            if p in self._ids:
                ids.append(self._ids[p])
                continue
            for b in p.encode("utf-8"):
                if b in self._bytes:
                    ids.append(self._bytes[b])
                elif self.unknown_id is not None:
                    ids.append(self.unknown_id)
                    break
                else:
                    raise QueryError("“{text}” holds a character that this vocabulary has neither as a token nor as byte "
                                     "tokens", text=text[:60])
        return ids

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())


def _hf_tokenizer(tok, tokens: list[str], model: str, source: str):
    t = HFTokenizer(source, tok, source)
    t.description = Msg("GGUF metadata of {name}: tokenizer.ggml.model = {model}, {n:,} tokens", name=source, model=model,
                        n=len(tokens))
    return t


def _vocab(tokens: list[str]) -> dict[str, int]:
    vocab: dict[str, int] = {}
    for i, t in enumerate(tokens):
        vocab.setdefault(t, i)
    return vocab


CONTRACTIONS = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
LLAMA3_SPLIT = (CONTRACTIONS + r"|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
                r"|\s+(?!\S)|\s+")
QWEN2_SPLIT = LLAMA3_SPLIT.replace(r"\p{N}{1,3}", r"\p{N}")
# tokenizer.ggml.pre -> the pre-tokenizer regex llama.cpp splits text with before the merges (llm_tokenizer_bpe,
# src/llama-vocab.cpp); any other name: GPT-2's, as the ByteLevel pre-tokenizer splits
PRE_SPLITS = {**dict.fromkeys(("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
                               "jina-v5-nano", "dbrx", "smaug-bpe"), LLAMA3_SPLIT),
              **dict.fromkeys(("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "hunyuan", "solar-open"),
                              QWEN2_SPLIT)}


def gpt2_bpe(tokens: list[str], merges: list[str], source: str, pre: str | None = None):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

    pairs = [tuple(m.split(" ", 1)) for m in merges if " " in m]
    try:
        tok = Tokenizer(models.BPE(vocab=_vocab(tokens), merges=pairs))
    except Exception as exc:
        raise CheckpointError("{name}: the GGUF tokenizer's tokens and merges do not make a BPE: {detail}", name=source,
                              detail=(str(exc).splitlines() or [type(exc).__name__])[0][:200]) from exc
    if pre in PRE_SPLITS:  # as Llama-3's and Qwen2's own tokenizer.json: the regex, then bytes to characters
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(PRE_SPLITS[pre]), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    t = _hf_tokenizer(tok, tokens, "gpt2", source)
    t.byte_level = True  # "Ġcat" shown as " cat", whichever regex splits the text
    return t


def is_phantom(tokens: list[str]) -> bool:
    """Whether a WordPiece vocabulary is in llama.cpp's phantom-space form: more tokens start with ``▁`` than with
    ``##`` (an original WordPiece vocabulary has thousands of ``##`` continuations and no ``▁``; a phantom one has a
    ``##`` only where the original had ``####``)."""
    return sum(t.startswith(SPACE) for t in tokens) > sum(t.startswith("##") for t in tokens)


def wordpiece_from_phantom(tokens: list[str], types: list[int] | None) -> list[str]:
    """The original WordPiece pieces of a phantom-space vocabulary, id for id: ``▁return`` -> ``return``, ``turn`` ->
    ``##turn``, an empty token ``##`` (which the converter cut to nothing); a control token (type 3), or a bracketed
    one (``[unused0]``, as older converters kept them), as it is."""
    out = []
    for i, t in enumerate(tokens):
        if t.startswith(SPACE):
            out.append(t[1:])
        elif (types is not None and types[i] == CONTROL) or (t.startswith("[") and t.endswith("]")):
            out.append(t)
        else:
            out.append("##" + t)
    return out


def bert_wordpiece(tokens: list[str], unknown: str, source: str):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers

    tok = Tokenizer(models.WordPiece(_vocab(tokens), unk_token=unknown))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    return _hf_tokenizer(tok, tokens, "bert", source)


def field(meta: dict, key: str, kind: type | tuple[type, ...]):
    """A metadata value of the expected Python type, else None (absent, or written with another type)."""
    v = meta.get(key)
    if kind is int and isinstance(v, bool):
        return None
    return v if isinstance(v, kind) else None


def string_list(meta: dict, key: str) -> list[str] | None:
    v = meta.get(key)
    return v if isinstance(v, list) and all(isinstance(x, str) for x in v) else None


def _scores(meta: dict, n: int) -> list[float]:
    """``tokenizer.ggml.scores`` (float32, widened exactly), or zeros when absent or of another length."""
    scores = meta.get("tokenizer.ggml.scores")
    return [float(x) for x in scores] if isinstance(scores, np.ndarray) and scores.size == n else [0.0] * n


def tokenizer_from_gguf(meta: dict, source: str):
    """The tokenizer in a GGUF file's metadata (key -> value, as ``checkpoints.gguf_file.read_header`` reads it), or
    CheckpointError saying why not."""
    model = field(meta, "tokenizer.ggml.model", str)
    tokens = string_list(meta, "tokenizer.ggml.tokens")
    if model is None or not tokens:
        raise CheckpointError("{name} carries no tokenizer in its metadata (tokenizer.ggml.model and "
                              "tokenizer.ggml.tokens)", name=source)
    types = meta.get("tokenizer.ggml.token_type")
    types = [int(t) for t in types] if isinstance(types, np.ndarray) and types.size == len(tokens) else None
    unk = field(meta, "tokenizer.ggml.unknown_token_id", int)
    if unk is None or not 0 <= unk < len(tokens):
        unk = types.index(UNKNOWN) if types and UNKNOWN in types else None
    if model == "gpt2":
        merges = string_list(meta, "tokenizer.ggml.merges")
        if not merges:
            raise CheckpointError("{name}: a gpt2 (BPE) tokenizer needs tokenizer.ggml.merges, and the file has none",
                                  name=source)
        return gpt2_bpe(tokens, merges, source, field(meta, "tokenizer.ggml.pre", str))
    if model == "llama":
        scores = _scores(meta, len(tokens))
        prefix = field(meta, "tokenizer.ggml.add_space_prefix", bool)
        return SpmTokenizer(tokens, scores, types, source, add_space_prefix=True if prefix is None else prefix,
                            unknown_id=unk)
    if model == "t5":
        charsmap = meta.get("tokenizer.ggml.precompiled_charsmap")
        return UgmTokenizer(tokens, _scores(meta, len(tokens)), types, source,
                            charsmap=charsmap.tobytes() if isinstance(charsmap, np.ndarray) else b"",
                            add_space_prefix=bool(field(meta, "tokenizer.ggml.add_space_prefix", bool)),
                            remove_extra_whitespaces=bool(field(meta, "tokenizer.ggml.remove_extra_whitespaces", bool)),
                            unknown_id=unk if unk is not None else 2 if len(tokens) > 2 else None)  # llama.cpp: 2
    if model == "rwkv":
        return RwkvTokenizer(tokens, source, unknown_id=unk)
    if model == "plamo2" and (bytes_ids := byte_tokens(tokens, types)) is not None:
        return Plamo2Tokenizer(tokens, _scores(meta, len(tokens)), types, bytes_ids, source, unk)
    if model == "bert" and unk is not None:
        pieces = wordpiece_from_phantom(tokens, types) if is_phantom(tokens) else tokens
        return bert_wordpiece(pieces, pieces[unk], source)
    return GgufVocab(tokens, model, source, unk)
