"""The address value of tables named by hand (``?model=folder:<path>&tables=token:<key>,position:<key>``):
parsed by url's one rule, written so that it reads back."""

import pytest

from andrea_viz.ui import url
from andrea_viz.ui.naming import tables_address, tables_in_address


@pytest.mark.parametrize("raw, named", [
    ("token:arr_0", {"token": "arr_0"}),
    ("token:arr_0,position:arr_1,output:arr_2", {"token": "arr_0", "position": "arr_1", "output": "arr_2"}),
    ("output:head.weight,token:tok_emb.weight", {"token": "tok_emb.weight", "output": "head.weight"}),
    ("token:model/wte:0", {"token": "model/wte:0"}),  # a key may hold ':' (split at the first)
    ("token:word embeddings", {"token": "word embeddings"}),
])
def test_an_address_value_gives_the_tables_it_names(raw, named):
    assert url.parsed(raw, tables_in_address) == (True, named)


@pytest.mark.parametrize("raw", ["", "arr_0", "token:", ":arr_0", "table:arr_0", "position:arr_1",
                                 "token:a,token:b", "token:a,", "token:a,,position:b", "token:a\tb", "token:a\x00",
                                 "token:" + "a" * 300, "https://evil.invalid/x", "<b>x</b>"])
def test_anything_else_is_refused_by_the_one_rule(raw):
    assert url.parsed(raw, tables_in_address) == (False, None)


def test_tables_are_written_as_they_read_back_or_not_at_all():
    named = {"token": "arr_0", "position": "arr_1", "output": "arr_2"}
    assert tables_address(named) == "token:arr_0,position:arr_1,output:arr_2"
    assert tables_in_address(tables_address(named)) == named
    assert tables_address({"output": "b", "token": "a", "position": ""}) == "token:a,output:b"
    assert tables_address({"token": "a,b"}) is None  # a comma would cut the key
    assert tables_address({"token": "a\nb"}) is None
    assert tables_address({"token": "k" * 300}) is None  # longer than an address value may be
