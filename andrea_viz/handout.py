"""A printable one-page handout of the lesson: every step's title and claim, with its figures, in one
self-contained HTML file (plotly.js inline, nothing fetched), laid out for one landscape A4 page."""

from __future__ import annotations

import html

import plotly.graph_objects as go
import plotly.io as pio

STYLE = """
@page { size: A4 landscape; margin: 7mm; }
body { font-family: "Noto Sans", "Noto Sans CJK TC", sans-serif; font-size: 7.2pt; margin: 0; }
h1 { font-size: 12pt; margin: 0 0 2mm 0; }
.grid { display: grid; grid-template-columns: repeat(4, 1fr); gap: 2mm 3mm; }
.step h2 { font-size: 8pt; margin: 0; }
.step p { margin: 0.5mm 0; }
.figs { display: grid; grid-template-columns: repeat(4, 1fr); gap: 2mm; margin-top: 2mm; }
@media print { .figs { break-inside: avoid; } }
"""


def handout_html(heading: str, lang: str, steps: list[tuple[str, str]], figures: list[go.Figure]) -> str:
    """steps: (title, claim) in the lesson's order, already in the reader's language; figures: drawn small."""
    parts = [f'<!doctype html><html lang="{html.escape(lang)}"><head><meta charset="utf-8">'
             f"<title>{html.escape(heading)}</title><style>{STYLE}</style></head><body>",
             f"<h1>{html.escape(heading)}</h1><div class='grid'>"]
    for k, (title, claim) in enumerate(steps, 1):
        parts.append(f"<div class='step'><h2>{k}. {html.escape(title)}</h2><p>{html.escape(claim)}</p></div>")
    parts.append("</div><div class='figs'>")
    for i, fig in enumerate(figures):
        small = go.Figure(fig).update_layout(width=260, height=190, margin={"l": 40, "r": 5, "t": 30, "b": 25},
                                             font={"size": 7}, title={"font": {"size": 8}})
        small.update_xaxes(tickfont_size=6, title_font_size=7).update_yaxes(tickfont_size=6, title_font_size=7)
        small.update_annotations(font_size=6).update_traces(textfont_size=7, selector={"type": "treemap"})
        parts.append(pio.to_html(small, include_plotlyjs=i == 0, full_html=False, config={"staticPlot": True}))
    parts.append("</div></body></html>")
    return "".join(parts)
