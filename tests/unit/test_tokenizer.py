import pytest

from andrea_viz.errors import QueryError
from andrea_viz.tokenizer import ByteTokenizer, IdTokenizer


def test_byte_ids_are_utf8_bytes_and_bos_is_last():
    tok = ByteTokenizer(8_449)
    assert tok.encode("cat") == [99, 97, 116]
    assert tok.encode("é") == [0xC3, 0xA9]
    assert tok.token(8_448) == "<BOS>"
    assert tok.token(300) == "seg#300"
    assert tok.token(0x20) == "<0x20>" and tok.token(ord("a")) == "a"
    assert "segment list of an untrained table is not known" in tok.description


def test_segments_are_matched_longest_first_with_byte_fallback():
    tok = ByteTokenizer(256 + 3 + 1, segments=["ca", "cat", "s"])
    assert tok.encode("cats!") == [257, 258, ord("!")]
    assert tok.token(257) == "cat"


def test_hf_tokenizer_has_no_padding_or_special_tokens(minilm):
    assert minilm.tokenizer.encode("the cat sat on a mat") == [1996, 4937, 2938, 2006, 1037, 13523]
    assert minilm.tokenizer.token(4937) == "cat"


def test_no_tokenizer_says_ids_are_needed():
    with pytest.raises(QueryError, match="give token ids such as #42"):
        IdTokenizer(10).lookup("cat")
    assert IdTokenizer(10).token(3) == "#3"


def test_whitespace_only_tokens_are_drawn_visibly():
    from andrea_viz.tokenizer.visible import visible

    assert [visible(t) for t in (" ", "\n", "\t", "  ", "\n\n", " \n\t", "\r", "\u00a0")] == \
        ["␣", "⏎", "⇥", "␣␣", "⏎⏎", "␣⏎⇥", "␍", "␣"]
    assert [visible(t) for t in ("", " cat", "cat ", "a b", "##ing", "▁")] == ["", " cat", "cat ", "a b", "##ing", "▁"]


def test_a_byte_level_models_space_newline_and_tab_tokens_show_as_marks_in_its_neighbours(tmp_path):
    """GPT-2's Ġ, Ċ and ĉ decode to a bare space, newline and tab: every place that draws a token (Embeddings.token,
    the pieces of a query, the neighbours) shows ␣, ⏎ and ⇥ instead of a blank."""
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import ByteLevelBPETokenizer

    import andrea_viz
    from andrea_viz.geometry import neighbours

    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(["the cat\n\tsat on  the mat\n"] * 10, vocab_size=280, min_frequency=2, show_progress=False)
    tok.save(str(tmp_path / "tokenizer.json"))
    V = tok.get_vocab_size()
    space, newline, tab = (tok.token_to_id(t) for t in ("\u0120", "\u010a", "\u0109"))
    table = np.random.default_rng(0).standard_normal((V, 8)).astype(np.float32)
    table[[newline, tab]] = table[space] + 0.01 * np.arange(1, 3, dtype=np.float32)[:, None]  # space's nearest
    save_file({"wte.weight": table}, str(tmp_path / "model.safetensors"))
    emb = andrea_viz.load(tmp_path / "model.safetensors")
    assert emb.tokenizer.token(space) == " "  # the tokenizer's own piece is the text
    assert (emb.token(space), emb.token(newline), emb.token(tab)) == ("␣", "⏎", "⇥")
    q, hits = neighbours(emb, f"#{space}", k=2)
    assert q.pieces == ("␣",) and {h.token for h in hits} == {"⏎", "⇥"}


def test_a_llama3_style_tokenizer_json_is_byte_level_behind_its_own_split(tmp_path):
    """Llama-3's and Qwen2's tokenizer.json put ByteLevel (use_regex false) inside a Sequence after their own regex
    Split: still byte-level, so " cat" shows as " cat" (not "Ġcat") and the word cat finds its spaced token."""
    import json

    from andrea_viz.tokenizer import HFTokenizer
    from tests.checkpoint_files.makers import byte_level_bpe

    _v, _m, path = byte_level_bpe(tmp_path / "gpt2")
    data = json.loads(path.read_text(encoding="utf-8"))
    data["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?"
                                               r"[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}]}
    llama3 = tmp_path / "llama3" / "tokenizer.json"
    llama3.parent.mkdir()
    llama3.write_text(json.dumps(data), encoding="utf-8")
    tok = HFTokenizer(llama3)
    spaced = data["model"]["vocab"]["Ġcat"]
    assert tok.byte_level and tok.token(spaced) == " cat"
    gpt2 = HFTokenizer(path)
    assert [tok.lookup(w) for w in ("cat", "dog", "sat", "mat", "log", "cats")] == [
        gpt2.lookup(w) for w in ("cat", "dog", "sat", "mat", "log", "cats")]
    assert any(len(gpt2.encode(w)) > 1 and len(tok.lookup(w)) == 1 for w in ("sat", "mat", "log", "dog", "cats"))
