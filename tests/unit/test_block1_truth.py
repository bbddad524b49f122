"""The block-1 input the app states, against what the model itself computes: tiny random models of transformers'
classes, saved by save_pretrained, opened by andrea_viz, and ``forward(…, backend="numpy").x`` compared with the
model's own ``hidden_states[0]`` (the encoder's for an encoder-decoder) within 1e-5·(1 + max|x|) in fp32, the card's
parameter count with ``sum(p.numel())``, the position kind with what the model's forward does, and the layer count.

The fast part runs a fixed sample (the classes the issue names); the ``slow`` test walks every model_type transformers
offers whose base class is a model of token ids and builds from a small config (tests/checkpoint_files/block1_models.py)."""


import time

import numpy as np
import pytest

from andrea_viz.checkpoints.architectures import sinusoid_rows
from andrea_viz.errors import QueryError
from andrea_viz.forward_pass import block_input_formula, block_input_parts, block_input_steps, trigram
from andrea_viz.positions import position_table_of
from tests.checkpoint_files import block1_models as bm

bm.quiet()

SQRT_D = r"\sqrt{d}\,"
TOK, POS, TYPE = r"\mathrm{tok}[id_t]", r"\mathrm{pos}[t]", r"\mathrm{type}[0]"
# (model_type, class, config fields beyond bm.EXTRA) -> (position kind, layers, the formula), written from each model
# class's own forward, not from the library.
SAMPLE = {
    ("granite", "GraniteForCausalLM", ()): ("rope", 1, rf"x_t = 12\,{TOK}"),  # inputs_embeds * embedding_multiplier
    ("granitemoe", "GraniteMoeForCausalLM", ()): ("rope", 1, rf"x_t = 12\,{TOK}"),
    ("electra", "ElectraForMaskedLM", ()): ("learned", 1, rf"x_t = W_{{\mathrm{{proj}}}}\,\mathrm{{LayerNorm}}({TOK} + {POS} + {TYPE})"),
    ("marian", "MarianMTModel", ()): ("sinusoidal", 2, rf"x_t = {SQRT_D}{TOK} + {POS}"),  # encoder's embed_scale
    ("pegasus", "PegasusForConditionalGeneration", ()): ("sinusoidal", 2, rf"x_t = {SQRT_D}{TOK} + {POS}"),
    ("xglm", "XGLMForCausalLM", ()): ("sinusoidal", 1, rf"x_t = {SQRT_D}{TOK} + {POS}"),
    ("m2m_100", "M2M100ForConditionalGeneration", ()): ("sinusoidal", 2, rf"x_t = {SQRT_D}{TOK} + {POS}"),
    ("ctrl", "CTRLLMHeadModel", ()): ("sinusoidal", 1, rf"x_t = {SQRT_D}{TOK} + {POS}"),
    ("mpnet", "MPNetForMaskedLM", ()): ("learned", 1, rf"x_t = \mathrm{{LayerNorm}}({TOK} + {POS})"),
    ("deberta-v2", "DebertaV2ForMaskedLM", tuple(bm.DEBERTA_V3.items())): ("relative", 1,
                                                                          rf"x_t = \mathrm{{LayerNorm}}({TOK})"),
    ("mobilebert", "MobileBertForMaskedLM", ()): ("learned", 1, r"x_t = \mathrm{NoNorm}(W_{\mathrm{in}}\,[\mathrm{tok}[id_{t+1}];"
                                                     rf"\,\mathrm{{tok}}[id_t];\,\mathrm{{tok}}[id_{{t-1}}]] + {POS} + {TYPE})"),
    ("gpt_neo", "GPTNeoForCausalLM", ()): ("learned", 1, rf"x_t = {TOK} + {POS}"),
    ("distilbert", "DistilBertForMaskedLM", ()): ("learned", 1, rf"x_t = \mathrm{{LayerNorm}}({TOK} + {POS})"),
    ("mpt", "MptForCausalLM", ()): ("alibi", 1, rf"x_t = {TOK}"),
    ("t5", "T5ForConditionalGeneration", ()): ("relative", 2, rf"x_t = {TOK}"),
    ("bart", "BartForConditionalGeneration", ()): ("learned", 2, rf"x_t = \mathrm{{LayerNorm}}({TOK} + {POS})"),
}
# where the position rows start in the model's table: the rows before are the padding offset (MPNet: padding_idx 1 + 1;
# XGLM: its offset of 2; M2M100: padding_idx + 1, pad_token_id 0 here)
FIRST_ROW = {"mpnet": 2, "xglm": 2, "m2m_100": 1}


@pytest.fixture(scope="module")
def opened(tmp_path_factory):
    """Each sample class built, saved and opened once: {key: (model, Embeddings, x of the app, x of the model)}."""
    root = tmp_path_factory.mktemp("block1")
    out = {}
    for key in SAMPLE:
        model_type, cls, extra = key
        model = bm.build(model_type, cls, **dict(extra))
        model.save_pretrained(root / cls)
        emb, got = bm.app_block1(root / cls)
        out[key] = (model, emb, got, bm.model_block1(model))
    return out


@pytest.mark.parametrize("key", SAMPLE, ids=[k[1] for k in SAMPLE])
def test_block_1_input_is_the_models_own(opened, key):
    _, emb, got, want = opened[key]
    assert got.shape == want.shape
    assert bm.close(got, want), float(np.abs(got - want).max())
    assert block_input_formula(emb) == SAMPLE[key][2]
    parts = block_input_parts(emb, bm.IDS[0])  # the page's step-by-step pictures end at the same x
    np.testing.assert_allclose(parts[-1].values, want[0], rtol=0, atol=1e-5 * (1 + float(np.abs(want).max())))


@pytest.mark.parametrize("key", SAMPLE, ids=[k[1] for k in SAMPLE])
def test_card_counts_and_position_kind(opened, key):
    model, emb, _, _ = opened[key]
    kind, layers, _ = SAMPLE[key]
    assert emb.card["total_params"] == sum(p.numel() for p in model.parameters())
    assert emb.position_kind == kind
    assert emb.card["layers"] == layers
    assert str(emb.card["position_reason"]).startswith({"rope": "RoPE", "alibi": "ALiBi"}.get(kind, kind))


def test_steps_name_the_scale_projection_and_relative_positions(opened):
    steps = {k[0]: " | ".join(str(s) for s in block_input_steps(opened[k][1])) for k in SAMPLE}
    assert "multiplied by 12" in steps["granite"] and "multiplied by 12" in steps["granitemoe"]
    assert "multiplied by 4 (√d, d = 16)" in steps["marian"] and "multiplied by 4 (√d, d = 16)" in steps["pegasus"]
    assert "projection from 8 to 16 columns" in steps["electra"]
    assert "DeBERTa's disentangled attention" in steps["deberta-v2"]
    assert "8 → 24 columns (MobileBERT's trigram input)" in steps["mobilebert"] and "NoNorm" in steps["mobilebert"]


def test_trigram_against_the_slow_reference():
    tok = np.random.default_rng(0).standard_normal((2, 5, 3)).astype(np.float32)
    want = np.zeros((2, 5, 9), np.float32)
    for b in range(2):
        for t in range(5):
            want[b, t, 3:6] = tok[b, t]
            if t + 1 < 5:
                want[b, t, 0:3] = tok[b, t + 1]
            if t > 0:
                want[b, t, 6:9] = tok[b, t - 1]
    np.testing.assert_array_equal(trigram(tok), want)
    np.testing.assert_array_equal(trigram(tok[0]), want[0])


def test_learned_rows_start_after_the_offset(opened):
    """MPNet numbers positions from padding_idx + 1 = 2: the app's position 0 is the stored row 2."""
    model, emb, _, _ = opened[("mpnet", "MPNetForMaskedLM", ())]
    stored = model.mpnet.embeddings.position_embeddings.weight.detach().numpy()
    np.testing.assert_array_equal(emb.position_table, stored[FIRST_ROW["mpnet"]:])
    assert emb.card["position_offset"] == 2


def _slow_sinusoid(style: str, rows: int, d: int, first: int) -> np.ndarray:
    """The reference, one entry at a time, as the papers write it."""
    import math

    out = np.zeros((rows - first, d))
    for p in range(first, rows):
        for c in range(d):
            if style == "halves":  # column c < d/2: sin of angle j = 2c; else cos of angle j = 2(c - d/2) + 1
                j = 2 * c if c < d // 2 else 2 * (c - d // 2) + 1
                a = p / 10000 ** (2 * (j // 2) / d)
                out[p - first, c] = math.sin(a) if c < d // 2 else math.cos(a)
            else:
                k = c % (d // 2)
                a = p * math.exp(-k * math.log(10000) / (d // 2 - 1))
                out[p - first, c] = math.sin(a) if c < d // 2 else math.cos(a)
    return out


@pytest.mark.parametrize("sinusoid", [("halves", 40, 16, 0), ("fairseq", 42, 16, 2), ("halves", 9, 6, 0),
                                      ("fairseq", 9, 8, 1)])
def test_sinusoid_rows_against_the_slow_reference(sinusoid):
    np.testing.assert_allclose(sinusoid_rows(sinusoid), _slow_sinusoid(*sinusoid), rtol=0, atol=2e-6)


def test_sinusoidal_rows_are_the_models_own(opened):
    """The rows the app computes are the rows the model's own modules hold (Marian's weight, XGLM's buffer), from the
    first row each forward reads."""
    for key, table in ((("marian", "MarianMTModel", ()), lambda m: m.model.encoder.embed_positions.weight),
                       (("xglm", "XGLMForCausalLM", ()), lambda m: m.model.embed_positions.weights),
                       (("m2m_100", "M2M100ForConditionalGeneration", ()), lambda m: m.model.encoder.embed_positions.weights)):
        model, emb, _, _ = opened[key]
        own = table(model).detach().numpy()[FIRST_ROW.get(key[0], 0):]
        np.testing.assert_allclose(emb.position_table, own[: emb.position_table.shape[0]], rtol=0, atol=2e-6)
        assert position_table_of(emb, "sinusoidal") is emb.position_table  # the Positions page shows the model's own
        with pytest.raises(QueryError, match="no learned position table"):
            position_table_of(emb, "learned")


def assert_says_cannot_be_stated(emb) -> None:
    """No x, no formula, and a sentence on the pages and the card that says why."""
    from andrea_viz.errors import QueryError
    from andrea_viz.forward_pass import forward

    with pytest.raises(QueryError, match="cannot be stated"):
        forward(emb, bm.IDS, "numpy")
    assert "cannot be stated" in str(block_input_steps(emb)[0]) and block_input_formula(emb) == r"x_t = \;?"
    assert any("cannot be stated" in str(w) for w in emb.provenance.warnings)


def _would_be_equal(emb, want) -> bool:
    """Whether the app's steps, were they stated, would give the model's x (then the class needs no excuse)."""
    import dataclasses

    from andrea_viz.forward_pass import forward

    plain = dataclasses.replace(emb, block_input=dataclasses.replace(emb.block_input, unstated=None))
    try:
        return bm.close(forward(plain, bm.IDS, "numpy").x, want)
    except Exception:
        return False


def test_a_class_that_cannot_be_stated_says_so(tmp_path):
    """LayoutLM adds bounding-box rows the app does not compute: no formula, no x, and the reason."""
    model = bm.build("layoutlm", "LayoutLMModel")
    model.save_pretrained(tmp_path)
    emb = __import__("andrea_viz").load(str(tmp_path))
    assert "bounding box" in str(emb.block_input.unstated)
    assert_says_cannot_be_stated(emb)
    assert not _would_be_equal(emb, bm.model_block1(model))
    assert emb.card["total_params"] == sum(p.numel() for p in model.parameters())


def check_class(model_type: str, folder) -> str:
    """One class: "equal", "cannot be stated" (the app says so and computes no x), or a skip reason starting with
    "skip" (not a model of token ids at small sizes, or transformers cannot build or run it). Anything else fails."""
    from andrea_viz.forward_pass import forward

    try:
        model = bm.build(model_type)
    except Exception as exc:  # the class refuses a small config (transformers' own validation)
        return f"skip: not built ({type(exc).__name__})"
    if model is None:
        return "skip: not a model of token ids"
    try:
        want = bm.model_block1(model)
    except Exception as exc:  # the model's own forward fails on plain ids (it wants boxes, images, a language …)
        return f"skip: the model's forward fails ({type(exc).__name__})"
    model.save_pretrained(folder)
    emb = __import__("andrea_viz").load(str(folder))
    assert emb.card["total_params"] == sum(p.numel() for p in model.parameters()), model_type
    assert emb.card.get("layers"), model_type
    if emb.block_input.unstated is not None:
        assert_says_cannot_be_stated(emb)
        assert not _would_be_equal(emb, want), f"{model_type} is equal with the app's steps: take it out of UNSTATED"
        return "cannot be stated"
    got = forward(emb, bm.IDS, "numpy").x
    assert bm.close(got, want), (model_type, float(np.abs(got - want).max()) if got.shape == want.shape else got.shape)
    return "equal"


@pytest.mark.slow
def test_every_class_transformers_builds(tmp_path):
    """The generated list: every model_type of transformers' MODEL_MAPPING_NAMES whose base class is a model of
    token ids and builds from a small config is equal to its own model's block-1 input, or says it cannot be stated."""
    start = time.perf_counter()
    outcome, wrong = {}, []
    for model_type in bm.text_types():
        try:
            outcome[model_type] = check_class(model_type, tmp_path / model_type)
        except Exception as exc:  # collected, so that one run lists every class that differs
            wrong.append(f"{model_type}: {type(exc).__name__}: {str(exc)[:300]}")
    equal = sorted(t for t, o in outcome.items() if o == "equal")
    unstated = sorted(t for t, o in outcome.items() if o == "cannot be stated")
    print(f"\n{len(equal)} equal: {', '.join(equal)}\n{len(unstated)} cannot be stated: {', '.join(unstated)}\n"
          f"skipped: {sum(o.startswith('skip') for o in outcome.values())} in {time.perf_counter() - start:.0f} s")
    assert wrong == []
    assert len(equal) >= 150 and {k[0] for k in SAMPLE} - {"deberta-v2"} <= set(equal)


# models saved in half precision (save_pretrained writes the dtype it holds): the app reads the table in that dtype
# and its x is equal to the model's own within 1.6e-2·(1 + max|x|), the bound for 16-bit weights
HALF = [("llama", "LlamaForCausalLM", "bfloat16"), ("gpt2", "GPT2LMHeadModel", "bfloat16"),
        ("bert", "BertForMaskedLM", "float16"), ("granite", "GraniteForCausalLM", "bfloat16"),
        ("marian", "MarianMTModel", "float16")]


@pytest.mark.parametrize("model_type, cls, dtype", HALF, ids=[f"{c}-{d}" for _t, c, d in HALF])
def test_block_1_input_of_a_half_precision_model_is_its_own(tmp_path, model_type, cls, dtype):
    import torch

    model = bm.build(model_type, cls).to(getattr(torch, dtype))
    model.save_pretrained(tmp_path / cls)
    emb, got = bm.app_block1(tmp_path / cls)
    assert str(emb.token_table.dtype) == dtype  # read as stored, not widened on the way in
    want = bm.model_block1(model)  # the model's own forward in its dtype, read back as float32
    bound = 1.6e-2 * (1 + float(np.abs(want).max()))
    assert got.shape == want.shape and float(np.abs(got - want).max()) <= bound, (float(np.abs(got - want).max()), bound)
