"""The x_t frame of the Positions page: its data, its safety, its language."""

import base64
import json
import re

import numpy as np
import pytest

from andrea_viz import i18n
from andrea_viz.plots.live_sum import live_sum_html, live_sum_payload, script_json


def _data(html: str) -> dict:
    body = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1)
    return json.loads(body)


def test_the_frame_holds_the_rows_and_the_exact_norms():
    rng = np.random.default_rng(0)
    tok = rng.standard_normal(48).astype(np.float32) * 0.1
    pos = rng.standard_normal((20, 48)).astype(np.float32) * 0.05
    data = _data(live_sum_html(tok, pos, "cat", 3))
    assert (data["T"], data["d"], data["t"]) == (20, 48, 3)
    assert np.array_equal(np.frombuffer(base64.b64decode(data["tok"]), "<f4"), tok)
    half = np.frombuffer(base64.b64decode(data["pos"]), "<f2").reshape(20, 48)
    assert np.array_equal(half, pos.astype(np.float16))
    for t in (0, 3, 19):  # slow and obvious: the norms the titles state, from the float32 rows
        assert data["posNorm"][t] == pytest.approx(float(np.sqrt(sum(float(v) ** 2 for v in pos[t]))), abs=1e-6)
        assert data["sumNorm"][t] == pytest.approx(float(np.sqrt(sum(float(a + b) ** 2 for a, b in zip(tok, pos[t],
                                                                                                     strict=True)))), abs=1e-6)
        assert data["lim"][t] == pytest.approx(1.05 * max(abs(tok).max(), abs(pos[t]).max(), abs(tok + pos[t]).max()),
                                               abs=1e-6)


def test_a_token_cannot_end_the_script():
    token = "</script><script>alert(1)</script><!--$&"
    html = live_sum_html(np.zeros(8, np.float32), np.zeros((4, 8), np.float32), token, 0)
    assert html.count("</script>") == 2  # the data's and the code's own, nothing from the token
    assert "<!--" not in html.split('type="application/json">')[1].split("</script>")[0]
    assert _data(html)["token"] == token
    assert json.loads(script_json({"s": token}))["s"] == token
    assert "innerHTML" not in html and "textContent" in html


def test_the_titles_are_the_readers_language():
    i18n.set_language("nl")
    try:
        data = live_sum_payload(np.zeros(8, np.float32), np.zeros((4, 8), np.float32), "kat", 0)
    finally:
        i18n.set_language("en")
    assert data["text"]["decimal"] == "," and data["text"]["slider"] == i18n.render("Position t", {}, "nl")
    assert data["text"]["slider"] != "Position t"
    assert "{t}" in data["text"]["sum"] and "{n:.3f}" in data["text"]["sum"]


@pytest.mark.parametrize("lang", ["nl", "zh-TW"])
def test_the_frame_document_names_its_language_and_a_title(lang):
    """A screen reader reads the frame in the page's language and names it (axe: html-has-lang, document-title)."""
    i18n.set_language(lang)
    try:
        page = live_sum_html(np.zeros(8, np.float32), np.zeros((4, 8), np.float32), "__TITLE__", 0)
    finally:
        i18n.set_language("en")
    title = i18n.render("Token + position", {}, lang)
    assert title != "Token + position"
    assert f'<html lang="{lang}">' in page and f"<title>{title}</title>" in page
    assert _data(page)["token"] == "__TITLE__"  # a token that spells a placeholder is left as it is
