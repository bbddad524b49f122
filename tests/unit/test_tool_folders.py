"""Folders as tools leave them: a Trainer's output_dir, shards, variants, tokenizer files beside the weights."""

import json

import numpy as np
import pytest
import torch

import andrea_viz
from andrea_viz.checkpoints.folder import list_checkpoints, list_timelines
from andrea_viz.errors import CheckpointError
from andrea_viz.timeline import open_timeline
from tests.checkpoint_files import makers


def test_a_trainer_output_dir_is_a_timeline_with_the_final_model_last(tmp_path):
    tables = makers.trainer_output_dir(tmp_path, steps=(2, 4), final_step=5)
    tl = open_timeline(tmp_path)
    assert tl.steps == [2, 4, 5] and tl.snapshots[-1].path == tmp_path
    for i, step in enumerate(tl.steps):
        np.testing.assert_array_equal(tl.model(i).token_table, tables[step])
    assert "./" in list_timelines(tmp_path)


def test_a_final_model_without_its_own_state_replaces_the_last_checkpoint(tmp_path):
    makers.trainer_output_dir(tmp_path, steps=(2, 4), final_step=4)
    (tmp_path / "trainer_state.json").unlink()
    tl = open_timeline(tmp_path)
    assert tl.steps == [2, 4] and tl.snapshots[-1].path == tmp_path


def test_trainer_state_and_shards_are_never_offered_as_checkpoints(tmp_path):
    makers.trainer_output_dir(tmp_path / "run", steps=(2,), final_step=None)
    makers.hf_family(tmp_path / "big", "llama-untied", max_shard_size="4KB")
    offered = list_checkpoints(tmp_path)
    assert "run/checkpoint-2/" in offered and "big/" in offered
    names = {o.rsplit("/", 1)[-1] for o in offered}
    assert not names & {"optimizer.pt", "scheduler.pt", "rng_state.pth", "training_args.bin"}
    assert not [o for o in offered if "-of-" in o], offered


def test_a_single_shard_says_which_of_how_many(tmp_path):
    makers.hf_family(tmp_path, "llama-untied", max_shard_size="4KB")
    shards = sorted(p.name for p in tmp_path.glob("model-*-of-*.safetensors"))
    assert len(shards) >= 3
    n = len(shards)
    messages = []
    for name in shards:
        try:
            emb = andrea_viz.load(str(tmp_path / name))
            messages.append(emb.provenance.text())
        except CheckpointError as exc:
            messages.append(str(exc))
    for i, text in enumerate(messages, 1):
        assert f"is shard {i} of {n} of a sharded checkpoint" in text, text


def test_a_variant_file_is_found(tmp_path):
    model = makers.hf_family(tmp_path / "_m", "gpt2")
    model.save_pretrained(tmp_path / "v", variant="fp16")
    assert (tmp_path / "v" / "model.fp16.safetensors").is_file() and not (tmp_path / "v" / "model.safetensors").exists()
    emb = andrea_viz.load(str(tmp_path / "v"))
    np.testing.assert_array_equal(emb.token_table, model.transformer.wte.weight.detach().numpy())
    assert "model.fp16.safetensors" in emb.provenance.text()


def test_vocab_json_and_merges_beside_the_weights_are_the_tokenizer(tmp_path):
    vocab, merges, tj = makers.byte_level_bpe(tmp_path / "tok")
    n = json.loads(vocab.read_text()).__len__()
    import transformers

    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=n,
                                                                 n_positions=32))
    model.save_pretrained(tmp_path / "m")
    for f in (vocab, merges):
        (tmp_path / "m" / f.name).write_bytes(f.read_bytes())
    emb = andrea_viz.load(str(tmp_path / "m"))
    assert "vocab.json + merges.txt" in str(emb.tokenizer.description)
    assert emb.tokenizer.encode(" the cat") == [json.loads(vocab.read_text())[t] for t in ("Ġthe", "Ġcat")]


def test_special_tokens_show_by_their_names_and_a_larger_tokenizer_is_refused(tmp_path):
    from tokenizers import Tokenizer

    _, _, tj = makers.byte_level_bpe(tmp_path / "tok")
    t = Tokenizer.from_file(str(tj))
    n = t.get_vocab_size()
    t.add_special_tokens(["<|endoftext|>"])
    t.save(str(tj))
    for rows, ok in ((n + 1, True), (n, False)):
        import transformers

        torch.manual_seed(0)
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=rows,
                                                                     n_positions=32))
        folder = tmp_path / f"m{rows}"
        model.save_pretrained(folder)
        (folder / "tokenizer.json").write_bytes(tj.read_bytes())
        emb = andrea_viz.load(str(folder))
        if ok:
            assert emb.token(n) == "<|endoftext|>"
        else:
            assert f"holds {n + 1:,} tokens but the table has only {n:,} rows" in emb.provenance.text()


def test_the_timeline_refuses_a_final_model_before_its_checkpoints(tmp_path):
    makers.trainer_output_dir(tmp_path, steps=(2, 4), final_step=4)
    (tmp_path / "trainer_state.json").write_text(json.dumps({"global_step": 3}))
    with pytest.raises(CheckpointError, match="records step 3, before its checkpoint-4/"):
        open_timeline(tmp_path)
