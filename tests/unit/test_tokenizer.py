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
