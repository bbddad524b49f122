"""GGUF vocabularies as llama.cpp means them, and what block 1 receives per GGUF architecture.

Each file is written with the gguf package's GGUFWriter the way llama.cpp's convert_hf_to_gguf.py writes it from a
Hugging Face tokenizer (BERT: the "phantom space" WordPiece of BertModel.set_vocab; GPT-2 and Qwen2: the byte-level
BPE's tokens and merges; Llama and Gemma: SentencePiece pieces with their scores), then read by the app, whose ids
must equal the original Hugging Face tokenizer's on sample sentences. The BERT ids are also checked against a slow
reference of llama.cpp's own WPM tokenizer (llm_tokenizer_wpm_session in src/llama-vocab.cpp), written here.
"""

import math
import unicodedata

import numpy as np
import pytest

import andrea_viz
from andrea_viz.builtin import minilm_dir
from andrea_viz.forward_pass import block_input_steps
from tests.checkpoint_files import makers

SPACE = "\u2581"
NORMAL, CONTROL = 1, 3
SENTENCES = ["The cat sat on the mat.", "Unbelievably, tokenization returns subwords!", "ANDREA reads embeddings",
             "a kitten's hyperparameters (x2) = 42", "the dog"]


def minilm_tokenizer():
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(minilm_dir() / "tokenizer.json"))
    tok.no_padding()  # its tokenizer.json pads to 128
    tok.no_truncation()
    return tok


def phantom(tok: str, toktype: int) -> str:
    """convert_hf_to_gguf.py, BertModel.set_vocab: the phantom-space form llama.cpp stores."""
    if toktype == CONTROL:
        return tok
    if tok.startswith("##"):
        return tok[2:]
    return SPACE + tok


def hf_vocab(tok) -> tuple[list[str], list[int]]:
    """Tokens by id and their types, as the converter's get_vocab_base gives them (added special tokens: CONTROL)."""
    by_id = {i: t for t, i in tok.get_vocab(with_added_tokens=True).items()}
    special = {i for i, a in tok.get_added_tokens_decoder().items() if a.special}
    V = max(by_id) + 1
    tokens = [by_id.get(i, f"[PAD{i}]") for i in range(V)]
    return tokens, [CONTROL if i in special else NORMAL for i in range(V)]


def write(path, arch: str, V: int, d: int = 8, tokenizer=None, positions: int = 0, type_rows: int = 0,
          norm: bool = False, untied: bool = False, rope_key: bool = True, seed: int = 0) -> dict:
    """A GGUF of ``arch`` with token_embd (and what the flags add), and ``tokenizer(writer)`` writing the vocabulary."""
    import gguf

    g = np.random.default_rng(seed)
    w = gguf.GGUFWriter(str(path), arch=arch)
    w.add_name(f"tiny-{arch}")
    w.add_block_count(2)
    w.add_context_length(max(positions, 64))
    w.add_embedding_length(d)
    w.add_head_count(2)
    if rope_key and not positions:
        w.add_rope_freq_base(10000.0)
    if norm:
        w.add_layer_norm_eps(1e-7)
    if type_rows:
        w.add_token_type_count(type_rows)
    if tokenizer is not None:
        tokenizer(w)
    out = {"table": g.standard_normal((V, d)).astype(np.float32)}
    w.add_tensor("token_embd.weight", out["table"])
    if positions:
        out["positions"] = g.standard_normal((positions, d)).astype(np.float32)
        w.add_tensor("position_embd.weight", out["positions"])
    if type_rows:
        out["types"] = g.standard_normal((type_rows, d)).astype(np.float32)
        w.add_tensor("token_types.weight", out["types"])
    if norm:
        out["norm"] = (1 + 0.1 * g.standard_normal(d)).astype(np.float32), (0.1 * g.standard_normal(d)).astype(np.float32)
        w.add_tensor("token_embd_norm.weight", out["norm"][0])
        w.add_tensor("token_embd_norm.bias", out["norm"][1])
    if untied:
        w.add_tensor("output.weight", g.standard_normal((V, d)).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return out


def bert_writer(tokens, types):
    def add(w):
        w.add_tokenizer_model("bert")
        w.add_tokenizer_pre("default")
        w.add_token_list([phantom(t, k) for t, k in zip(tokens, types, strict=True)])
        w.add_token_types(types)
        w.add_unk_token_id(tokens.index("[UNK]"))
        w.add_sep_token_id(tokens.index("[SEP]"))
    return add


def wpm_reference(text: str, phantom_tokens: list[str], unk: int) -> list[int]:
    """llama.cpp's WPM tokenizer, slowly: the text in NFD, control characters dropped, words split at spaces, and each
    punctuation mark (and ASCII symbol) a word of its own, lower-cased; each word is '▁' + word, cut greedily into the
    longest tokens of the phantom vocabulary; a word that cannot be cut is one unknown token. (Accents are kept as
    combining marks, where Hugging Face's BertNormalizer strips them: the sample sentences are unaccented.)"""
    ids = {t: i for i, t in reversed(list(enumerate(phantom_tokens)))}
    words, word = [], ""
    for ch in unicodedata.normalize("NFD", text):
        cat = unicodedata.category(ch)
        if ch.isspace():
            words, word = words + [word], ""
        elif cat.startswith("P") or (ord(ch) < 0x7F and cat.startswith("S")):
            words, word = words + [word, ch], ""
        elif cat != "Cc":
            word += ch.lower()
    out = []
    for w in [w for w in words + [word] if w]:
        w, got, i = SPACE + w, [], 0
        while i < len(w):
            j = next((j for j in range(len(w), i, -1) if w[i:j] in ids), None)
            if j is None:
                got = [unk]
                break
            got.append(ids[w[i:j]])
            i = j
        out += got
    return out


def test_a_bert_gguf_in_phantom_space_form_tokenizes_as_its_wordpiece_original(tmp_path):
    hf = minilm_tokenizer()
    tokens, types = hf_vocab(hf)
    info = write(tmp_path / "bert.gguf", "bert", len(tokens), tokenizer=bert_writer(tokens, types), positions=16,
                 type_rows=2, norm=True, rope_key=False)
    emb = andrea_viz.load(tmp_path / "bert.gguf")
    phantom_tokens = [phantom(t, k) for t, k in zip(tokens, types, strict=True)]
    for s in SENTENCES:
        want = hf.encode(s, add_special_tokens=False).ids
        assert emb.tokenizer.encode(s) == want, s
        assert wpm_reference(s, phantom_tokens, tokens.index("[UNK]")) == want, s
    assert 1996 in emb.tokenizer.encode("the") and emb.tokenizer.token(1996) == "the"
    assert emb.tokenizer.lookup("return") == [hf.token_to_id("return")]
    assert emb.tokenizer.encode("tokenization") == hf.encode("tokenization", add_special_tokens=False).ids
    assert [emb.tokenizer.token(i) for i in emb.tokenizer.encode("tokenization")] == ["token", "##ization"]
    assert emb.tokenizer.token(101) == "[CLS]" and emb.tokenizer.unknown_id == 100
    # the card: learned positions, the token-type row and the LayerNorm of llama.cpp's BERT graph
    assert emb.position_kind == "learned" and np.array_equal(emb.position_table, info["positions"])
    assert emb.output_kind == "none"
    bi = emb.block_input
    assert np.array_equal(bi.token_type, info["types"][0])
    assert np.array_equal(bi.norm[0], info["norm"][0]) and np.array_equal(bi.norm[1], info["norm"][1])
    assert bi.norm[2] == pytest.approx(1e-7) and not bi.norm[3] and bi.scale is None
    said = " ".join(str(m) for m in block_input_steps(emb))
    assert "token-type" in said and "LayerNorm" in said
    ids = np.array([emb.tokenizer.encode("the cat sat on the mat")])
    x = info["table"][ids[0]].astype(np.float64) + info["positions"][: ids.shape[1]] + info["types"][0]
    for t in range(x.shape[0]):  # llama.cpp's BERT input, row by row: LayerNorm(tok + pos + type_0)
        c = x[t] - x[t].mean()
        x[t] = c / math.sqrt((c * c).mean() + 1e-7) * info["norm"][0] + info["norm"][1]
    assert np.allclose(andrea_viz.forward(emb, ids, backend="numpy").x[0], x, atol=1e-5)


def test_the_phantom_form_is_undone_id_for_id():
    from andrea_viz.tokenizer.gguf_vocab import is_phantom, wordpiece_from_phantom

    tokens, types = hf_vocab(minilm_tokenizer())
    phantom_tokens = [phantom(t, k) for t, k in zip(tokens, types, strict=True)]
    assert is_phantom(phantom_tokens) and not is_phantom(tokens)
    assert wordpiece_from_phantom(phantom_tokens, types) == tokens  # all 30,522, with or without the token types
    assert wordpiece_from_phantom(phantom_tokens, None) == tokens
    odd = ["[PAD]", "##", "####", "a", "##a", "[unused0]"]
    odd_types = [CONTROL] + [NORMAL] * 5
    assert wordpiece_from_phantom([phantom(t, k) for t, k in zip(odd, odd_types, strict=True)], odd_types) == odd


def test_a_wordpiece_vocabulary_already_in_its_original_form_is_left_as_it_is(tmp_path):
    info = makers.gguf_model(tmp_path / "b.gguf", V=120, d=32, arch="bert", tokenizer="bert", positions=40)
    emb = andrea_viz.load(tmp_path / "b.gguf")
    assert emb.tokenizer.encode("kittens") == [info["tokens"].index(t) for t in ("kit", "##ten", "##s")]


def byte_level_bpe(tmp_path):
    from tokenizers import ByteLevelBPETokenizer

    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(SENTENCES * 20 + ["embedding layers map token ids to rows"] * 10, vocab_size=400,
                            min_frequency=2, show_progress=False)
    return tok


def gpt2_writer(tok, pre: str):
    import json

    model = json.loads(tok.to_str())["model"]

    def add(w):
        tokens = [t for t, _ in sorted(model["vocab"].items(), key=lambda kv: kv[1])]
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre(pre)
        w.add_token_list(tokens)
        w.add_token_types([NORMAL] * len(tokens))
        w.add_token_merges([" ".join(m) if isinstance(m, list) else m for m in model["merges"]])
    return add


@pytest.mark.parametrize("arch,pre", [("gpt2", "gpt-2"), ("qwen2", "qwen2")])
def test_byte_level_bpe_ggufs_tokenize_as_their_original(tmp_path, arch, pre):
    tok = byte_level_bpe(tmp_path)
    V = tok.get_vocab_size()
    gpt2 = arch == "gpt2"
    info = write(tmp_path / f"{arch}.gguf", arch, V, tokenizer=gpt2_writer(tok, pre), positions=32 if gpt2 else 0,
                 untied=not gpt2)
    emb = andrea_viz.load(tmp_path / f"{arch}.gguf")
    for s in SENTENCES:
        assert emb.tokenizer.encode(s) == tok.encode(s).ids, s
    assert emb.block_input.plain
    if gpt2:  # learned positions, tied (llama.cpp's GPT-2 reuses token_embd.weight as the output)
        assert emb.position_kind == "learned" and np.array_equal(emb.position_table, info["positions"]) and emb.tied
    else:
        assert emb.position_kind == "rope" and not emb.tied and "qwen2" in str(emb.card["position_reason"])


def spm_hf_tokenizer(tokens: list[str], scores: list[float]):
    """The Hugging Face tokenizer.json that transformers makes from such a SentencePiece model (convert_slow_tokenizer:
    a BPE whose merges are every split of a piece into two pieces, ranked by the piece's score; byte fallback; a '▁'
    put in front and spaces made '▁')."""
    from tokenizers import Tokenizer, decoders, models, normalizers

    vocab = {t: i for i, t in enumerate(tokens)}
    merges = []
    for t in sorted(vocab, key=lambda t: -scores[vocab[t]]):
        if t.startswith("<") or len(t) < 2:
            continue
        merges += [(t[:k], t[k:]) for k in range(1, len(t)) if t[:k] in vocab and t[k:] in vocab]
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend(SPACE), normalizers.Replace(" ", SPACE)])
    tok.decoder = decoders.Sequence([decoders.Replace(SPACE, " "), decoders.ByteFallback(), decoders.Fuse()])
    return tok


def spm_writer(tokens, scores, types):
    def add(w):
        w.add_tokenizer_model("llama")
        w.add_tokenizer_pre("default")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        w.add_unk_token_id(0)
    return add


@pytest.mark.parametrize("arch", ["llama", "gemma"])
def test_sentencepiece_ggufs_tokenize_as_their_original_and_gemma_scales_by_sqrt_d(tmp_path, arch):
    tokens, scores, types = makers.spm_vocab(400)
    hf = spm_hf_tokenizer(tokens, scores)
    gemma = arch == "gemma"
    info = write(tmp_path / f"{arch}.gguf", arch, len(tokens), d=16, tokenizer=spm_writer(tokens, scores, types),
          rope_key=not gemma)  # the converter writes no gemma.rope.* key
    emb = andrea_viz.load(tmp_path / f"{arch}.gguf")
    for s in ["the cat sat", "tuesday dog", "kitten", "the cat, é!"]:
        assert emb.tokenizer.encode(s) == hf.encode(s, add_special_tokens=False).ids, s
    assert emb.position_kind == "rope" and emb.tied and emb.position_table is None
    said = " ".join(str(m) for m in block_input_steps(emb))
    if gemma:
        assert emb.block_input.scale == pytest.approx(math.sqrt(16)) and "√d" in said
        ids = np.array([emb.tokenizer.encode("the cat")])
        assert np.allclose(andrea_viz.forward(emb, ids, backend="numpy").x[0], info["table"][ids[0]] * 4.0, atol=1e-5)
    else:
        assert emb.block_input.plain
    assert "RoPE" in said
