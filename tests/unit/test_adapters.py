"""PEFT adapter folders written by ``peft`` itself on a tiny Llama: the app's token table equals
``PeftModel.merge_and_unload()``'s input embeddings (the reference), the card and ``audit BASE ADAPTER`` name the rows
the adapter changed, and an adapter without its base gets one sentence."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from andrea_viz.audit import audit_checkpoints, audit_report
from andrea_viz.checkpoints import load_path
from andrea_viz.checkpoints.adapters import find_base, is_adapter_folder, read_adapter_config
from andrea_viz.checkpoints.folder import list_checkpoints
from andrea_viz.cli import main
from andrea_viz.errors import CheckpointError

V, D = 48, 16
LORA_ROWS = [2, 9, 30]  # ids whose columns of lora_embedding_A are trained (an embedding LoRA changes only those)
SAVED_ROWS = [5, 6]  # rows of the modules_to_save copy that training changed
TOKEN_ROWS = [3, 7, 40]  # trainable_token_indices


def _base_model():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=V, hidden_size=D, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                      num_key_value_heads=2, tie_word_embeddings=False)
    return LlamaForCausalLM(cfg)


def _load_base(root: Path):
    from transformers import LlamaForCausalLM

    return LlamaForCausalLM.from_pretrained(str(root / "base"))


def _train(model, kind: str) -> None:
    """Stand-in for training: set the adapter's own tensors to values a few steps could give."""
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if not p.requires_grad:
                continue
            if kind in ("lora_embed", "rslora_embed") and name.endswith("lora_embedding_A.default"):
                p.zero_()
                p[:, LORA_ROWS] = 0.1 * torch.randn(p.shape[0], len(LORA_ROWS), generator=g)
            elif kind == "modules_to_save" and "modules_to_save" in name and "embed_tokens" in name:
                p[SAVED_ROWS] += 0.05 * torch.randn(len(SAVED_ROWS), p.shape[1], generator=g)
            elif "trainable_tokens_delta" in name:
                p += 0.05 * torch.randn(p.shape, generator=g)
            else:
                p += 0.05 * torch.randn(p.shape, generator=g)


KINDS = {
    "attention": dict(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
    "modules_to_save": dict(r=4, lora_alpha=8, target_modules=["q_proj"], modules_to_save=["embed_tokens"]),
    "lora_embed": dict(r=4, lora_alpha=8, target_modules=["embed_tokens", "q_proj"]),
    "rslora_embed": dict(r=4, lora_alpha=6, target_modules=["embed_tokens"], use_rslora=True),
    "tokens": dict(r=4, lora_alpha=8, target_modules=["q_proj"], trainable_token_indices=TOKEN_ROWS),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A checkpoint folder: base/ (save_pretrained), adapters/<kind>/ (PeftModel.save_pretrained), one adapter saved
    inside the base's own folder, and merged/<kind>.npy: merge_and_unload()'s input embeddings, the reference."""
    from peft import LoraConfig, PeftModel, get_peft_model

    root = tmp_path_factory.mktemp("ckpt")
    _base_model().save_pretrained(str(root / "base"))
    (root / "merged").mkdir()
    for kind, spec in KINDS.items():
        model = get_peft_model(_load_base(root), LoraConfig(**spec))
        _train(model, kind)
        model.save_pretrained(str(root / "adapters" / kind))
        ref = PeftModel.from_pretrained(_load_base(root), str(root / "adapters" / kind)).merge_and_unload()
        np.save(root / "merged" / f"{kind}.npy", ref.get_input_embeddings().weight.detach().numpy())
    shutil.copytree(root / "adapters" / "tokens", root / "base" / "my-adapter")
    return root


def _reference(root: Path, kind: str) -> np.ndarray:
    return np.load(root / "merged" / f"{kind}.npy")


def _base_table(root: Path) -> np.ndarray:
    return _load_base(root).get_input_embeddings().weight.detach().numpy()


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_token_table_equals_peft_merge_and_unload(root, kind):
    folder = root / "adapters" / kind
    assert is_adapter_folder(folder)
    emb = load_path(folder, name=f"adapters/{kind}", confine=root)
    np.testing.assert_allclose(np.asarray(emb.token_table), _reference(root, kind), rtol=0, atol=1e-6)
    assert "PEFT adapter (LORA) on the base model base" in str(emb.provenance.format)


def test_the_lora_scale_is_alpha_over_r_and_rslora_alpha_over_sqrt_r(root):
    notes = " ".join(map(str, load_path(root / "adapters" / "lora_embed", confine=root).provenance.notes))
    assert "base + B·A × 2:" in notes  # 8 / 4
    notes = " ".join(map(str, load_path(root / "adapters" / "rslora_embed", confine=root).provenance.notes))
    assert "base + B·A × 3:" in notes  # 6 / √4


@pytest.mark.parametrize("kind, rows", [("lora_embed", LORA_ROWS), ("rslora_embed", LORA_ROWS),
                                        ("modules_to_save", SAVED_ROWS), ("tokens", TOKEN_ROWS)])
def test_the_card_says_which_rows_the_adapter_changed(root, kind, rows):
    emb = load_path(root / "adapters" / kind, confine=root)
    changed = np.flatnonzero((np.asarray(emb.token_table) != _base_table(root)).any(axis=1)).tolist()
    assert changed == rows  # the reference's own difference
    ids = ", ".join(f"#{i}" for i in rows)
    assert any(f"{len(rows)} of {V} rows changed ({ids})" in str(n) for n in emb.provenance.notes), emb.provenance.notes


def test_an_adapter_on_attention_only_leaves_the_tables_and_says_so(root):
    emb = load_path(root / "adapters" / "attention", confine=root)
    np.testing.assert_array_equal(np.asarray(emb.token_table), _base_table(root))
    assert any("leaves the embedding tables as the base has them; it changes 2 other tensors" in str(n)
               for n in emb.provenance.notes)


def test_the_base_is_found_as_the_parent_folder_or_by_its_name(root):
    cfg = read_adapter_config(root / "base" / "my-adapter")
    assert find_base(root / "base" / "my-adapter", cfg, root) == root / "base"  # saved inside the base's folder
    assert find_base(root / "adapters" / "tokens", cfg, root) == root / "base"  # by base_model_name_or_path's name


def test_an_adapter_without_its_base_says_what_was_expected(root, tmp_path):
    shutil.copytree(root / "adapters" / "lora_embed", tmp_path / "alone")
    with pytest.raises(CheckpointError) as err:
        load_path(tmp_path / "alone", name="alone", confine=tmp_path)
    text = str(err.value)
    assert text.startswith("alone is a PEFT adapter (LORA) for the base model '")
    assert "which was not found: expected the base model's folder (config.json and weights)" in text
    assert str(tmp_path) not in text


def test_the_prefix_base_model_model_is_stripped(root):
    from safetensors import safe_open

    with safe_open(str(root / "adapters" / "modules_to_save" / "adapter_model.safetensors"), "np") as f:
        assert "base_model.model.model.embed_tokens.weight" in f.keys()  # as peft writes it
    emb = load_path(root / "adapters" / "modules_to_save", confine=root)
    assert emb.provenance.roles[0][1] == "model.embed_tokens.weight"


def test_adapter_folders_are_offered_in_the_picker(root):
    offered = list_checkpoints(root)
    assert "adapters/lora_embed/" in offered and "base/" in offered and "base/my-adapter/" in offered


@pytest.mark.parametrize("kind, role_rows, others", [
    ("attention", None, 2), ("modules_to_save", SAVED_ROWS, 1), ("lora_embed", LORA_ROWS, 1), ("tokens", TOKEN_ROWS, 1)])
def test_audit_base_adapter_names_the_tables_and_rows(root, kind, role_rows, others):
    result = audit_checkpoints(root / "base", root / "adapters" / kind)
    adapter = result["adapter"]
    tables = [c for c in adapter["changes"] if c["role"]]
    assert len([c for c in adapter["changes"] if not c["role"]]) == others
    if role_rows is None:
        assert tables == []
    else:
        assert [(c["tensor"], c["role"], c["rows"]) for c in tables] == [("model.embed_tokens.weight", "token", role_rows)]
    assert result["added_rows"] == [] and result["removed_rows"] == []
    assert str(audit_report(result)[0]).startswith(f"adapter {kind} (LORA): it changes {len(tables)} embedding tables")


def test_audit_adapter_on_the_command_line_prints_one_json_object(root, capsys):
    assert main(["audit", str(root / "base"), str(root / "adapters" / "tokens"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["adapter"]["trainable_token_indices"] == TOKEN_ROWS
    assert out["adapter"]["changes"][0]["rows"] == TOKEN_ROWS


def test_audit_of_an_adapter_needs_its_base_folder(root):
    with pytest.raises(CheckpointError, match="is a PEFT adapter: expected its base model's folder"):
        audit_checkpoints("minilm-l6", root / "adapters" / "tokens")


GPT2_KINDS = {
    "lora_wte": dict(r=2, lora_alpha=4, target_modules=["wte"], init_lora_weights=False),
    "modules_to_save": dict(r=2, target_modules=["c_attn"], modules_to_save=["wte"]),
    "tokens": dict(r=2, target_modules=["c_attn"], trainable_token_indices={"wte": [1, 4]}),
}


@pytest.mark.parametrize("kind", list(GPT2_KINDS))
def test_a_tied_gpt2_has_both_tables_of_merge_and_unload(tmp_path, kind):
    """GPT-2 ties its head to wte: a LoRA or trainable tokens keep it tied; a modules_to_save copy of wte replaces the
    input table only, and the merged model's head is the base's table (peft unties it)."""
    from peft import LoraConfig, PeftModel, get_peft_model
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=V, n_embd=D, n_layer=1, n_head=2, n_positions=32)).save_pretrained(
        str(tmp_path / "gpt2"))
    model = get_peft_model(GPT2LMHeadModel.from_pretrained(str(tmp_path / "gpt2")), LoraConfig(**GPT2_KINDS[kind]))
    with torch.no_grad():
        for p in (p for p in model.parameters() if p.requires_grad):
            p.add_(0.01 * torch.randn_like(p))
    model.save_pretrained(str(tmp_path / "adapter"))
    ref = PeftModel.from_pretrained(GPT2LMHeadModel.from_pretrained(str(tmp_path / "gpt2")),
                                    str(tmp_path / "adapter")).merge_and_unload()
    emb = load_path(tmp_path / "adapter", confine=tmp_path)
    np.testing.assert_allclose(np.asarray(emb.token_table), ref.get_input_embeddings().weight.detach().numpy(),
                               rtol=0, atol=1e-6)
    head = emb.token_table if emb.tied else emb.output_table
    np.testing.assert_allclose(np.asarray(head), ref.get_output_embeddings().weight.detach().numpy(), rtol=0, atol=1e-6)
    assert emb.tied == (kind != "modules_to_save")
    np.testing.assert_array_equal(np.asarray(emb.position_table), ref.transformer.wpe.weight.detach().numpy())


def test_the_adapters_own_file_opens_as_its_folder(root, tmp_path):
    emb = load_path(root / "adapters" / "tokens" / "adapter_model.safetensors", confine=root)
    np.testing.assert_allclose(np.asarray(emb.token_table), _reference(root, "tokens"), rtol=0, atol=1e-6)
    upload = tmp_path / "upload"  # an upload of the adapter's two files: its base is not in the upload's folder
    upload.mkdir()
    for name in ("adapter_config.json", "adapter_model.safetensors"):
        shutil.copy(root / "adapters" / "tokens" / name, upload / name)
    with pytest.raises(CheckpointError, match="is a PEFT adapter \\(LORA\\) for the base model '.*', which was not found"):
        load_path(upload / "adapter_model.safetensors", name="adapter_model.safetensors", confine=upload)


@pytest.mark.parametrize("kind", list(GPT2_KINDS))
def test_audit_of_a_tied_gpt2_adapter_states_the_merged_models_tie(tmp_path, kind):
    """The audit describes the merged model: a modules_to_save copy of wte unties it (config and bytes), the other
    kinds keep it tied; an adapter is audited however far it moved the rows (its base is its own by construction)."""
    from peft import LoraConfig, get_peft_model
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    GPT2LMHeadModel(GPT2Config(vocab_size=V, n_embd=D, n_layer=1, n_head=2, n_positions=32)).save_pretrained(
        str(tmp_path / "gpt2"))
    model = get_peft_model(GPT2LMHeadModel.from_pretrained(str(tmp_path / "gpt2")), LoraConfig(**GPT2_KINDS[kind]))
    with torch.no_grad():
        for p in (p for p in model.parameters() if p.requires_grad):
            p.add_(torch.randn_like(p))  # far from the base: rows unrelated to it
    model.save_pretrained(str(tmp_path / "adapter"))
    result = audit_checkpoints(tmp_path / "gpt2", tmp_path / "adapter")
    tie = "untied" if kind == "modules_to_save" else "tied"
    assert (result["tie"]["config"], result["tie"]["bytes"]) == (tie, tie)
    (table,) = [c for c in result["adapter"]["changes"] if c["role"]]
    assert table["tensor"] == "transformer.wte.weight"
    assert table["rows"] == ([1, 4] if kind == "tokens" else list(range(V)))


@pytest.mark.parametrize("kind", ["lora_embed", "modules_to_save", "tokens"])
def test_merging_and_comparing_by_blocks_of_rows_gives_the_same_table(root, kind, monkeypatch):
    from andrea_viz.checkpoints import adapters

    monkeypatch.setattr(adapters, "BLOCK_ROWS", 5)  # 48 rows: ten blocks, the last one short
    emb = load_path(root / "adapters" / kind, confine=root)
    np.testing.assert_allclose(np.asarray(emb.token_table), _reference(root, kind), rtol=0, atol=1e-6)
    rows = {"lora_embed": LORA_ROWS, "modules_to_save": SAVED_ROWS, "tokens": TOKEN_ROWS}[kind]
    assert any(f"{len(rows)} of {V} rows changed ({', '.join(f'#{i}' for i in rows)})" in str(n)
               for n in emb.provenance.notes)
