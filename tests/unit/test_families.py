"""Every family people hold, read right: tiny random models written by transformers' own save_pretrained, opened
by andrea_viz, compared with the model's own modules — tables bit for bit, position kind and offset, tie, parameter
count, and what block 1 receives."""

import json

import numpy as np
import pytest
import torch

import andrea_viz
from andrea_viz.checkpoints import architectures
from andrea_viz.errors import CheckpointError
from andrea_viz.forward_pass import block_input_formula, block_input_parts, forward
from andrea_viz.plots.positions import block_input_heatmaps
from tests.checkpoint_files import makers

# What each family is, written from the model classes' own code (not from the library): position kind, the learned
# table's parameter name in the module, its offset, tied, and the formula of block 1's input.
EXPECT = {
    "gpt2": ("learned", "transformer.wpe.weight", 0, True, r"x_t = \mathrm{tok}[id_t] + \mathrm{pos}[t]"),
    "llama-untied": ("rope", None, 0, False, r"x_t = \mathrm{tok}[id_t]"),
    "llama-tied": ("rope", None, 0, True, r"x_t = \mathrm{tok}[id_t]"),
    "qwen2": ("rope", None, 0, False, r"x_t = \mathrm{tok}[id_t]"),
    "mistral": ("rope", None, 0, False, r"x_t = \mathrm{tok}[id_t]"),
    "gpt_neox": ("rope", None, 0, False, r"x_t = \mathrm{tok}[id_t]"),
    "opt": ("learned", "model.decoder.embed_positions.weight", 2, True,
            r"x_t = W_{\mathrm{in}}\,\mathrm{tok}[id_t] + \mathrm{pos}[t]"),
    "bloom": ("alibi", None, 0, True, r"x_t = \mathrm{LayerNorm}(\mathrm{tok}[id_t])"),
    "falcon": ("alibi", None, 0, True, r"x_t = \mathrm{tok}[id_t]"),
    "phi": ("rope", None, 0, False, r"x_t = \mathrm{tok}[id_t]"),
    "gemma": ("rope", None, 0, True, r"x_t = \sqrt{d}\,\mathrm{tok}[id_t]"),
    "gptj": ("rope", None, 0, False, r"x_t = \mathrm{tok}[id_t]"),
    "mpt": ("alibi", None, 0, True, r"x_t = \mathrm{tok}[id_t]"),
    "bert": ("learned", "bert.embeddings.position_embeddings.weight", 0, True,
             r"x_t = \mathrm{LayerNorm}(\mathrm{tok}[id_t] + \mathrm{pos}[t] + \mathrm{type}[0])"),
    "roberta": ("learned", "roberta.embeddings.position_embeddings.weight", 2, True,
                r"x_t = \mathrm{LayerNorm}(\mathrm{tok}[id_t] + \mathrm{pos}[t] + \mathrm{type}[0])"),
    "modernbert": ("rope", None, 0, True, r"x_t = \mathrm{LayerNorm}(\mathrm{tok}[id_t])"),
    "distilbert": ("learned", "distilbert.embeddings.position_embeddings.weight", 0, True,
                   r"x_t = \mathrm{LayerNorm}(\mathrm{tok}[id_t] + \mathrm{pos}[t])"),
    "albert": ("learned", "albert.embeddings.position_embeddings.weight", 0, True,
               r"x_t = W_{\mathrm{proj}}\,\mathrm{LayerNorm}(\mathrm{tok}[id_t] + \mathrm{pos}[t] + \mathrm{type}[0])"),
    "t5": ("relative", None, 0, True, r"x_t = \mathrm{tok}[id_t]"),
    "bart": ("learned", "model.encoder.embed_positions.weight", 2, True,
             r"x_t = \mathrm{LayerNorm}(\mathrm{tok}[id_t] + \mathrm{pos}[t])"),
}
IDS = np.array([[3, 7, 11, 5, 9, 3]])


@pytest.fixture(scope="module")
def families(tmp_path_factory):
    """Each family saved once, opened once: {family: (the model, andrea_viz's Embeddings, the folder)}."""
    root = tmp_path_factory.mktemp("families")
    out = {}
    for family in EXPECT:
        model = makers.hf_family(root / family, family)
        out[family] = (model, andrea_viz.load(str(root / family)), root / family)
    return out


def block1_input(model, ids: np.ndarray) -> np.ndarray:
    """What the model's own forward hands to its first block: hidden_states[0] (the encoder's for seq2seq)."""
    t = torch.tensor(ids)
    with torch.no_grad():
        if model.config.is_encoder_decoder:
            return model(input_ids=t, decoder_input_ids=t, output_hidden_states=True).encoder_hidden_states[0].numpy()
        return model(input_ids=t, output_hidden_states=True).hidden_states[0].numpy()


@pytest.mark.parametrize("family", EXPECT)
def test_tables_are_the_models_own_bit_for_bit(families, family):
    model, emb, _ = families[family]
    kind, pos_name, offset, tied, _ = EXPECT[family]
    np.testing.assert_array_equal(emb.token_table, model.get_input_embeddings().weight.detach().numpy())
    assert (emb.output_kind == "tied") == tied
    head = model.get_output_embeddings()
    if not tied:
        np.testing.assert_array_equal(emb.output_table, head.weight.detach().numpy())
    assert emb.position_kind == kind
    if pos_name is None:
        assert emb.position_table is None and "position_offset" not in emb.card
    else:
        stored = dict(model.named_parameters())[pos_name].detach().numpy()
        np.testing.assert_array_equal(emb.position_table, stored[offset:])
        assert emb.card["position_offset"] == offset
    assert emb.card["position_reason"]


@pytest.mark.parametrize("family", EXPECT)
def test_parameter_count_is_model_parameters(families, family):
    model, emb, _ = families[family]
    assert emb.card["total_params"] == sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize("family", EXPECT)
def test_block_1_input_is_the_models_own(families, family):
    model, emb, _ = families[family]
    want = block1_input(model, IDS)
    got = forward(emb, IDS, "numpy").x
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=0, atol=2e-6)
    parts = block_input_parts(emb, IDS[0])
    np.testing.assert_allclose(parts[-1].values, want[0], rtol=0, atol=2e-6)
    assert block_input_formula(emb) == EXPECT[family][4]


def test_offset_tables_would_be_wrong_uncut(families):
    """RoBERTa's rows 0-1 are the padding offset (row 1 all zero): taken as positions 0-1 the sum is off."""
    model, emb, _ = families["roberta"]
    stored = model.roberta.embeddings.position_embeddings.weight.detach().numpy()
    assert emb.context == stored.shape[0] - 2
    assert not np.array_equal(emb.position_table[:2], stored[:2])


def test_encoder_decoders_say_their_table_is_shared(families):
    for family, name in (("t5", "shared.weight"), ("bart", "model.shared.weight")):
        shared = str(families[family][1].card["shared_table"])
        assert name in shared and "encoder and the decoder" in shared
    assert "model.decoder.embed_positions.weight" in str(families["bart"][1].card["shared_table"])
    assert "shared_table" not in families["gpt2"][1].card and "shared_table" not in families["opt"][1].card


def test_rope_theta_nested_in_rope_parameters_is_read(families):
    cfg = json.loads((families["llama-untied"][2] / "config.json").read_text())
    assert "rope_theta" not in cfg and cfg["rope_parameters"]["rope_theta"] == 10000.0
    assert "rope_parameters.rope_theta = 10000)" in str(families["llama-untied"][1].card["position_reason"])
    assert "partial_rotary_factor = 0.5" in str(families["gpt_neox"][1].card["position_reason"])  # rotary_pct in v5
    assert "rotary_dim = 4" in str(families["gptj"][1].card["position_reason"])


def test_gpt_neox_head_is_found_under_its_file_name(families):
    """The module calls it lm_head.weight; save_pretrained writes embed_out.weight."""
    _, emb, folder = families["gpt_neox"]
    roles = {role: name for role, name, _ in emb.provenance.roles}
    assert roles["output table"] == "embed_out.weight" and roles["token table"] == "gpt_neox.embed_in.weight"


def test_llama_bf16_shards_tied_and_untied(tmp_path):
    for family in ("llama-untied", "llama-tied"):
        model = makers.hf_family(tmp_path / family, family, dtype=torch.bfloat16, max_shard_size="4KB")
        assert (tmp_path / family / "model.safetensors.index.json").is_file()
        emb = andrea_viz.load(str(tmp_path / family))
        bf = model.get_input_embeddings().weight.detach()
        np.testing.assert_array_equal(emb.token_table, bf.float().numpy())
        assert emb.output_kind == ("tied" if family == "llama-tied" else "untied")
        if family == "llama-untied":
            np.testing.assert_array_equal(emb.output_table, model.lm_head.weight.detach().float().numpy())
        assert emb.card["total_params"] == sum(p.numel() for p in model.parameters())


def test_an_architecture_transformers_does_not_know_falls_back_to_name_rules(tmp_path):
    makers.hf_family(tmp_path, "gpt2")
    cfg = json.loads((tmp_path / "config.json").read_text())
    cfg["model_type"], cfg["architectures"] = "andrea-unknown", ["AndreaUnknownLM"]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    emb = andrea_viz.load(str(tmp_path))
    assert emb.position_kind == "learned" and emb.vocab_size == makers.HF_V
    assert "'andrea-unknown', which transformers" in emb.provenance.text() and "found by their names" in \
        emb.provenance.text()


def test_a_refusal_lists_the_2d_tensors_largest_first(tmp_path):
    from safetensors.numpy import save_file

    save_file({"a.weight": np.zeros((4, 4), np.float32), "b.weight": np.zeros((10, 3), np.float32),
               "c.weight": np.zeros((2, 2), np.float32), "d.bias": np.zeros(7, np.float32)}, str(tmp_path / "w.safetensors"))
    with pytest.raises(CheckpointError) as info:
        andrea_viz.load(str(tmp_path / "w.safetensors"))
    assert "largest first: b.weight [10, 3], a.weight [4, 4], c.weight [2, 2]" in str(info.value)


def test_the_file_key_is_resolved_by_suffix_then_shape():
    shapes = {"model.embed.weight": (9, 4), "head.weight": (9, 4), "norm.weight": (4,)}
    assert architectures.resolve_key(["embed.weight"], (9, 4), shapes, set()) == "model.embed.weight"
    assert architectures.resolve_key(["lm_head.weight"], (9, 4), shapes, {"model.embed.weight"}) == "head.weight"
    assert architectures.resolve_key(["lm_head.weight"], (9, 4), shapes, set()) is None  # two of that shape: no guess


def test_the_table_of_known_configs_is_what_transformers_says():
    """The generated table (python -m andrea_viz.checkpoints.architectures FOLDER ...) against transformers itself."""
    table = architectures.known()
    assert table, "the generated table is empty"
    for key, entry in table.items():
        assert architectures.digest(entry["config"], entry["keys"]) == key
        built = architectures._recipe(json.dumps(entry["config"], sort_keys=True), frozenset(entry["keys"]))
        assert architectures.recipe_from_json(entry["recipe"]) == built


def test_the_default_model_opens_without_importing_transformers():
    import subprocess
    import sys

    code = ("import sys, andrea_viz; e = andrea_viz.load('minilm-l6'); "
            "print('transformers' in sys.modules, e.card['model_class'], e.block_input.norm is not None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "BertModel", "True"]


def test_a_config_with_absurd_depth_is_not_built(tmp_path):
    makers.hf_family(tmp_path, "gpt2")
    cfg = json.loads((tmp_path / "config.json").read_text())
    cfg["n_layer"] = 10**7
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    emb = andrea_viz.load(str(tmp_path))
    assert "n_layer = 10,000,000, more than the 1,000 layers" in emb.provenance.text()
    assert emb.position_kind == "learned" and emb.output_kind == "tied"  # the name rules still read it


def test_architectures_naming_a_non_model_class_is_not_built(tmp_path):
    makers.hf_family(tmp_path, "gpt2")
    cfg = json.loads((tmp_path / "config.json").read_text())
    cfg["architectures"] = ["Trainer"]
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    emb = andrea_viz.load(str(tmp_path))  # chosen by the file's keys instead: no lm_head key (tied), the base model
    assert emb.card["model_class"] == "GPT2Model" and emb.output_kind == "none"


def test_cli_info_states_positions_block_1_input_and_sharing(families, capsys):
    from andrea_viz.cli import main

    assert main(["info", str(families["opt"][2]), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["context"], d["position_width"], d["d_model"], d["position_offset"]) == (32, 16, 8, 2)
    assert d["block_1_input"] == EXPECT["opt"][4] and d["model_class"] == "OPTForCausalLM"
    assert main(["info", str(families["t5"][2])]) == 0
    text = capsys.readouterr().out
    assert "position table  none (relative)" in text and "shared          one token table, shared.weight" in text


def test_block_input_heatmaps_share_one_scale_for_the_added_terms(load_model):
    emb = load_model("minilm-l6")  # token + position + token type, then a LayerNorm
    ids = emb.tokenizer.encode("the cat sat on a mat")
    parts = block_input_parts(emb, ids)
    figs = block_input_heatmaps(parts, [str(i) for i in ids])
    added = [k for k, p in enumerate(parts) if not p.step]
    assert len(added) == 3 and len(figs) == len(parts)
    shared = max(float(np.percentile(np.abs(parts[k].values), 99.5)) for k in added)
    for k, (part, fig) in enumerate(zip(parts, figs, strict=True)):
        lim = shared if k in added else float(np.percentile(np.abs(part.values), 99.5))
        assert fig.data[0].zmax == pytest.approx(lim) and fig.data[0].zmin == pytest.approx(-lim)
    assert figs[-1].data[0].zmax != pytest.approx(shared)  # the LayerNorm's output has its own scale
