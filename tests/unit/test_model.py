"""The Embeddings object: immutable, checked, and read straight from the shipped files."""

import dataclasses

import numpy as np
import pytest

import andrea_viz
from andrea_viz import CheckpointError, Embeddings, Provenance
from andrea_viz.tokenizer import IdTokenizer


def make(**kw):
    args = dict(name="t", token_table=np.zeros((4, 3), np.float32), position_table=None, position_kind="none",
                output_table=None, tied=False, tokenizer=IdTokenizer(4), provenance=Provenance("test"))
    args.update(kw)
    return Embeddings(**args)


def test_minilm_is_the_real_trained_table(minilm):
    from safetensors.numpy import load_file

    from andrea_viz.builtin import minilm_dir

    raw = load_file(str(minilm_dir() / "model.safetensors"))
    np.testing.assert_array_equal(minilm.token_table, raw["embeddings.word_embeddings.weight"])
    np.testing.assert_array_equal(minilm.position_table, raw["embeddings.position_embeddings.weight"])
    assert minilm.token_table.shape == (30_522, 384) and minilm.context == 512
    assert minilm.output_kind == "none" and minilm.position_kind == "learned"
    assert minilm.tokenizer.lookup("kitten") == [18401]
    assert andrea_viz.DEFAULT_MODEL == "minilm-l6"


def test_tables_are_read_only_and_the_object_frozen(minilm):
    with pytest.raises(ValueError):
        minilm.token_table[0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        minilm.name = "other"


def test_init_models_are_the_same_every_time():
    a = andrea_viz.load("andrea-12m-init")
    b = andrea_viz.load("andrea-12m-init")
    np.testing.assert_array_equal(a.token_table, b.token_table)


def test_shape_checks_raise_checkpoint_errors():
    with pytest.raises(CheckpointError, match="columns but the token table has d_model = 3"):
        make(position_table=np.zeros((5, 2), np.float32), position_kind="learned")
    with pytest.raises(CheckpointError, match="one row per token"):
        make(output_table=np.zeros((5, 3), np.float32))
    with pytest.raises(CheckpointError, match="2-D array"):
        make(token_table=np.zeros(3, np.float32))
    with pytest.raises(CheckpointError, match="position_kind must be one of"):
        make(position_kind="absolute")
    with pytest.raises(CheckpointError, match="tied model has no separate output table"):
        make(tied=True, output_table=np.zeros((4, 3), np.float32))


def test_unknown_source_says_what_was_expected():
    with pytest.raises(CheckpointError, match="neither a built-in model .*minilm-l6.* nor an existing file"):
        andrea_viz.load("no-such-model")


def test_the_card_is_typed_frozen_and_reads_as_a_mapping_of_what_is_known(load_model):
    import dataclasses

    card = load_model("andrea-12m-init").card
    assert card["total_params"] == 14_353_152 and card.get("layers") == 6 and card.get("step") is None
    assert "step" not in card and "untrained" in card and set(card) == {"family", "size", "layers", "heads", "init_std",
                                                                          "total_params", "untrained"}
    with pytest.raises(KeyError):
        card["step"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.layers = 7
    assert dict(andrea_viz.model.Card(step=0, layers=1)) == {"step": 0, "layers": 1}  # step 0 is known, not absent
    micro = load_model("andrea-micro").card
    assert micro["step"] == 600 and micro["trained"] and micro.family == "ANDREA"
