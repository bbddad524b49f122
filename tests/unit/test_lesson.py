"""The Lesson's numbers against slow references on andrea-micro's own file: x_t, layer 0's q·k scores,
the rows still at step 0, and the nominal size split into parts."""

import math

import numpy as np
import pytest

import andrea_viz
from andrea_viz import lexicon
from andrea_viz.i18n import tr
from andrea_viz.lesson import (NEAR_RIGHT_ANGLE, SENTENCE, attention_preview, block_weights, nominal_gap, pair_changes,
                               row_updates, start_of, trained_of, x_matrix)


@pytest.fixture(scope="module")
def micro():
    return andrea_viz.load("andrea-micro")


def test_x_t_on_the_last_step_is_one_real_ids_row_plus_its_position_row(micro):
    ids = micro.tokenizer.encode(SENTENCE)
    t = ids.index(532)
    assert micro.token(532) == "cat" and t == 2  # a whole-word segment of andrea-micro, not a mean of bytes
    raw = np.fromfile(micro.provenance.file, "<f4", offset=8)  # the weights block: wte, then wpe
    V, d = micro.vocab_size, micro.d_model
    wte, wpe = raw[: V * d].reshape(V, d), raw[V * d : V * d + micro.context * d].reshape(micro.context, d)
    x = x_matrix(micro, ids)
    assert x.shape == (len(ids), d)
    np.testing.assert_array_equal(x[t], wte[532] + wpe[t])
    for k, i in enumerate(ids):
        np.testing.assert_array_equal(x[k], wte[i] + wpe[k])


def slow_scores(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, head: int, heads: int) -> np.ndarray:
    """q_i · k_j / √d_head by loops over positions and dimensions, from RMSNorm(x)."""
    T, d = x.shape
    dh = d // heads
    h = [[x[i][c] / math.sqrt(sum(float(v) ** 2 for v in x[i]) / d + 1e-6) for c in range(d)] for i in range(T)]
    q = [[sum(float(wq[o][c]) * h[i][c] for c in range(d)) for o in range(head * dh, (head + 1) * dh)] for i in range(T)]
    k = [[sum(float(wk[o][c]) * h[i][c] for c in range(d)) for o in range(head * dh, (head + 1) * dh)] for i in range(T)]
    return np.array([[sum(q[i][m] * k[j][m] for m in range(dh)) / math.sqrt(dh) for j in range(T)] for i in range(T)])


@pytest.mark.parametrize("head", [0, 3])
def test_the_qk_scores_equal_a_slow_reference_on_the_first_layer(micro, head):
    ids = micro.tokenizer.encode(SENTENCE)
    w = block_weights(micro, 0)
    a = attention_preview(micro, ids, head)
    ref = slow_scores(x_matrix(micro, ids).astype(np.float64), w["attn_wq"], w["attn_wk"], head, 4)
    np.testing.assert_allclose(a.scores, ref, rtol=1e-9, atol=1e-9)
    assert a.mask.tolist() == [[j <= i for j in range(len(ids))] for i in range(len(ids))]
    np.testing.assert_allclose(a.weights.sum(axis=1), 1.0)
    assert (a.weights[~a.mask] == 0).all()


def test_the_weights_read_are_the_models_own(micro):
    """Layer 0 as the grown model runs it: the softmax times v equals torch's causal attention of that head."""
    import torch
    import torch.nn.functional as F

    from andrea_viz.lesson import rms_normalised

    ids = micro.tokenizer.encode(SENTENCE)
    w = block_weights(micro, 0)
    h = torch.from_numpy(rms_normalised(x_matrix(micro, ids).astype(np.float64)))
    q, k, v = (h @ torch.from_numpy(w[n].astype(np.float64)).T for n in ("attn_wq", "attn_wk", "attn_wv"))
    T, dh = len(ids), micro.d_model // 4
    split = [t.view(1, T, 4, dh).transpose(1, 2) for t in (q, k, v)]
    out = F.scaled_dot_product_attention(*split, is_causal=True)[0]  # (heads, T, dh)
    for head in range(4):
        a = attention_preview(micro, ids, head)
        np.testing.assert_allclose(a.weights @ split[2][0, head].numpy(), out[head].numpy(), atol=1e-9)


def test_the_rows_still_at_step_0_are_the_ids_never_fed_in(micro):
    start = andrea_viz.load("andrea-micro-step0")
    ru = row_updates(start, micro)
    assert ru.unmoved.size == 252 and ru.never_input is not None
    assert ru.unmoved.tolist() == ru.never_input.tolist()
    assert 532 not in ru.unmoved  # cat was an input, so its row moved


def test_the_nominal_120m_splits_into_parts_that_add_up():
    g = nominal_gap()
    assert g["computed"] == 98_698_752 and g["nominal"] == 120_000_000
    assert round(g["embeddings"], 4) == 0.0606 and round(g["output"], 4) == 0.0541 and round(g["blocks"], 4) == 0.7078
    assert round(g["none"], 4) == 0.1775
    assert math.isclose(g["embeddings"] + g["output"] + g["blocks"] + g["none"], 1.0)


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_step_2s_pairs_over_training_against_a_slow_cosine_and_said_as_they_are(lang):
    first, final = andrea_viz.load(start_of(lang)), andrea_viz.load(trained_of(lang))
    assert first.key != final.key and first.card.get("step") == 0 and final.card.get("step") > 0

    def slow_cos(emb, a, b):
        (ia,), (ib,) = emb.tokenizer.encode(a), emb.tokenizer.encode(b)
        u, v = [float(x) for x in emb.token_table[ia]], [float(x) for x in emb.token_table[ib]]
        return sum(x * y for x, y in zip(u, v, strict=True)) / math.sqrt(sum(x * x for x in u) * sum(y * y for y in v))

    changes = pair_changes(first, final, lang)
    cat = lexicon.word(lang, "cat")
    assert [(c.a, c.b, c.related) for c in changes] == [
        (cat, lexicon.word(lang, "dog"), True), (cat, lexicon.word(lang, "pet"), True),
        (cat, lexicon.word(lang, "tuesday"), False), (cat, lexicon.word(lang, "xylophone"), False)]
    for c in changes:
        assert c.before == pytest.approx(slow_cos(first, c.a, c.b), abs=1e-9)
        assert c.after == pytest.approx(slow_cos(final, c.a, c.b), abs=1e-9)
        said = tr(c.verdict)
        assert f"{c.before:+.3f} → {c.after:+.3f}" in said
        assert ("closer" in said) == (c.after > c.before)
        far = not c.related and abs(c.after) <= NEAR_RIGHT_ANGLE
        assert ("as the lesson says" in said) == far
        # a pair that moved closer and is still far apart says both, joined by "but still", never "closer: … far"
        assert ("but still nearly at a right angle" in said) == (far and c.after > c.before)
