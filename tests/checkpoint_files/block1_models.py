"""Tiny models of every class transformers builds from a small config, for checking the block-1 input the app states
against what the model itself computes (tests/unit/test_block1_truth.py)."""

from __future__ import annotations

import inspect
import logging
import warnings
from pathlib import Path

import numpy as np
import torch

# The sizes a config is shrunk to: every field of this list the class's default config has is set (and no other).
SMALL = dict(vocab_size=96, hidden_size=16, d_model=16, n_embd=16, dim=16, embed_dim=16, num_hidden_layers=1, n_layer=1,
             num_layers=1, n_layers=1, encoder_layers=1, decoder_layers=1, num_attention_heads=2, n_head=2, n_heads=2,
             encoder_attention_heads=2, decoder_attention_heads=2, num_heads=2, intermediate_size=32, ffn_dim=32,
             encoder_ffn_dim=32, decoder_ffn_dim=32, d_ff=32, hidden_dim=32, n_inner=32, dff=32, num_key_value_heads=2,
             head_dim=8, d_kv=8, max_position_embeddings=64, n_positions=64, max_seq_len=64, pad_token_id=0,
             bos_token_id=1, eos_token_id=2, decoder_start_token_id=1, sep_token_id=2, cls_token_id=1, mask_token_id=3,
             num_decoder_layers=1)
MAX_PARAMS = 2_000_000  # a class larger than this at the SMALL sizes keeps other large parts (a vision tower)
# What a real checkpoint of a class sets that the class's default config does not (so the check sees the step), and what
# a config of one layer must say to be valid.
EXTRA = {
    "granite": dict(embedding_multiplier=12.0), "granitemoe": dict(embedding_multiplier=12.0),
    "granitemoeshared": dict(embedding_multiplier=12.0), "granite_swa": dict(embedding_multiplier=12.0),
    "granitemoe_swa": dict(embedding_multiplier=12.0),
    "marian": dict(scale_embedding=True), "pegasus": dict(scale_embedding=True), "xglm": dict(scale_embedding=True),
    "m2m_100": dict(scale_embedding=True), "nllb-moe": dict(scale_embedding=True),
    "electra": dict(embedding_size=8), "convbert": dict(embedding_size=8),
    "gpt_neo": dict(attention_types=[[["global"], 1]]),
    "mobilebert": dict(embedding_size=8, intra_bottleneck_size=8),
    "gptj": dict(rotary_dim=4), "codegen": dict(rotary_dim=4),  # the default rotary_dim (64) exceeds a head of 8
}
# DeBERTa-v3's own config (microsoft/deberta-v3-base): relative attention only, no position rows in the input
DEBERTA_V3 = dict(relative_attention=True, position_biased_input=False, pos_att_type="p2c|c2p",
                  norm_rel_ebd="layer_norm", share_att_key=True, max_relative_positions=-1, position_buckets=16)
IDS = np.array([[5, 9, 13, 7, 11, 5, 20, 4]])  # no special id (0-3), so no padding row or mask is involved


def quiet() -> None:
    import transformers

    transformers.logging.set_verbosity_error()
    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore")


def text_types() -> list[str]:
    """Every model_type whose base class (transformers' MODEL_MAPPING_NAMES) is a model of token ids."""
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    return sorted(t for t, c in MODEL_MAPPING_NAMES.items() if isinstance(c, str))


def small_config(model_type: str, **extra):
    """The class's default config with the SMALL sizes it has (and ``extra``)."""
    from transformers import CONFIG_MAPPING

    cc = CONFIG_MAPPING[model_type]
    defaults = cc().to_dict()
    return cc(**{**{k: v for k, v in SMALL.items() if k in defaults}, **extra})


def build(model_type: str, cls_name: str | None = None, seed: int = 0, **extra):
    """A tiny random model (fp32, eval) of a model_type, or None when it is not a model of token ids."""
    import transformers
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    from transformers import CONFIG_MAPPING

    if "vocab_size" not in CONFIG_MAPPING[model_type]().to_dict():  # images, sound: no token ids
        return None
    cfg = small_config(model_type, **{**EXTRA.get(model_type, {}), **extra})
    cls = getattr(transformers, cls_name or MODEL_MAPPING_NAMES[model_type])
    if "input_ids" not in inspect.signature(cls.forward).parameters:
        return None
    with torch.device("meta"):  # first without memory: a class whose other parts stay large is not a small model
        probe = cls(cfg)
    ie = probe.get_input_embeddings()
    if (not isinstance(ie, torch.nn.Embedding) or ie.weight.shape[0] != SMALL["vocab_size"]
            or sum(p.numel() for p in probe.parameters()) > MAX_PARAMS):
        return None
    torch.manual_seed(seed)
    return cls(cfg).eval()


def model_block1(model, ids: np.ndarray = IDS) -> np.ndarray:
    """What the model's own forward hands to its first block: hidden_states[0] (the encoder's for an
    encoder-decoder), in float32."""
    t = torch.tensor(ids)
    kw = {"decoder_input_ids": t} if getattr(model.config, "is_encoder_decoder", False) else {}
    with torch.no_grad():
        out = model(input_ids=t, output_hidden_states=True, **kw)
    hs = out.get("encoder_hidden_states") if kw else None
    hs = hs if hs is not None else out["hidden_states"]
    return hs[0].float().numpy()


def app_block1(folder: Path, ids: np.ndarray = IDS):
    """The app's view of the saved folder: (Embeddings, x by the numpy reference)."""
    import andrea_viz

    emb = andrea_viz.load(str(folder))
    return emb, andrea_viz.forward(emb, ids, backend="numpy").x


def close(got: np.ndarray, want: np.ndarray) -> bool:
    """Equal within 1e-5·(1 + max|x|) (fp32)."""
    return got.shape == want.shape and float(np.abs(got - want).max()) <= 1e-5 * (1 + float(np.abs(want).max()))
