"""Positions and Forward pass pages under AppTest, with every built-in model."""

import base64
import json
import re

import numpy as np
import pytest

from andrea_viz.family import CONTEXT
from andrea_viz.forward_pass import backend_status, choose_backend
from andrea_viz.positions import sinusoidal_table

from .conftest import BUILTINS, figures, no_exception, open_page


def live_sum_data(at) -> dict:
    """The data embedded in the Positions page's x_t frame."""
    (frame,) = [e for e in at.get("iframe") if "title-sum" in e.proto.srcdoc]
    return json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', frame.proto.srcdoc,
                                re.S).group(1).replace("<\\/", "</"))


@pytest.mark.parametrize("model", BUILTINS)
def test_positions_page_slider_and_rope(app, model, load_model):
    emb = load_model(model)
    at = open_page(app(model), "6_Positions.py")
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert sum("through PC1 and PC2" in t for t in titles) == 2  # learned and sinusoidal
    # x_t = token + position: a frame holding the token row and every position row, its slider moved in the
    # browser (tests/e2e); here, that it holds the right rows and the exact norms its titles state
    data = live_sum_data(at)
    q = emb.tokenizer.lookup(data["token"]) if data["token"] else None
    tok = np.frombuffer(base64.b64decode(data["tok"]), "<f4")
    pos = np.frombuffer(base64.b64decode(data["pos"]), "<f2").reshape(data["T"], data["d"])
    table = emb.position_table if emb.position_table is not None else sinusoidal_table(emb.context or CONTEXT, emb.d_model)
    assert q and np.array_equal(tok, emb.token_table[q[0]]) and data["t"] == min(3, data["T"] - 1)
    assert pos.shape == table.shape and np.allclose(pos, table, rtol=1e-3, atol=1e-4)  # float16 on the way
    t = data["T"] - 1
    assert data["sumNorm"][t] == pytest.approx(float(np.linalg.norm(table[t] + emb.token_table[q[0]])), rel=1e-5)
    assert data["posNorm"][t] == pytest.approx(float(np.linalg.norm(table[t])), rel=1e-5)
    assert not any("x_t = token_embedding" in f["layout"]["title"]["text"] for f in figures(at))  # no plotly copy
    at.slider[0].set_value(-3).run()  # RoPE offset: the page's first Streamlit slider (t's is in the frame)
    no_exception(at)
    scores = at.dataframe[0].value["q·k after rotation"]
    assert scores.max() - scores.min() < 1e-5
    expected = {"minilm-l6": "512 × 384 = 196,608", "andrea-12m-init": "1,024 × 384 = 393,216",
                "andrea-120m-init": "1,024 × 768 = 786,432", "andrea-480m-init": "1,024 × 1,536 = 1,572,864",
                "andrea-micro": "32 × 64 = 2,048", "andrea-micro-step0": "32 × 64 = 2,048"}[model]
    assert expected in list(at.table[-1].value["parameters"])  # the three schemes, a static table


@pytest.mark.parametrize("model", BUILTINS)
def test_forward_pass_page_order_shape_and_tokens(app, model, load_model):
    at = open_page(app(model), "7_Forward_pass.py")
    m = {x.label: x.value for x in at.metric}
    assert m["Backend used"] == choose_backend("auto")  # the fastest here: cuda on a GPU machine, else cpu
    assert m["Without positions: same rows after sorting?"] == "yes"
    assert float(m["With positions: largest difference after sorting"]) > 0
    shape = load_model(model)
    if shape.context:  # the shape of x is a tuple of plain integers, not "(1,024, 768)"
        assert f"a ({shape.context}, {shape.d_model}) matrix" in at.markdown[0].value
    at.text_input[0].set_value("a completely different sentence").run()
    no_exception(at)
    tokens = [m.value for m in at.markdown if m.value.startswith("**Tokens:**")][0]
    emb = load_model(model)
    ids = emb.tokenizer.encode("a completely different sentence")
    assert all(f"` #{i}" in tokens for i in ids) and tokens.count("` #") == len(ids)  # each token a code span, its id


def test_forward_pass_page_backends(app):
    """The backend picker and the full-context timing, once: the backends are the machine's, not the model's (each
    backend's numbers against the slow reference: tests/unit/test_forward.py)."""
    at = open_page(app("andrea-micro"), "7_Forward_pass.py")
    for backend in ("numpy", "torch", "cpu"):
        at.selectbox(key="fwd:backend").set_value(backend).run()
        no_exception(at)
        assert {x.label: x.value for x in at.metric}["Backend used"] == backend
    status = at.table[-1].value
    assert list(status["backend"]) == ["cuda", "cpu", "torch", "numpy"]
    assert all(str(why).count("is False") <= 1 for why in status["why not"]), list(status["why not"])  # not "is False () is False"
    [b for b in at.button if b.label.startswith("Run a full context")][0].click().run()
    no_exception(at)
    assert set(at.dataframe[-1].value["backend"]) == {s.name for s in backend_status() if s.available} >= {"cpu", "torch",
                                                                                                            "numpy"}


def test_forward_pass_order_check_says_what_is_wrong(app):
    at = open_page(app("minilm-l6"), "7_Forward_pass.py")
    at.text_input[2].set_value("the dog ran").run()
    no_exception(at)
    assert any("same tokens in another order" in e.value for e in at.error)


def test_forward_pass_says_the_colour_scale_its_pictures_share(app, load_model):
    """The three heatmaps had no colour scale: the caption under them says what the colours mean and the one limit
    the token part, the position part and their sum share, worked out here from the model's own rows."""
    at = open_page(app("andrea-micro"), "7_Forward_pass.py")
    emb = load_model("andrea-micro")
    ids = emb.tokenizer.encode(at.text_input[0].value)
    tok = emb.token_table[ids].astype(np.float64)
    pos = emb.position_table[: len(ids)].astype(np.float64)
    lim = max(float(np.percentile(np.abs(m), 99.5)) for m in (tok, pos, tok + pos))
    (said,) = [c.value for c in at.caption if c.value.startswith("Colour: blue below 0")]
    assert f"The first 3 pictures share one scale, full colour at ±{lim:.3f}" in said
    assert "a scale of its own" not in said  # ANDREA adds and hands x on: no step after the sum
