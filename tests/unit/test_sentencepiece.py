"""SentencePiece's tokenizer.model beside the weights: a model trained by sentencepiece's own trainer, read from
its bytes, gives sentencepiece's own ids and pieces; one larger than the table is refused like every kind."""

import numpy as np
import pytest
import sentencepiece as spm
from safetensors.numpy import save_file

import andrea_viz
from andrea_viz.errors import CheckpointError
from andrea_viz.tokenizer import TOKENIZER_FILES, tokenizer_from_file
from andrea_viz.tokenizer.sentencepiece_model import SentencePieceTokenizer

TEXT = """the cat sat on the mat
the dog sat on the log
a king and a queen walked to the castle
the man and the woman read a book
de kat zit op de mat en de hond ligt bij het vuur
o gato sentou no tapete e o cachorro dormiu
""" * 40 + "\n".join(" ".join("".join(chr(97 + (i * 7 + j * 3 + k) % 26) for k in range(3 + (i + j) % 5))
                                for j in range(8)) for i in range(400))  # many different words: room for 120 pieces
SENTENCES = ["the cat sat on the mat", "a queen and a dog", "de hond", "unseen words like zebra"]


@pytest.fixture(scope="module", params=["unigram", "bpe"])
def sp_model(request, tmp_path_factory):
    """tokenizer.model as SentencePieceTrainer.train writes it, and sentencepiece's own processor for it."""
    d = tmp_path_factory.mktemp(f"sp-{request.param}")
    (d / "corpus.txt").write_text(TEXT, encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(d / "corpus.txt"), model_prefix=str(d / "sp"), vocab_size=120,
                                   model_type=request.param, minloglevel=2)
    (d / "sp.model").rename(d / "tokenizer.model")
    return d / "tokenizer.model", spm.SentencePieceProcessor(model_file=str(d / "tokenizer.model"))


def test_tokenizer_model_is_a_kind_of_its_own():
    assert "tokenizer.model" in TOKENIZER_FILES


def test_a_trained_tokenizer_model_gives_sentencepiece_own_ids_and_pieces(sp_model):
    path, sp = sp_model
    tok, _ = tokenizer_from_file(path, 120)
    assert isinstance(tok, SentencePieceTokenizer) and tok.vocab_size == sp.get_piece_size() == 120
    for s in SENTENCES:
        assert tok.encode(s) == list(sp.encode(s))
        assert [tok.token(i) for i in tok.encode(s)] == list(sp.encode(s, out_type=str))
    assert [tok.token(i) for i in range(3)] == ["<unk>", "<s>", "</s>"] and tok.unknown_id == sp.unk_id() == 0
    assert tok.lookup(" cat ") == list(sp.encode("cat")) and tok.token(500) == "#500"


def test_found_beside_the_weights_and_refused_when_larger_than_the_table(sp_model, tmp_path):
    path, sp = sp_model
    g = np.random.default_rng(0)
    for rows in (128, 100):
        folder = tmp_path / str(rows)
        folder.mkdir()
        save_file({"wte.weight": g.standard_normal((rows, 8)).astype(np.float32)}, str(folder / "model.safetensors"))
        (folder / "tokenizer.model").write_bytes(path.read_bytes())
        emb = andrea_viz.load(folder / "model.safetensors")
        if rows == 128:  # padding rows past the pieces: kept, and said
            assert isinstance(emb.tokenizer, SentencePieceTokenizer)
            assert emb.tokenizer.lookup("cat") == list(sp.encode("cat"))
            assert "tokenizer found beside the weights: tokenizer.model" in emb.provenance.text()
        else:
            assert not isinstance(emb.tokenizer, SentencePieceTokenizer)
            assert "holds 120 tokens but the table has only 100 rows" in emb.provenance.text()
    with pytest.raises(CheckpointError, match="holds 120 tokens but the table has only 100 rows"):
        tokenizer_from_file(path, 100)


def test_a_damaged_or_foreign_file_is_not_taken_for_a_model(sp_model, tmp_path):
    path, _ = sp_model
    raw = path.read_bytes()
    cut = tmp_path / "cut" / "tokenizer.model"
    cut.parent.mkdir()
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(CheckpointError, match="SentencePiece"):
        tokenizer_from_file(cut, 200)
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("[UNK]\nthe\ncat\n", encoding="utf-8")
    assert not isinstance(tokenizer_from_file(vocab, 10)[0], SentencePieceTokenizer)
