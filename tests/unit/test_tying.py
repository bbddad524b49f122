"""Tied against untied on ANDREA: the tied head is the token table itself, the two models start equal but for the
head, the held-out loss equals a slow reference, and the figures the Lesson shows replay from this code."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import andrea_viz
from andrea_viz.family import count_params
from andrea_viz.grow import tying
from andrea_viz.grow.trainer import PRESETS, build_model, train


def test_a_tied_head_is_the_token_table_and_everything_else_starts_as_untied():
    p = PRESETS["micro"]
    untied, _ = build_model(p, 300, seed=3)
    tied, opt = build_model(p, 300, seed=3, tied=True)
    assert tied.lm_head is tied.wte and untied.lm_head is not untied.wte
    n = sum(t.numel() for t in tied.parameters())
    assert n == count_params(300, p.d, p.T, p.L, tied=True).total
    assert sum(t.numel() for t in untied.parameters()) - n == 300 * p.d
    assert sum(len(g["params"]) for g in opt.param_groups) == len(list(tied.parameters()))  # the shared table once
    for (name, a), (_n, b) in zip(untied.ordered_parameters(), tied.ordered_parameters(), strict=True):
        if name != "lm_head":
            assert torch.equal(a, b), name


def slow_held_out_loss(model, stream: np.ndarray, context: int) -> float:
    """One window at a time, the log-softmax written out in float64."""
    losses = []
    for w in range((stream.size - 1) // context):
        x = torch.from_numpy(stream[w * context : (w + 1) * context])[None]
        with torch.no_grad():
            logits = model(x)[0].double().numpy()  # (T, V)
        for t in range(context):
            z = logits[t] - logits[t].max()
            losses.append(np.log(np.exp(z).sum()) - z[stream[w * context + t + 1]])
    return float(np.mean(losses))


def test_the_held_out_loss_equals_a_slow_reference():
    p = PRESETS["micro"]
    model, _ = build_model(p, 260, seed=1)
    stream = np.random.default_rng(0).integers(0, 260, 5 * p.T + 7)
    assert tying.held_out_loss(model, stream, p.T, batch=2) == pytest.approx(
        slow_held_out_loss(model, stream, p.T), rel=1e-6)


def test_the_kept_figures_replay_from_this_code_and_their_sentence_says_which_won(tmp_path):
    kept = tying.kept()
    assert kept is not None, "andrea_viz/data/tying.json is missing: python -m andrea_viz bench-tying --write"
    for name, tied in (("untied", False), ("tied", True)):
        first = kept[name]["first_losses"]
        r = train(tmp_path / name, preset=kept["preset"], seed=kept["seed"], steps=len(first), snapshot_at=[0], tied=tied)
        np.testing.assert_allclose(r.losses, first, rtol=1e-4)
        emb = andrea_viz.load(r.snapshots[0][1])  # the snapshot opens as what it is: tied or not, counted right
        assert emb.output_kind == ("tied" if tied else "untied")
        assert emb.card["total_params"] == kept[name]["params"]
    assert kept["tied"]["first_losses"] != kept["untied"]["first_losses"]
    V = kept["untied"]["params"] - kept["tied"]["params"]
    p = PRESETS[kept["preset"]]
    assert kept["untied"]["params"] == count_params(V // p.d, p.d, p.T, p.L).total
    text = str(tying.finding(kept))
    better = "tied" if kept["tied"]["held_out_loss"] < kept["untied"]["held_out_loss"] else "untied"
    assert text.split(": on sentences neither saw in training the ")[1].startswith(better)
    assert f"{kept[better]['held_out_loss']:.4f} nats" in text
