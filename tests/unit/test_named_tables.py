"""Tables named by hand (``--table KEY``, ``--position KEY``, ``--output KEY``; ``load(..., tables=...)``) for files
whose names this app does not know: a minGPT state_dict, a word2vec model's state_dict, and a Keras ``get_weights()``
list saved with ``np.savez``. Without names they are refused with the tensors listed; with them, each table is the
file's own tensor."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

import andrea_viz
from andrea_viz.checkpoints.tables import NoTableError
from andrea_viz.cli import main
from andrea_viz.errors import CheckpointError

V, D, T = 40, 8, 12


class MinGPT(nn.Module):
    """minGPT's embedding names (karpathy/minGPT model.py): tok_emb, a (1, T, d) pos_emb parameter, and head."""

    def __init__(self):
        super().__init__()
        self.tok_emb = nn.Embedding(V, D)
        self.pos_emb = nn.Parameter(torch.randn(1, T, D))
        self.blocks = nn.Sequential(nn.Linear(D, 4 * D), nn.Linear(4 * D, D))
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, V, bias=False)


class SkipGram(nn.Module):
    """A word2vec skip-gram with negative sampling, as PyTorch tutorials write it: in_embed and out_embed."""

    def __init__(self):
        super().__init__()
        self.in_embed = nn.Embedding(V, D)
        self.out_embed = nn.Embedding(V, D)


@pytest.fixture
def mingpt(tmp_path):
    torch.manual_seed(0)
    model = MinGPT()
    torch.save(model.state_dict(), tmp_path / "model.pt")
    return tmp_path / "model.pt", model


@pytest.fixture
def word2vec(tmp_path):
    torch.manual_seed(1)
    model = SkipGram()
    torch.save(model.state_dict(), tmp_path / "sgns.pt")
    return tmp_path / "sgns.pt", model


@pytest.fixture
def keras(tmp_path):
    """What ``np.savez(path, *model.get_weights())`` writes for Embedding(V, d) then Dense(3): arr_0, arr_1, arr_2."""
    rng = np.random.default_rng(2)
    weights = [rng.normal(size=(V, D)).astype(np.float32), rng.normal(size=(D, 3)).astype(np.float32),
               np.zeros(3, np.float32)]
    np.savez(tmp_path / "weights.npz", *weights)
    return tmp_path / "weights.npz", weights


def _t(p: torch.Tensor) -> np.ndarray:
    return p.detach().numpy()


@pytest.mark.parametrize("fixture, listed", [
    ("mingpt", "tok_emb.weight [40, 8], head.weight [40, 8], blocks.0.weight [32, 8], blocks.1.weight [8, 32]"),
    ("word2vec", "in_embed.weight [40, 8], out_embed.weight [40, 8]"),
    ("keras", "arr_0 [40, 8], arr_1 [8, 3]")])
def test_unknown_names_are_refused_with_the_tensors_to_name(fixture, listed, request):
    path, _ = request.getfixturevalue(fixture)
    with pytest.raises(NoTableError) as err:
        andrea_viz.load(path)
    assert f"its 2-D tensors, largest first: {listed}. Name the one that is the token table (--table KEY" in str(
        err.value)
    assert err.value.tensors[0][0] == listed.split(" ")[0]  # largest first, for a picker


def test_mingpt_opens_with_its_tables_named(mingpt):
    path, model = mingpt
    emb = andrea_viz.load(path, tables={"token": "tok_emb.weight", "position": "pos_emb", "output": "head.weight"})
    np.testing.assert_array_equal(emb.token_table, _t(model.tok_emb.weight))
    np.testing.assert_array_equal(emb.position_table, _t(model.pos_emb)[0])  # (1, T, d) read as (T, d)
    np.testing.assert_array_equal(emb.output_table, _t(model.head.weight))
    assert emb.position_kind == "learned" and not emb.tied
    said = [str(a) for a in emb.provenance.assumptions]
    assert "the token table is 'tok_emb.weight', as named by hand" in said
    assert "the position table is 'pos_emb', as named by hand" in said


def test_word2vec_opens_with_its_context_vectors_as_the_output_table(word2vec):
    path, model = word2vec
    emb = andrea_viz.load(path, tables={"token": "in_embed.weight", "output": "out_embed.weight"})
    np.testing.assert_array_equal(emb.token_table, _t(model.in_embed.weight))
    np.testing.assert_array_equal(emb.output_table, _t(model.out_embed.weight))
    assert emb.position_table is None and emb.position_kind == "none"


def test_a_keras_get_weights_npz_opens_with_arr_0_named(keras):
    path, weights = keras
    emb = andrea_viz.load(path, tables={"token": "arr_0"})
    np.testing.assert_array_equal(emb.token_table, weights[0])


@pytest.mark.parametrize("tables, says", [
    ({"token": "nope"}, "holds no table named 'nope' (given as the token table); its 2-D tensors, largest first: "
                        "tok_emb.weight [40, 8]"),
    ({"token": "ln_f.bias"}, "holds no table named 'ln_f.bias' (given as the token table)"),  # 1-D
    ({"position": "pos_emb"}, "a position or output table was named, but not the token table: name it too"),
    ({"token": "tok_emb.weight", "output": "blocks.1.weight"},
     "the output table 'blocks.1.weight' has shape [8, 32], but the token table has width d = 8: expected (rows, 8)"),
])
def test_a_wrong_name_gets_a_sentence(mingpt, tables, says):
    with pytest.raises(CheckpointError) as err:
        andrea_viz.load(mingpt[0], tables=tables)
    assert says in str(err.value)


def test_the_command_line_names_tables(mingpt, capsys):
    path, model = mingpt
    assert main(["info", str(path), "--table", "tok_emb.weight", "--position", "pos_emb", "--output", "head.weight",
                 "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert [info["vocab_size"], info["d_model"], info["context"], info["output"]] == [V, D, T, "untied"]
    assert main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no token embedding table found in ") and "--table KEY" in err


def test_neighbours_on_the_command_line_use_the_named_table(keras, capsys):
    path, weights = keras
    assert main(["neighbors", str(path), "#0", "-k", "3", "--table", "arr_0", "--json"]) == 0
    got = [n["id"] for n in json.loads(capsys.readouterr().out)["neighbors"]]
    w = weights[0] / np.linalg.norm(weights[0], axis=1, keepdims=True)
    cos = w @ w[0]
    cos[0] = -np.inf  # the word itself is left out
    assert got == np.argsort(-cos, kind="stable")[:3].tolist()  # the slow reference: every cosine, sorted
