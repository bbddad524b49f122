"""The block-1 input as one list of steps (``forward_pass.STEPS``): a model that takes every step gets, from the one
list, the sum ``forward`` computes (checked against the steps written out by hand in float64), one picture per step,
one sentence per step and one mark per step in the formula, in the model's order."""

import dataclasses

import numpy as np

from andrea_viz.forward_pass import STEPS, block_input_formula, block_input_parts, block_input_steps, forward, taken
from andrea_viz.i18n import tr
from andrea_viz.model import BlockInput

IDS = np.array([[3, 7, 11, 5, 9, 3]])


def _every_step(emb) -> BlockInput:
    d = emb.d_model
    rng = np.random.default_rng(0)
    r = lambda *shape: rng.standard_normal(shape).astype(np.float32)  # noqa: E731
    return BlockInput(scale=2.5, trigram=True, project_in=(r(d, 3 * d), r(d)), token_type=r(d),
                      norm=(r(d), r(d), 1e-5, False), affine=(r(d), r(d)), project_out=(r(5, d), None))


def _by_hand(emb, bi: BlockInput, ids: np.ndarray) -> np.ndarray:
    """The slow reference: MobileBERT-like order written out, in float64."""
    tok = emb.token_table[ids].astype(np.float64) * bi.scale
    nxt, prev = np.zeros_like(tok), np.zeros_like(tok)
    nxt[..., :-1, :], prev[..., 1:, :] = tok[..., 1:, :], tok[..., :-1, :]
    x = np.concatenate([nxt, tok, prev], -1) @ bi.project_in[0].T.astype(np.float64) + bi.project_in[1]
    x = x + emb.position_table[: ids.shape[-1]] + bi.token_type
    c = x - x.mean(-1, keepdims=True)
    x = c / np.sqrt((c * c).mean(-1, keepdims=True) + bi.norm[2]) * bi.norm[0] + bi.norm[1]
    x = x * bi.affine[0] + bi.affine[1]
    return x @ bi.project_out[0].T.astype(np.float64)


def test_every_step_is_applied_drawn_said_and_written_once_in_the_models_order(load_model):
    micro = load_model("andrea-micro")
    bi = _every_step(micro)
    emb = dataclasses.replace(micro, block_input=bi)
    assert [s.field for s in STEPS] == ["scale", "trigram", "project_in", "token_type", "norm", "affine", "project_out"]
    np.testing.assert_allclose(forward(emb, IDS, "numpy").x, _by_hand(micro, bi, IDS), rtol=1e-4, atol=1e-4)
    said = [tr(s) for s in block_input_steps(emb)]
    assert len(said) == len(STEPS) and "2.5" in said[0] and "LayerNorm" in said[4] and "5 columns" in said[6]
    parts = block_input_parts(emb, IDS[0])
    # the token part, the three steps before the positions, the position part, the four after (the last is x)
    assert len(parts) == 1 + 3 + 1 + 4 and [p.step for p in parts] == [False, True, True, True, False, False, True,
                                                                       True, True]
    np.testing.assert_array_equal(parts[5].values[0], bi.token_type)  # the token-type row, drawn as a term
    np.testing.assert_allclose(parts[-1].values, _by_hand(micro, bi, IDS)[0], rtol=1e-4, atol=1e-4)
    assert block_input_formula(emb) == (
        r"x_t = W_{\mathrm{proj}}\,\mathrm{NoNorm}(\mathrm{LayerNorm}(W_{\mathrm{in}}\,[2.5\,\mathrm{tok}[id_{t+1}];\,"
        r"2.5\,\mathrm{tok}[id_t];\,2.5\,\mathrm{tok}[id_{t-1}]] + \mathrm{pos}[t] + \mathrm{type}[0]))")


def test_a_plain_model_takes_no_step_and_each_field_is_one_step():
    assert taken(BlockInput()) == []
    assert [s.field for s in taken(BlockInput(trigram=True, norm=(None, None, 1e-5, True)))] == ["trigram", "norm"]
