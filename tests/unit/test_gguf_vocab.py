"""GGUF vocabularies as llama.cpp means them, and what block 1 receives per GGUF architecture.

Each file is written with the gguf package's GGUFWriter the way llama.cpp's convert_hf_to_gguf.py writes it from a
Hugging Face tokenizer (BERT: the "phantom space" WordPiece of BertModel.set_vocab; GPT-2 and Qwen2: the byte-level
BPE's tokens and merges; Llama and Gemma: SentencePiece pieces with their scores), then read by the app, whose ids
must equal the original Hugging Face tokenizer's on sample sentences. The BERT ids are also checked against a slow
reference of llama.cpp's own WPM tokenizer (llm_tokenizer_wpm_session in src/llama-vocab.cpp), written here.
T5 (UGM) files are written from a Unigram model trained with sentencepiece as T5Model.set_vocab writes them, and RWKV
files from a World vocabulary file as _set_vocab_rwkv_world writes them; their ids must equal sentencepiece's (where
llama.cpp does not differ on purpose) and RWKV's trie tokenizer's, and the ids llama.cpp's llama-tokenize gave on the
same files (recorded by tests/checkpoint_files/llama_tokenize/record.py).
"""

import math
import re
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


def original_pre_tokenizer(tok, pre: str):
    """The pre-tokenizer of the original's tokenizer.json: GPT-2's ByteLevel, or (Qwen2, Llama-3) their regex Split
    then ByteLevel without its own regex, as those models' tokenizer.json files hold them."""
    from tokenizers import Regex, pre_tokenizers

    split = {"qwen2": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                      r"\s*[\r\n]+|\s+(?!\S)|\s+",
             "llama-bpe": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
                          r"\s*[\r\n]+|\s+(?!\S)|\s+"}.get(pre)
    if split is not None:
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(split), behavior="isolated"),
                                                     pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    return tok


BPE_EXTRA = ["It's 12345 don't\n\n  x\r\n y", "I'LL go, they'RE 7.5", "tab\there  \n"]  # contractions, digits, lines


@pytest.mark.parametrize("arch,pre", [("gpt2", "gpt-2"), ("qwen2", "qwen2"), ("llama", "llama-bpe")])
def test_byte_level_bpe_ggufs_tokenize_as_their_original(tmp_path, arch, pre):
    tok = original_pre_tokenizer(byte_level_bpe(tmp_path), pre)
    V = tok.get_vocab_size()
    gpt2 = arch == "gpt2"
    info = write(tmp_path / f"{arch}.gguf", arch, V, tokenizer=gpt2_writer(tok, pre), positions=32 if gpt2 else 0,
                 untied=not gpt2)
    emb = andrea_viz.load(tmp_path / f"{arch}.gguf")
    for s in [*SENTENCES, *SAMPLES, *BPE_EXTRA]:
        assert emb.tokenizer.encode(s) == tok.encode(s).ids, s
    assert emb.tokenizer.token(tok.token_to_id("Ġcat")) == " cat"
    assert emb.block_input.plain
    if gpt2:  # learned positions, tied (llama.cpp's GPT-2 reuses token_embd.weight as the output)
        assert emb.position_kind == "learned" and np.array_equal(emb.position_table, info["positions"]) and emb.tied
    else:
        assert emb.position_kind == "rope" and not emb.tied and arch in str(emb.card["position_reason"])


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


# t5 (UGM) and rwkv: the sample sentences, in the lesson's four languages, with digits, punctuation and odd spaces
CORPUS = [
    "An embedding layer is a lookup table, not a function.", "Token ID i selects row i. Direct array access.",
    "The cat sat on the mat; the dog sat on the log.", "Similar tokens such as cat, dog and pet get similar vectors.",
    "Tokenizer 會將模型輸入轉換為整數 ID：[256, 1842, 7301, ...]。", "嵌入層是一個查找表，而不是一個函數。",
    "Token ID i 選取第 i 列。直接陣列存取。無算術、無激活函數。僅為索引。",
    "Een embedding-laag is een lookup-tabel, geen functie.", "Token-ID i selecteert rij i. Directe array-toegang.",
    "Elke entry in die tabel begint als een kleine willekeurige float.",
    "Uma camada de embedding é uma tabela de consulta, não uma função.", "O ID do token i seleciona a linha i.",
    "Cada entrada nessa tabela começa como um float aleatório pequeno.", "Acesso direto ao array. Sem aritmética.",
    "V = 8,449 × d_model 768 = 6,488,832 parameters (5.4%)", "row 8448: [e_8448_0, e_8448_1, ..., e_8448_767]",
]
SAMPLES = ["The cat sat on the mat.", "  two  spaces,   three\tand a tab ", "嵌入層是一個查找表（768 維）。",
           "Een embedding-laag is geen functie!", "Uma função não é uma tabela: ação, coração, São Paulo.",
           "row 8448 = 6,488,832 / 768 (5.4%)", "ＡＮＤＲＥＡ－１２０Ｍ ﬁle ½", "emoji 🐈 and ☃ unknown ☃☃ twice",
           "x", "", " "]


def sentencepiece_unigram(tmp_path, **options):
    """A Unigram SentencePiece model trained here (NFKC rules: its precompiled_charsmap) in a folder as a T5 model's
    on the Hub holds it (``spiece.model``, which convert_hf_to_gguf.py reads), with its special tokens' config."""
    import io
    import json

    import sentencepiece as spm

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(CORPUS * 5), model_writer=out, vocab_size=300,
                                   model_type="unigram", character_coverage=0.995, hard_vocab_limit=False,
                                   pad_id=0, eos_id=1, unk_id=2, bos_id=-1, minloglevel=2, **options)
    folder = tmp_path / "t5"
    folder.mkdir()
    (folder / "spiece.model").write_bytes(out.getvalue())
    (folder / "config.json").write_text(json.dumps({"model_type": "t5", "pad_token_id": 0, "eos_token_id": 1,
                                                    "decoder_start_token_id": 0}))
    return folder


def t5_writer(folder):
    """convert_hf_to_gguf.py, T5Model.set_vocab: the pieces, scores and types from spiece.model, its
    add_dummy_prefix, remove_extra_whitespaces and precompiled_charsmap, and the special tokens."""
    import gguf
    from sentencepiece import SentencePieceProcessor
    from sentencepiece import sentencepiece_model_pb2 as model

    proto = model.ModelProto()
    proto.ParseFromString((folder / "spiece.model").read_bytes())
    assert proto.trainer_spec.model_type == 1  # UNIGRAM
    sp = SentencePieceProcessor(model_file=str(folder / "spiece.model"))
    tokens, scores, types = [], [], []
    for i in range(sp.vocab_size()):
        tokens.append(sp.IdToPiece(i).encode("utf-8"))
        scores.append(sp.GetScore(i))
        types.append(2 if sp.IsUnknown(i) else 3 if sp.IsControl(i) else 5 if sp.IsUnused(i) else 6 if sp.IsByte(i)
                     else 4 if proto.pieces[i].type == 4 else 1)

    def add(w):
        w.add_tokenizer_model("t5")
        w.add_tokenizer_pre("default")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        w.add_add_space_prefix(proto.normalizer_spec.add_dummy_prefix)
        w.add_remove_extra_whitespaces(proto.normalizer_spec.remove_extra_whitespaces)
        if proto.normalizer_spec.precompiled_charsmap:
            w.add_precompiled_charsmap(proto.normalizer_spec.precompiled_charsmap)
        gguf.SpecialVocab(folder, n_vocab=len(tokens)).add_to_gguf(w)
    return add, len(tokens), sp


T5_OPTIONS = {"t5": {}, "t5-user-defined": {"user_defined_symbols": ["ANDREA", "d_model"]},
              "t5-spaces-kept": {"remove_extra_whitespaces": False}}
T5_SENTENCES = [*SAMPLES, "ANDREA reads d_model rows", " ANDREA-120M:d_model"]
RWKV_SENTENCES = [*SAMPLES, "line\n\nbreak", "quote ' \" \\ mark", "ção não"]


@pytest.mark.parametrize("options", T5_OPTIONS.values(), ids=T5_OPTIONS)
def test_a_t5_gguf_tokenizes_as_its_sentencepiece_original(tmp_path, options):
    folder = sentencepiece_unigram(tmp_path, **options)
    add, V, sp = t5_writer(folder)
    write(tmp_path / "t5.gguf", "t5", V, tokenizer=add, rope_key=False)
    tok = andrea_viz.load(tmp_path / "t5.gguf").tokenizer
    assert "SentencePiece Unigram" in str(tok.description)
    keeps_spaces = options.get("remove_extra_whitespaces") is False
    user = options.get("user_defined_symbols", [])
    for s in T5_SENTENCES:
        want = sp.encode(s)
        if user:  # llama.cpp splits user-defined tokens out first, each piece of text between tokenized on its own
            pieces = re.split("(" + "|".join(map(re.escape, user)) + ")", s)
            want = [i for p in pieces if p for i in ([sp.PieceToId(p)] if p in user else sp.encode(p))]
        if keeps_spaces and s and not s.strip():  # llama.cpp puts the dummy '▁' only in front of a word: one fewer
            assert want[0] == sp.PieceToId(SPACE)
            want = want[1:]
        assert tok.encode(s) == want, s
    assert tok.unknown_id == sp.unk_id() and tok.encode("☃☃") == sp.encode("☃☃") == [sp.PieceToId(SPACE), sp.unk_id()]
    assert tok.token(sp.PieceToId(SPACE + "the")) == " the"
    assert tok.lookup(" cat ") == sp.encode("cat")


def test_the_charsmap_normalizes_as_sentencepiece_and_a_damaged_one_is_a_sentence(tmp_path):
    from andrea_viz.errors import QueryError
    from andrea_viz.tokenizer.ugm import Charsmap, UgmTokenizer

    folder = sentencepiece_unigram(tmp_path)
    add, V, sp = t5_writer(folder)
    write(tmp_path / "t5.gguf", "t5", V, tokenizer=add, rope_key=False)
    tok = andrea_viz.load(tmp_path / "t5.gguf").tokenizer
    for s in SAMPLES:  # NFKC (full-width letters, the ﬁ ligature, ½) and spaces, as SentencePiece normalizes them
        assert tok.normalize(s).decode() == sp.normalize(s.replace("\t", " ")), s
    assert Charsmap(b"").longest(b"abc", 0) is None
    blob = (8).to_bytes(4, "little") + (5 << 10).to_bytes(4, "little") + b"\0" * 4 + b"x\0"
    damaged = UgmTokenizer(["<pad>", "</s>", "<unk>", "a"], [0.0, 0.0, 0.0, -1.0], [3, 3, 2, 1], "bad.gguf", blob,
                           True, True)
    with pytest.raises(QueryError, match="precompiled_charsmap is damaged"):
        damaged.encode("b")
    nameless = UgmTokenizer([SPACE + "a", "a"], [-1.0, -2.0], [1, 1], "u.gguf", b"", True, True, None)
    assert nameless.encode("a a") == [0, 0]
    with pytest.raises(QueryError, match="neither as a token nor as byte tokens"):  # no unknown token to stand for b
        nameless.encode("a b")


def rwkv_vocab_file(path) -> None:
    """A vocabulary in RWKV World's rwkv_vocab_v20230424.txt form: ``id repr(token) length``, a str where the bytes
    are UTF-8, else bytes; every byte first, then longer tokens (words with their space, Chinese characters, pieces
    of a character's bytes)."""
    pieces = [bytes([b]) for b in range(256)]
    words = sorted({w for s in CORPUS for w in s.replace(",", " ").replace(".", " ").split()})
    for w in words:
        pieces += [w.encode(), (" " + w).encode()]
    pieces += [c.encode() for c in sorted(set("".join(CORPUS))) if ord(c) > 0x2E80]
    pieces += ["嵌入".encode(), "表".encode()[:2], b"\n\n", b" '\"\\", "ção".encode(), " não".encode(), b" kat"]
    seen, lines = set(), []
    for p in pieces:
        if p in seen:
            continue
        seen.add(p)
        try:
            shown = repr(p.decode("utf-8"))
        except UnicodeDecodeError:
            shown = repr(p)
        lines.append(f"{len(lines) + 1} {shown} {len(p)}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def rwkv_writer(vocab_file):
    """convert_hf_to_gguf.py, _set_vocab_rwkv_world: <s> at 0, then each token's bytes written as Python writes them
    inside b'…'."""
    import ast

    tokens, types = [b"<s>"], [CONTROL]
    for line in vocab_file.read_text(encoding="utf-8").splitlines(keepends=True):
        parts = line.split(" ")
        token = ast.literal_eval(" ".join(parts[1:-1]))
        token = token.encode("utf-8") if isinstance(token, str) else token
        assert len(token) == int(parts[-1])
        tokens.append(repr(token)[2:-1].encode("utf-8"))
        types.append(NORMAL)

    def add(w):
        w.add_tokenizer_model("rwkv")
        w.add_token_list(tokens)
        w.add_token_types(types)
    return add, len(tokens)


def rwkv_trie_reference(vocab_file, text: str) -> list[int]:
    """RWKV's own TRIE_TOKENIZER (rwkv_tokenizer.py), slowly: the file's ids, and at each byte the longest token."""
    import ast

    ids = {}
    for line in vocab_file.read_text(encoding="utf-8").splitlines():
        token = ast.literal_eval(line[line.index(" "): line.rindex(" ")].strip())
        ids[token.encode("utf-8") if isinstance(token, str) else token] = int(line[: line.index(" ")])
    data, out, at = text.encode("utf-8"), [], 0
    while at < len(data):
        end = max(j for j in range(at + 1, len(data) + 1) if data[at:j] in ids)
        out.append(ids[data[at:end]])
        at = end
    return out


def test_an_rwkv_gguf_tokenizes_as_rwkvs_trie_tokenizer(tmp_path):
    vocab = tmp_path / "rwkv_vocab_v20230424.txt"
    rwkv_vocab_file(vocab)
    add, V = rwkv_writer(vocab)
    write(tmp_path / "rwkv.gguf", "rwkv6", V, tokenizer=add, rope_key=False)
    tok = andrea_viz.load(tmp_path / "rwkv.gguf").tokenizer
    assert "RWKV World" in str(tok.description)
    for s in RWKV_SENTENCES:
        assert tok.encode(s) == rwkv_trie_reference(vocab, s), s
    the = rwkv_trie_reference(vocab, " the")
    assert len(the) == 1 and tok.token(the[0]) == " the" and tok.lookup("the") == rwkv_trie_reference(vocab, "the")
    assert len(tok.encode("kat")) == 3 and tok.lookup("kat") == rwkv_trie_reference(vocab, " kat")  # only spaced
    assert tok.token(rwkv_trie_reference(vocab, "表")[0]) == "表"
    part = tok._by_bytes["表".encode()[:2]]
    assert tok.token(part) == "\\xe8\\xa1"  # part of a character: shown as stored


def test_every_gguf_tokenizer_model_gives_the_ids_llama_tokenize_gave_on_the_same_files(tmp_path):
    """A second reference: llama.cpp's own ``llama-tokenize``, built from the llama-cpp-python sdist, run on these very
    files (their sha256 recorded) by tests/checkpoint_files/llama_tokenize/record.py, its ids kept in ids.json."""
    import hashlib
    import json
    from pathlib import Path

    from andrea_viz.checkpoints.gguf_file import read_header
    from andrea_viz.tokenizer.gguf_vocab import tokenizer_from_gguf
    from tests.checkpoint_files.llama_tokenize import record

    recorded = json.loads((Path(record.__file__).parent / "ids.json").read_text(encoding="utf-8"))["files"]
    written = record.files(tmp_path)
    assert set(recorded) == set(written) == {*T5_OPTIONS, "rwkv", "plamo2", "bert", "llama-spm", "bpe-gpt-2", "bpe-qwen2",
                                             "bpe-llama-bpe"}
    for name, (path, sentences) in written.items():
        assert hashlib.sha256(path.read_bytes()).hexdigest() == recorded[name]["sha256"], name  # the file it read
        tok = tokenizer_from_gguf(read_header(path).meta, path.name)
        assert set(recorded[name]["ids"]) == {s for s in sentences if s}
        for s, ids in recorded[name]["ids"].items():
            assert tok.encode(s) == ids, (name, s)


PLAMO_SENTENCES = [*SAMPLES, "\ufeffa BOM first", "<|plamo:bos|> as text", "[PAD1] and [PAD2]x"]


def plamo_folder(tmp_path):
    """A PLaMo 2 tokenizer folder as pfnet's repositories hold it: tokenizer.jsonl (``[token, score, type]`` a line: the
    ``<|plamo:…|>`` specials, the 256 ``<0xNN>`` byte tokens, then pieces with log-probability scores, here those of a
    Unigram model trained on the corpus with real spaces), tokenizer_config.json and a config.json whose vocab_size
    is larger than the list (the converter pads it with ``[PADn]`` rows)."""
    import json

    from sentencepiece import SentencePieceProcessor

    sp = SentencePieceProcessor(model_file=str(sentencepiece_unigram(tmp_path) / "spiece.model"))
    rows = [["<|plamo:unk|>", 0.0, "UNKNOWN"], ["<|plamo:bos|>", 0.0, "CONTROL"], ["<|plamo:eos|>", 0.0, "CONTROL"],
            ["<|plamo:pad|>", 0.0, "CONTROL"], ["<|plamo:op|>", 0.0, "CONTROL"]]
    rows += [[f"<0x{b:02X}>", 0.0, "BYTE"] for b in range(256)]
    pieces = {sp.IdToPiece(i).replace(SPACE, " "): sp.GetScore(i) for i in range(sp.vocab_size())
              if not (sp.IsControl(i) or sp.IsUnknown(i))}
    rows += [[p, s, "NORMAL"] for p, s in pieces.items()]
    folder = tmp_path / "plamo"
    folder.mkdir()
    (folder / "tokenizer.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                            encoding="utf-8")
    (folder / "tokenizer_config.json").write_text(json.dumps({"bos_token": "<|plamo:bos|>", "eos_token": "<|plamo:eos|>",
                                                              "pad_token": "<|plamo:pad|>", "unk_token": "<|plamo:unk|>"}))
    (folder / "config.json").write_text(json.dumps({"vocab_size": len(rows) + 3}))
    return folder


def plamo_writer(folder):
    """convert_hf_to_gguf.py, _set_vocab_plamo: the tokens, scores and types of tokenizer.jsonl (a ``<|plamo:…|>``
    token CONTROL), padded to config.json's vocab_size with ``[PADn]`` (score −1,000, UNUSED), the special ids."""
    import json

    tokens, scores, types = [], [], []
    kinds = {"UNKNOWN": 2, "CONTROL": 3, "BYTE": 6}
    for line in (folder / "tokenizer.jsonl").read_text(encoding="utf-8").splitlines():
        token, score, kind = json.loads(line)[:3]
        tokens.append(token.encode("utf-8"))
        scores.append(float(score))
        types.append(kinds.get(kind, CONTROL if token.startswith("<|plamo:") and token.endswith("|>") else NORMAL))
    for i in range(1, json.loads((folder / "config.json").read_text())["vocab_size"] - len(tokens) + 1):
        tokens.append(f"[PAD{i}]".encode())
        scores.append(-1000.0)
        types.append(5)
    config = json.loads((folder / "tokenizer_config.json").read_text())

    def add(w):
        w.add_tokenizer_model("plamo2")
        w.add_tokenizer_pre("default")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        w.add_bos_token_id(tokens.index(config["bos_token"].encode()))
        w.add_eos_token_id(tokens.index(config["eos_token"].encode()))
        w.add_pad_token_id(tokens.index(config["pad_token"].encode()))
        w.add_unk_token_id(tokens.index(config["unk_token"].encode()))
        w.add_eot_token_id(4)
    return add, len(tokens), [t.decode() for t in tokens], scores, types


def plamo_reference(tokens: list[str], scores: list[float], types: list[int], text: str) -> list[int]:
    """The cheapest cut, slowly and recursively: at each code point every non-byte token the rest of the text starts
    with saves its score × 10⁴ (rounded; a score of −2,000 or lower is no candidate), or the character costs 10⁷ as its
    UTF-8 byte tokens."""
    from functools import cache

    byte = {int(t[3:5], 16): i for i, t in enumerate(tokens) if types[i] == 6}
    ids = {t: i for i, t in enumerate(tokens)}
    saving = {t: round(np.float32(s) * 1e4) for t, s, k in zip(tokens, scores, types, strict=True) if k != 6}
    text = text.removeprefix("\ufeff")

    @cache
    def best(i: int) -> tuple[int, tuple[int, ...]]:
        if i == len(text):
            return 0, ()
        cost, rest = best(i + 1)
        options = [(cost + 10_000_000, tuple(byte[b] for b in text[i].encode()) + rest)]
        for t, s in saving.items():
            if s > -20_000_000 and text.startswith(t, i) and t:
                cost, rest = best(i + len(t))
                options.append((cost - s, (ids[t], *rest)))
        return min(options)

    return list(best(0)[1])


def test_a_plamo2_gguf_tokenizes_as_the_cheapest_cut_by_score(tmp_path):
    add, V, tokens, scores, types = plamo_writer(plamo_folder(tmp_path))
    write(tmp_path / "plamo2.gguf", "plamo2", V, tokenizer=add, rope_key=False)
    tok = andrea_viz.load(tmp_path / "plamo2.gguf").tokenizer
    assert "PLaMo 2" in str(tok.description)
    for s in PLAMO_SENTENCES[:-1]:  # the last: llama.cpp's [PADn] rows (score −1,000) cut its search short
        assert tok.encode(s) == plamo_reference(tokens, scores, types, s), s
    assert tok.encode("☃") == [tokens.index(f"<0x{b:02X}>") for b in "☃".encode()]  # no token: its bytes
    assert tok.lookup(" the ") == tok.encode("the")


def test_a_plamo2_gguf_without_its_byte_tokens_finds_exact_tokens_only(tmp_path):
    from andrea_viz.tokenizer.gguf_exact import GgufVocab

    add, V, tokens, scores, types = plamo_writer(plamo_folder(tmp_path))
    types[tokens.index("<0x41>")] = NORMAL  # llama.cpp refuses such a vocabulary ("Byte token for <0x65> is not set")

    def without(w):
        add(w)
        w.add_token_types(types)  # written again: the writer keeps the last value

    write(tmp_path / "p.gguf", "plamo2", V, tokenizer=without, rope_key=False)
    tok = andrea_viz.load(tmp_path / "p.gguf").tokenizer
    word = next(t for t, k in zip(tokens, types, strict=True) if k == NORMAL and t.isalpha() and len(t) > 2)
    assert type(tok) is GgufVocab and tok.lookup(word) == [tokens.index(word)]
