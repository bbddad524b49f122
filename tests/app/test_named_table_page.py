"""The Checkpoint page with the checkpoint folder: a file whose tables no known name says gets a picker of its 2-D
tensors (with shapes), and reads with the tables named there; the folder picker offers only what opens (no
sentence-transformers module folder), and a timeline's heading names its folder relative to the checkpoint folder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

from andrea_viz.checkpoints.folder import list_checkpoints, list_timelines
from andrea_viz.ui.state import USER_MODELS
from tests.checkpoint_files import makers

from .conftest import no_exception, open_page, plain

V, D, T = 40, 8, 12


def _mingpt(path):
    g = torch.Generator().manual_seed(0)
    state = {"tok_emb.weight": torch.randn(V, D, generator=g), "pos_emb": torch.randn(1, T, D, generator=g),
             "blocks.0.weight": torch.randn(4 * D, D, generator=g), "head.weight": torch.randn(V, D, generator=g)}
    torch.save(state, path)
    return state


def _click(at, label: str):
    [b for b in at.button if b.label == label][0].click().run()
    no_exception(at)
    return at


def test_a_file_with_unknown_names_is_read_with_the_tables_named_in_the_picker(app, tmp_path, monkeypatch):
    root = tmp_path / "ckpts"
    root.mkdir()
    state = _mingpt(root / "mingpt.pt")
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.selectbox(key="ckpt:rel").set_value("mingpt.pt").run()
    _click(at, "Read it")
    assert "no token embedding table found in mingpt.pt" in plain(at.error[0].value)
    assert str(root) not in at.error[0].value
    picker = at.selectbox(key="ckpt:name:token")
    assert picker.options == ["tok_emb.weight · 40 × 8", "head.weight · 40 × 8", "blocks.0.weight · 32 × 8",
                              "pos_emb · 12 × 8"]  # largest first, 2-D tensors and the (1, T, d) pos_emb
    assert picker.value == "tok_emb.weight"  # the stated guess: the largest
    assert any("Offered first: the largest 2-D array, taken as the token table. That is a guess" in c.value
               for c in at.caption)
    at.selectbox(key="ckpt:name:position").set_value("pos_emb").run()
    at.selectbox(key="ckpt:name:output").set_value("head.weight").run()
    _click(at, "Read it with these tables")
    assert not at.error, [e.value for e in at.error]
    text = plain(" ".join(m.value for m in at.markdown))
    assert "the token table is 'tok_emb.weight', as named by hand" in text
    assert "the position table is 'pos_emb', as named by hand" in text
    (emb,) = at.session_state[USER_MODELS].values()
    np.testing.assert_array_equal(emb.token_table, state["tok_emb.weight"].numpy())
    np.testing.assert_array_equal(emb.position_table, state["pos_emb"][0].numpy())
    np.testing.assert_array_equal(emb.output_table, state["head.weight"].numpy())


def test_sentence_transformers_module_folders_are_not_offered(tmp_path):
    st_model = tmp_path / "minilm"
    makers.hf_bert(st_model)
    (st_model / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}]))
    (st_model / "1_Pooling").mkdir()
    (st_model / "1_Pooling" / "config.json").write_text(json.dumps({"word_embedding_dimension": 32}))
    (st_model / "2_Dense").mkdir()
    (st_model / "2_Dense" / "config.json").write_text(json.dumps({"in_features": 32, "out_features": 32}))
    from safetensors.numpy import save_file

    save_file({"linear.weight": np.zeros((32, 32), np.float32)}, str(st_model / "2_Dense" / "model.safetensors"))
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "config.json").write_text("{}")  # a config.json with no weights: not a model
    offered = list_checkpoints(tmp_path)
    assert offered == ["minilm/", "minilm/model.safetensors"]
    assert list_timelines(tmp_path) == []  # one model's folder is not a run's snapshots


def test_timelines_are_only_folders_of_snapshots(tmp_path):
    (tmp_path / "run").mkdir()
    for step in (0, 10):
        makers.andrea_bin(tmp_path / "run" / f"step{step}.bin", V=50, d=8, T=16, L=1, adam=False, step=step, config=True)
    makers.hf_gpt2(tmp_path / "gpt2")
    (tmp_path / "gpt2" / "pytorch_model.bin").write_bytes((tmp_path / "gpt2" / "model.safetensors").read_bytes())
    assert list_timelines(tmp_path) == ["run/"]


def test_the_timeline_heading_names_the_folder_relative_to_the_checkpoint_folder(app, tmp_path, monkeypatch):
    root = tmp_path / "ckpts"
    (root / "runs" / "a").mkdir(parents=True)
    for step in (0, 10):
        makers.andrea_bin(root / "runs" / "a" / f"step{step}.bin", V=50, d=8, T=16, L=1, adam=False, step=step, config=True)
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.selectbox(key="ckpt:tlrel").set_value("runs/a/").run()
    _click(at, "Open as a timeline")
    assert not at.error, [e.value for e in at.error]
    headings = [plain(h.value) for h in at.subheader]
    assert "Timeline: runs/a/" in headings, headings
    assert not [h for h in headings if str(root) in h]


def test_an_adapter_folder_opens_on_the_page_with_the_rows_it_changed(app, tmp_path, monkeypatch):
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    root = tmp_path / "ckpts"
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=16, num_hidden_layers=1,
                                 num_attention_heads=2, num_key_value_heads=2)).save_pretrained(str(root / "base"))
    model = get_peft_model(LlamaForCausalLM.from_pretrained(str(root / "base")),
                           LoraConfig(r=2, target_modules=["q_proj"], trainable_token_indices=[2, 11]))
    with torch.no_grad():
        for p in (p for p in model.parameters() if p.requires_grad):
            p.add_(0.01 * torch.randn_like(p))
    model.save_pretrained(str(root / "tuned" / "adapter"))
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    assert "tuned/adapter/" in at.selectbox(key="ckpt:rel").options
    at.selectbox(key="ckpt:rel").set_value("tuned/adapter/").run()
    _click(at, "Read it")
    assert not at.error, [e.value for e in at.error]
    text = plain(" ".join(m.value for m in at.markdown))
    assert "PEFT adapter (LORA) on the base model base" in text
    assert "the adapter adapter changes model.embed_tokens.weight (trainable_tokens): 2 of 40 rows changed (#2, #11)" \
        in text
    assert str(root) not in text


def test_an_uploaded_file_with_unknown_names_is_kept_and_read_with_the_tables_named(app, tmp_path):
    """A Keras ``get_weights()`` .npz (arr_0, arr_1, arr_2) uploaded: the sentence, the picker under it, and the
    upload read with the tables named there (its file kept as an upload's; given up when another is uploaded)."""
    from andrea_viz.ui import naming

    g = np.random.default_rng(0)
    arrays = {"arr_0": g.standard_normal((V, D)).astype(np.float32), "arr_1": g.standard_normal((T, D)).astype(np.float32),
              "arr_2": g.standard_normal((D, 4 * D)).astype(np.float32)}
    np.savez(tmp_path / "keras.npz", **arrays)
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.get("file_uploader")[0].upload("keras.npz", (tmp_path / "keras.npz").read_bytes(), "application/octet-stream").run()
    _click(at, "Read the upload")
    assert any("no token embedding table found in keras.npz" in plain(e.value) for e in at.error)
    kept = at.session_state[naming.NAMING]
    assert kept.where == "upload" and [k for k, _s in kept.tensors] == ["arr_0", "arr_2", "arr_1"]  # largest first
    at.selectbox(key="ckpt:name:token").set_value("arr_0").run()
    at.selectbox(key="ckpt:name:position").set_value("arr_1").run()
    _click(at, "Read it with these tables")
    assert not at.error, [e.value for e in at.error]
    (emb,) = at.session_state[USER_MODELS].values()
    np.testing.assert_array_equal(emb.token_table, arrays["arr_0"])
    np.testing.assert_array_equal(emb.position_table, arrays["arr_1"])
    assert "the token table is 'arr_0', as named by hand" in plain(" ".join(m.value for m in at.markdown))
    assert naming.NAMING not in at.session_state and Path(emb.provenance.file).is_file()  # named: kept as an upload


def test_an_upload_kept_for_naming_is_given_up_when_another_is_read(app, tmp_path):
    from andrea_viz.ui import naming

    np.savez(tmp_path / "keras.npz", arr_0=np.ones((V, D), np.float32), arr_1=np.ones((T, D), np.float32))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.get("file_uploader")[0].upload("keras.npz", (tmp_path / "keras.npz").read_bytes(), "application/octet-stream").run()
    _click(at, "Read the upload")
    kept = at.session_state[naming.NAMING]
    dropped = []
    give_up = kept.drop
    kept.drop = lambda: (dropped.append(kept.name), give_up())
    np.save(tmp_path / "table.npy", np.ones((V, D), np.float32))
    at.get("file_uploader")[0].upload("table.npy", (tmp_path / "table.npy").read_bytes(), "application/octet-stream").run()
    _click(at, "Read the upload")
    assert naming.NAMING not in at.session_state and dropped == ["keras.npz"]  # the kept one was given up
    assert [e.name for e in at.session_state[USER_MODELS].values()] == ["table.npy"]


def _keras(root: Path) -> dict[str, np.ndarray]:
    g = np.random.default_rng(1)
    arrays = {"arr_0": g.standard_normal((V, D)).astype(np.float32), "arr_1": g.standard_normal((T, D)).astype(np.float32),
              "arr_2": g.standard_normal((V, D)).astype(np.float32), "arr_3": g.standard_normal(D).astype(np.float32)}
    np.savez(root / "keras.npz", **arrays)
    return arrays


def test_tables_named_in_the_picker_go_into_the_address_and_a_shared_address_opens_them(app, tmp_path, monkeypatch):
    """Named on the Checkpoint page and explored: the address says the file and its tables
    (``?model=folder:keras.npz&tables=token:arr_0,position:arr_1,output:arr_2``); a fresh session opened at that
    address has the same model, read with the same tables, asking nothing."""
    root = tmp_path / "ckpts"
    root.mkdir()
    arrays = _keras(root)
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.selectbox(key="ckpt:rel").set_value("keras.npz").run()
    _click(at, "Read it")
    at.selectbox(key="ckpt:name:token").set_value("arr_0").run()
    at.selectbox(key="ckpt:name:position").set_value("arr_1").run()
    at.selectbox(key="ckpt:name:output").set_value("arr_2").run()
    _click(at, "Read it with these tables")
    (key,) = at.session_state[USER_MODELS]
    at.run()  # the sidebar offers it (the picker read it after the sidebar was drawn)
    at.sidebar.selectbox[0].set_value(key).run()  # explored: the model of every page
    no_exception(at)
    assert at.query_params["model"] == "folder:keras.npz"
    assert at.query_params["tables"] == "token:arr_0,position:arr_1,output:arr_2"

    shared = app(query={"model": "folder:keras.npz", "tables": "token:arr_0,position:arr_1,output:arr_2"})
    assert not shared.error and not shared.warning, [e.value for e in (*shared.error, *shared.warning)]
    (emb,) = shared.session_state[USER_MODELS].values()
    assert shared.session_state["model"] == emb.key == key
    np.testing.assert_array_equal(emb.token_table, arrays["arr_0"])
    np.testing.assert_array_equal(emb.position_table, arrays["arr_1"])
    np.testing.assert_array_equal(emb.output_table, arrays["arr_2"])
    assert shared.query_params["tables"] == "token:arr_0,position:arr_1,output:arr_2"  # kept for the next share
    shared.sidebar.selectbox[0].set_value("minilm-l6").run()
    assert "tables" not in shared.query_params  # a built-in: nothing named


def test_an_address_naming_a_key_that_is_no_table_of_the_file_gets_a_sentence(app, tmp_path, monkeypatch):
    root = tmp_path / "ckpts"
    root.mkdir()
    _keras(root)
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    for tables, said in [("token:arr_9", "keras.npz holds no table named 'arr_9' (given as the token table); its 2-D "
                                         "tensors, largest first: arr_0 [40, 8], arr_2 [40, 8], arr_1 [12, 8]"),
                         ("token:arr_0,position:arr_3", "holds no table named 'arr_3' (given as the position table)"),
                         ("token:<b>x</b>", "holds no table named '<b>x</b>' (given as the token table)")]:
        at = app(query={"model": "folder:keras.npz", "tables": tables})
        assert at.session_state["model"] == "minilm-l6" and not at.session_state[USER_MODELS]
        errors = [plain(e.value) for e in at.error]
        assert any("The model in the address could not be opened" in e and said in e for e in errors), errors
    at = app(query={"model": "folder:keras.npz", "tables": "arr_0"})  # not role:key: refused by url's rule
    assert any("The address gives tables=arr_0, which this page cannot use" in plain(w.value) for w in at.warning)
    assert any("no token embedding table found in keras.npz" in plain(e.value) for e in at.error)
