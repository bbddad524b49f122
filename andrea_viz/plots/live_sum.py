"""x_t = token + position answered in the browser: one HTML page (for a small frame) holding the token row and
the whole position table, a range input for t, and three bar charts drawn on a canvas when t changes, with no
trip to the server. The same picture as ``positions.three_rows``: the token row, the position row and their sum,
dimension by dimension, on one symmetric axis.

The position table travels as float16 (half the bytes; a bar cannot show the difference), the token row as
float32, and the norms the titles state are computed here from the float32 rows, so they are the exact ones.
Text is set with ``textContent`` only, and ``</`` in the embedded JSON is written ``<\\/``, so a token string
can never end the script.
"""

from __future__ import annotations

import base64
import html
import json

import numpy as np

from ..i18n import N_, _, language, separators, translate
from ..positions import position_table_of
from .style import BLUE, GREEN, ORANGE

TOKEN_TITLE = N_("token_embedding[“{token}”]   ‖·‖ = {n:.3f}")  # the panel titles of plots.positions.three_rows
POSITION_TITLE = N_("position_embedding[{t}]   ‖·‖ = {n:.3f}")
SUM_TITLE = N_("x_{t} = token + position   ‖·‖ = {n:.3f}")
FRAME_HEIGHT = 690  # px: the slider, three panels with their titles, the hover line


def _b64(a: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(a).tobytes()).decode("ascii")


def live_sum_payload(tok: np.ndarray, pos_table: np.ndarray, token: str, t: int) -> dict:
    """What the frame needs: the rows (base64, little-endian), the exact norms of every position row and of
    every x_t, the start position, and the titles' templates and the slider's label in the reader's language."""
    tok = np.asarray(tok, np.float32)
    pos = np.asarray(pos_table, np.float32)
    sums = pos + tok[None, :]  # (T, d): only their norms travel
    group, decimal = separators(language())
    return {
        "d": int(tok.size), "T": int(pos.shape[0]), "t": int(t), "token": token,
        "tok": _b64(tok.astype("<f4")), "pos": _b64(pos.astype("<f2")),
        "tokNorm": float(np.linalg.norm(tok)), "posNorm": np.linalg.norm(pos, axis=1).round(6).tolist(),
        "sumNorm": np.linalg.norm(sums, axis=1).round(6).tolist(),
        "lim": (np.maximum(np.maximum(np.abs(pos).max(axis=1), np.abs(sums).max(axis=1)), np.abs(tok).max())
                * 1.05).round(6).tolist(),  # each t's own symmetric axis, as three_rows draws it
        "text": {"token": translate(TOKEN_TITLE), "position": translate(POSITION_TITLE), "sum": translate(SUM_TITLE),
                 "slider": _("Position t"), "hover": _("dim {k}: {v}"), "decimal": decimal, "group": group,
                 "colours": [BLUE, ORANGE, GREEN]},
    }


def script_json(data: dict) -> str:
    """JSON that is safe inside a <script> element: ``</`` cannot close it, nor ``<!--`` open a comment."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\u0021--")


PAGE = """<!doctype html>
<html lang="__LANG__"><head><meta charset="utf-8"><title>__TITLE__</title><style>
body { margin: 0; font: 14px "Source Sans Pro", "Source Sans 3", sans-serif; color: #31333f; }
.row { display: flex; align-items: center; gap: 12px; margin: 4px 2px 8px; }
input[type=range] { flex: 1; accent-color: #ff4b4b; }
.title { text-align: center; font-size: 14px; margin-top: 6px; white-space: pre; }
canvas { display: block; width: 100%; height: 180px; }
#hover { height: 18px; color: #555; font-size: 12px; }
</style></head><body>
<div class="row"><label id="label" for="t"></label><input id="t" type="range" step="1"><output id="value"></output></div>
<div class="title" id="title-token"></div><canvas id="c0"></canvas>
<div class="title" id="title-position"></div><canvas id="c1"></canvas>
<div class="title" id="title-sum"></div><canvas id="c2"></canvas>
<div id="hover"></div>
<script id="data" type="application/json">__DATA__</script>
<script>
const D = JSON.parse(document.getElementById("data").textContent);
const raw = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0)).buffer;
const tok = new Float32Array(raw(D.tok));
const half = new Uint16Array(raw(D.pos));
function f16(h) {  // IEEE half → number
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * Math.pow(2, -24);
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * Math.pow(2, e - 15);
}
const T = D.T, d = D.d, X = D.text;
const fix = (v, k) => v.toFixed(k).replace(".", X.decimal).replace("-", "\u2212");  // the minus plotly's ticks show
const fill = (tpl, t, n) => tpl.replace("{t}", () => String(t)).replace("{n:.3f}", () => fix(n, 3))
  .replace("{token}", () => D.token);  // functions: a "$&" in a token is not a replacement pattern
const input = document.getElementById("t");
input.min = 0; input.max = T - 1; input.value = D.t;
input.setAttribute("aria-label", X.slider);
document.getElementById("label").textContent = X.slider;
let rows = [tok, new Float32Array(d), new Float32Array(d)];
const LEFT = 56, BOTTOM = 18;  // room for the value ticks and the dimension ticks
let lim = 1;
function bars(k) {
  const cv = document.getElementById("c" + k), r = window.devicePixelRatio || 1;
  const w = cv.clientWidth, h = cv.clientHeight;
  if (cv.width !== Math.round(w * r)) { cv.width = Math.round(w * r); cv.height = Math.round(h * r); }
  const g = cv.getContext("2d");
  g.setTransform(r, 0, 0, r, 0, 0);
  g.clearRect(0, 0, w, h);
  const top = 6, ph = h - BOTTOM - top, mid = top + ph / 2, scale = (ph / 2) / lim, pw = w - LEFT - 8, bw = pw / d;
  g.font = "11px sans-serif"; g.fillStyle = "#666"; g.textAlign = "right"; g.textBaseline = "middle";
  for (const v of [-lim / 1.05, 0, lim / 1.05]) {
    const y = mid - v * scale;
    g.fillText(fix(v, 3), LEFT - 6, y);
    g.fillStyle = "#e6e6e6"; g.fillRect(LEFT, Math.round(y), pw, 1); g.fillStyle = "#666";
  }
  g.textAlign = "center"; g.textBaseline = "top";
  const step = d > 1000 ? 250 : d > 400 ? 100 : d > 100 ? 50 : 10;
  for (let j = 0; j < d; j += step) g.fillText(String(j), LEFT + (j + 0.5) * bw, top + ph + 4);
  g.fillStyle = X.colours[k];
  const v = rows[k];
  for (let j = 0; j < d; j++) {
    const y = v[j] * scale;
    g.fillRect(LEFT + j * bw, y > 0 ? mid - y : mid, Math.max(bw - (bw > 3 ? 1 : 0), 1), Math.abs(y));
  }
  g.fillStyle = "#999"; g.fillRect(LEFT, Math.round(mid), pw, 1);
}
function show(t) {
  const p = rows[1], s = rows[2], base = t * d;
  for (let j = 0; j < d; j++) { p[j] = f16(half[base + j]); s[j] = tok[j] + p[j]; }
  lim = D.lim[t];
  for (let k = 0; k < 3; k++) bars(k);
  document.getElementById("title-token").textContent = fill(X.token, t, D.tokNorm);
  document.getElementById("title-position").textContent = fill(X.position, t, D.posNorm[t]);
  document.getElementById("title-sum").textContent = fill(X.sum, t, D.sumNorm[t]);
  document.getElementById("value").textContent = String(t);
  input.setAttribute("aria-valuetext", "x_" + t);
  document.body.dataset.t = String(t);
}
input.addEventListener("input", () => show(Number(input.value)));
for (let k = 0; k < 3; k++) {
  document.getElementById("c" + k).addEventListener("mousemove", (e) => {
    const cv = e.currentTarget, j = Math.floor((e.offsetX - LEFT) / (cv.clientWidth - LEFT - 8) * d);
    if (j < 0 || j >= d) return;
    document.getElementById("hover").textContent = X.hover.replace("{k}", () => String(j))
      .replace("{v}", () => fix(rows[k][j], 4));
  });
}
window.addEventListener("resize", () => { for (let k = 0; k < 3; k++) bars(k); });
show(D.t);
</script></body></html>
"""


def live_sum_html(tok: np.ndarray, pos_table: np.ndarray, token: str, t: int) -> str:
    """The frame's whole page (see the module's docstring)."""
    page = PAGE.replace("__LANG__", html.escape(language())).replace("__TITLE__", html.escape(_("Token + position")))
    return page.replace("__DATA__", script_json(live_sum_payload(tok, pos_table, token, t)))  # the data last


def sum_frame_of(emb, token_id: int, kind: str, t: int) -> str:
    """The frame for one real id of a model, the position table of ``kind``, starting at t."""
    return live_sum_html(emb.token_table[token_id], position_table_of(emb, kind), emb.token(token_id), t)
