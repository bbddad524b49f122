"""A printable handout of the lesson in the reader's language: the lesson's figures as text (each computed from the
family's sizes, never typed), the sizing exercise with its worked answers, every step's title and claim, and the
lesson's charts, in one self-contained HTML file (plotly.js inline, nothing fetched).

Laid out for A4 portrait (``@page { size: A4 }``), every font size in pt and none under ``MIN_PT`` (9 pt), the
charts' fonts at least ``MIN_PX`` CSS pixels (9 pt printed); it prints on ``PAGES`` pages, which its footer says.
"""

from __future__ import annotations

import html
from typing import Any

import plotly.graph_objects as go
import plotly.io as pio

from ..family import FAMILY, count_shape, init_std
from ..i18n import Msg, N_, num, tr
from ..sizing import product_arithmetic, token_table_params, tying_saving

MIN_PT = 9.0  # the smallest text of the printed page
MIN_PX = 12  # 9 pt in CSS pixels (96 per inch, 72 pt per inch): the charts' smallest font
PAGES = 2  # A4 pages the handout prints on (tests/e2e/test_handout_print.py checks it)
CHART_WIDTH, CHART_HEIGHT = 340, 280  # px: two charts side by side within the page's 190 mm

STYLE = """
@page { size: A4; margin: 10mm; }
body { font-family: "Noto Sans", "Noto Sans CJK TC", sans-serif; font-size: 9.5pt; line-height: 1.25; margin: 0; }
h1 { font-size: 15pt; margin: 0 0 2mm 0; }
h2 { font-size: 11pt; margin: 3mm 0 1mm 0; }
table.figures { border-collapse: collapse; width: 100%; font-size: 9.5pt; }
table.figures td { border-bottom: 0.5pt solid #bbb; padding: 0.6mm 1.5mm; vertical-align: top; }
table.figures td.value { white-space: nowrap; font-weight: bold; }
.exercise p { margin: 0.8mm 0; }
.steps { column-count: 2; column-gap: 6mm; }
.step { break-inside: avoid; margin: 0 0 1.5mm 0; }
.step h3 { font-size: 10pt; margin: 0; }
.step p { margin: 0.3mm 0 0 0; font-size: 9pt; }
.figs { display: grid; grid-template-columns: repeat(2, 1fr); gap: 3mm; margin-top: 3mm; }
.figs > div { break-inside: avoid; }
.figs > div.wide { grid-column: 1 / span 2; }
footer { font-size: 9pt; margin-top: 3mm; color: #333; }
"""


def _product(rows: int, d: int) -> Msg:
    """'8,449 × 768 = 6,488,832' in the language's digits."""
    return Msg("{T:,} × {d:,} = {n:,}", T=rows, d=d, n=token_table_params(rows, d))


def lesson_figures() -> list[tuple[Msg, Msg]]:
    """(what, the figure written out) for every number the lesson quotes, each computed from ANDREA's sizes."""
    s, small, large = FAMILY["ANDREA-120M"], FAMILY["ANDREA-12M"], FAMILY["ANDREA-480M"]
    pc, tied = count_shape(s), count_shape(s, tied=True)
    token = token_table_params(s.V, s.d)
    return [
        (Msg("ANDREA-120M's token table: V × d_model"), _product(s.V, s.d)),
        (Msg("its share of the model"),
         Msg("{share_n:.1%} of the nominal {size} and {share_c:.1%} of the {total:,} parameters the layout computes",
             share_n=token / s.nominal, size=num(s.nominal / 1e6, "g") + "M", share_c=token / pc.total,
             total=pc.total)),
        (Msg("the position table: T × d_model"), _product(s.T, s.d)),
        (Msg("the embedding layer: token table + position table"),
         Msg("{a:,} + {b:,} = {n:,} parameters", a=pc.token, b=pc.position, n=pc.embeddings)),
        (Msg("every entry at step 0: a normal distribution with std 1/√d_model"),
         Msg("standard deviation 1/√{d} = {std:.4f}", d=s.d, std=init_std(s.d))),
        (Msg("untied (ANDREA) against tied (GPT-2 style)"),
         Msg("untied {untied:,} against tied {tied:,}: tying saves {saving:,}", untied=pc.total, tied=tied.total,
             saving=tying_saving(s.V, s.d))),
        (Msg("exercise: ANDREA-12M's token table"), _product(small.V, small.d)),
        (Msg("exercise: ANDREA-480M's token table"), _product(large.V, large.d)),
    ]


def exercise() -> tuple[Msg, list[Msg]]:
    """The sizing exercise as the lesson asks it, and its worked answers (one per model)."""
    answers = []
    for name in ("ANDREA-12M", "ANDREA-480M"):
        m = FAMILY[name]
        answers.append(Msg("{name}: V = {V:,} and d_model = {d:,}, so its token table holds {sum} parameters "
                           "({mb} MB in fp32).", name=name, V=m.V, d=m.d, sum=product_arithmetic(m.V, m.d),
                           mb=num(token_table_params(m.V, m.d) * 4 / 1e6, ".1f")))
    return Msg("Size the token tables of the other two ANDREA models: V rows of d_model floats each."), answers


def _fonts_at_least(node: Any, px: int) -> None:
    """Every explicit font size in a figure's JSON raised to ``px`` (what is not explicit inherits layout.font)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("font") and isinstance(value, dict) and isinstance(value.get("size"), int | float):
                value["size"] = max(value["size"], px)
            _fonts_at_least(value, px)
    elif isinstance(node, list):
        for value in node:
            _fonts_at_least(value, px)


def is_wide(fig: go.Figure) -> bool:
    """Subplots side by side and treemaps take the page's whole width in print."""
    layout = fig.to_plotly_json()["layout"]
    return any(t.type == "treemap" for t in fig.data) or sum(k.startswith("xaxis") for k in layout) > 1


def printable(fig: go.Figure) -> go.Figure:
    """The figure at print size, every text on it at least MIN_PX: a treemap tile too small for its label at that
    size shows none (plotly would shrink it; the handout's table gives every figure as text)."""
    data = fig.to_plotly_json()
    _fonts_at_least(data, MIN_PX)
    small = go.Figure(data)
    small.update_layout(width=2 * CHART_WIDTH + 20 if is_wide(fig) else CHART_WIDTH, height=CHART_HEIGHT,
                        margin={"l": 70, "r": 10, "t": 40, "b": 70}, font={"size": MIN_PX},
                        title={"font": {"size": MIN_PX + 1}}, uniformtext={"minsize": MIN_PX, "mode": "hide"})
    return small


def handout_html(heading: str, lang: str, steps: list[tuple[str, str]], figures: list[go.Figure]) -> str:
    """steps: (title, claim) in the lesson's order, already in the reader's language; figures: the lesson's charts.
    The figures and the exercise are computed here, in the language set now (``i18n.set_language``)."""
    esc = html.escape
    titles = [esc(tr(t)) for t in (N_("The lesson’s figures"), N_("Exercise"), N_("Worked answers"),
                                   N_("The lesson, step by step"))]
    parts = [f'<!doctype html><html lang="{esc(lang)}"><head><meta charset="utf-8">'
             f"<title>{esc(heading)}</title><style>{STYLE}</style></head><body>", f"<h1>{esc(heading)}</h1>",
             f"<h2>{titles[0]}</h2><table class='figures'>"]
    for what, value in lesson_figures():
        parts.append(f"<tr><td>{esc(tr(what))}</td><td class='value'>{esc(tr(value))}</td></tr>")
    question, answers = exercise()
    parts.append(f"</table><div class='exercise'><h2>{titles[1]}</h2><p>{esc(tr(question))}</p>")
    parts.append(f"<p><b>{titles[2]}</b></p>")
    parts += [f"<p>{esc(tr(a))}</p>" for a in answers]
    parts.append(f"</div><h2>{titles[3]}</h2><div class='steps'>")
    for k, (title, claim) in enumerate(steps, 1):
        parts.append(f"<div class='step'><h3>{k}. {esc(title)}</h3><p>{esc(claim)}</p></div>")
    parts.append("</div><div class='figs'>")
    for i, fig in enumerate(figures):
        chart = pio.to_html(printable(fig), include_plotlyjs=i == 0, full_html=False, config={"staticPlot": True})
        parts.append(f"<div class='{'wide' if is_wide(fig) else 'half'}'>{chart}</div>")
    footer = tr(Msg("Printed on A4 portrait, this handout fills {pages} pages; no text on it is under {pt} pt.",
                    pages=PAGES, pt=num(MIN_PT, "g")))
    parts.append(f"</div><footer>{esc(footer)}</footer></body></html>")
    return "".join(parts)
