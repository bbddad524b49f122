"""Pictures of position information and of the forward pass x = tok + pos."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..safe_text import plot
from ..forward_pass import before_positions
from ..i18n import _, format_number, num, sentences, tr
from ..positions import position_cosines, position_path, position_table_of, rope_rotate
from .style import (BLUE, DIVERGING, GREEN, ORANGE, PRESENT_FONT, RED, for_projector, layout, log_axis, log_tick_text,
                    log_tick_values)
from .words import with_words

TITLE_LINE = 1.4  # a row's title takes this many times its font size above the row
ROW_GAP = 6  # px between a row's bars and the title of the row under it
SUM_TOP, SUM_BOTTOM = 50, 60  # px: the chart's title above the rows; the dimensions' ticks and their title under them
SUM_PRESENT = 400  # px: presenter mode's x_t = tok + pos, with its collapsed words (step 12)
PRESENT_TOP = 12  # px: its top margin there, where it has no title (the rows' titles say what it adds)


def row_domains(height: int, font: float, top: int = SUM_TOP) -> tuple[list[float], ...]:
    """The y domains, top to bottom, of three_rows' rows on a chart ``height`` px high whose row titles are ``font``
    px: each row's title on a line of its own above its bars (a row reached into the title of the one under it when
    the domains were fixed fractions of a short chart)."""
    plot_px = max(height - top - SUM_BOTTOM, 1)
    line = TITLE_LINE * font
    row = max((plot_px - 3 * line - 2 * ROW_GAP) / 3, 1.0)
    out = []
    for k in range(3):
        upper = plot_px - k * (line + row + ROW_GAP) - line  # the row's top, under its title's line
        out.append([max(0.0, (upper - row) / plot_px), upper / plot_px])
    return tuple(out)


def row_ticks(lim: float, row_px: float, font: float) -> list[float]:
    """A row's value ticks on its range ±``lim``: ± a round number near its reach, and 0 between them where the row
    (``row_px`` high) parts the three labels at ``font`` px (one "0" alone did not say how far the bars go); only
    the top one where even two would meet."""
    unit = 10 ** np.floor(np.log10(0.9 * lim)) if lim > 0 else 1.0
    a = float(max(m * unit for m in (1, 2, 5) if m * unit <= 0.9 * lim)) if lim > 0 else 1.0
    apart = a / (lim or 1.0) * row_px  # px between the labels of −a and a
    need = 1.4 * font + 4
    return [-a, 0.0, a] if apart / 2 >= need else [-a, a] if apart >= need else [a]


def three_rows(tok: np.ndarray, pos: np.ndarray, token: str, t: int, height: int = 620,
               present: bool = False) -> go.Figure:
    """The token row, the position row and their sum, aligned dimension by dimension; ``height``: the height it is
    drawn at, ``present``: its text at presenter mode's 18 px (the rows laid out for them).

    Built with explicit axis domains (make_subplots costs about 30 ms; this, about 2)."""
    x = tok + pos
    dims = np.arange(tok.size)
    titles = (_("token_embedding[“{token}”]   ‖·‖ = {n:.3f}", token=plot(token), n=float(np.linalg.norm(tok))),
              _("position_embedding[{t}]   ‖·‖ = {n:.3f}", t=t, n=float(np.linalg.norm(pos))),
              _("x_{t} = token + position   ‖·‖ = {n:.3f}", t=t, n=float(np.linalg.norm(x))))
    font = PRESENT_FONT if present else 14
    top = PRESENT_TOP if present else SUM_TOP
    domains = row_domains(height, font, top)
    lim = float(np.abs(np.concatenate([tok, pos, x])).max()) * 1.05
    ticks = row_ticks(lim, (domains[0][1] - domains[0][0]) * (height - top - SUM_BOTTOM), font)
    data, axes, notes = [], {}, []
    for k, (v, c) in enumerate(((tok, BLUE), (pos, ORANGE), (x, GREEN))):
        suffix = "" if k == 0 else str(k + 1)
        data.append(go.Bar(x=dims, y=v, marker={"color": c, "line": {"width": 0}}, showlegend=False,
                           xaxis="x" + suffix, yaxis="y" + suffix, hovertemplate=_("dim %{x}: %{y:.4f}") + "<extra></extra>"))
        axes["xaxis" + suffix] = {"domain": [0, 1], "anchor": "y" + suffix, "matches": "x" if k else None,
                                  "showticklabels": k == 2, "title": {"text": _("dimension")} if k == 2 else None}
        axes["yaxis" + suffix] = {"domain": domains[k], "anchor": "x" + suffix, "range": [-lim, lim],
                                  "tickmode": "array", "tickvals": ticks, "zeroline": True,
                                  "title": {"text": _("value") if k == 1 else None}}  # one title for the three rows
        notes.append({"text": titles[k], "x": 0.5, "y": domains[k][1], "xref": "paper", "yref": "paper",
                      "xanchor": "center", "yanchor": "bottom", "showarrow": False, "font": {"size": font}})
    fig = go.Figure(data, go.Layout(bargap=0, annotations=notes, **axes))
    layout(fig, _("x_t = token + position, element by element"), height=height)  # the rows' titles name the tables
    fig.update_layout(margin={"t": top, "b": SUM_BOTTOM})
    said = with_words(fig, _("Three rows of {d:,} bars, one per dimension: the token row of “{token}” (length {a:.3f}), "
                             "position row {t} (length {b:.3f}), and their sum x_{t}, added dimension by dimension "
                             "(length {c:.3f}, values from {lo:.3f} to {hi:.3f}).", d=tok.size, token=token, t=t,
                             a=float(np.linalg.norm(tok)), b=float(np.linalg.norm(pos)), c=float(np.linalg.norm(x)),
                             lo=float(x.min()), hi=float(x.max())))
    if present:  # the rows' titles say what is added; the chart's words keep the title
        said.update_layout(title={"text": None})
    return said


def table_heatmap(table: np.ndarray, title: str, max_rows: int = 256, max_cols: int = 128) -> go.Figure:
    """A (T, d) table, rows and columns block-averaged past ``max_rows`` × ``max_cols``, positions down the side."""
    rs = max(1, -(-table.shape[0] // max_rows))
    cs = max(1, -(-table.shape[1] // max_cols))
    T, d = table.shape[0] // rs * rs, table.shape[1] // cs * cs
    shown = table[:T, :d].reshape(T // rs, rs, d // cs, cs).mean(axis=(1, 3))
    lim = float(np.percentile(np.abs(shown), 99.5)) or 1.0
    fig = go.Figure(go.Heatmap(z=shown, x=np.arange(shown.shape[1]) * cs, y=np.arange(shown.shape[0]) * rs,
                               colorscale=DIVERGING, zmin=-lim, zmax=lim, colorbar={"title": {"text": _("value")}},
                               hovertemplate=_("position %{y} · dim %{x}: %{z:.3f}") + "<extra></extra>"))
    xlabel = _("dimension (means of {n})", n=cs) if cs > 1 else _("dimension")
    ylabel = _("position t (means of {n})", n=rs) if rs > 1 else _("position t")
    layout(fig, title, x=xlabel, y=ylabel, height=430)
    fig.update_layout(yaxis_autorange="reversed")
    return with_words(fig, _("{T:,} positions down the side and {d:,} dimensions across, drawn as {rows:,} × {cols:,} "
                             "cells: values from {lo:.3f} to {hi:.3f}; row 0 has length {first:.3f}, the last row "
                             "{last:.3f}.", T=table.shape[0], d=table.shape[1], rows=shown.shape[0], cols=shown.shape[1],
                             lo=float(table.min()), hi=float(table.max()), first=float(np.linalg.norm(table[0])),
                             last=float(np.linalg.norm(table[-1]))))


def cosine_heatmap(cos: np.ndarray, pos: np.ndarray, title: str, subtitle: str = "") -> go.Figure:
    """The cosine between every two of positions ``pos``; ``subtitle``, on a line of its own under the title (a
    half-width column cuts one long title), e.g. which positions are shown."""
    fig = go.Figure(go.Heatmap(z=cos, x=pos, y=pos, colorscale=DIVERGING, zmin=-1, zmax=1,  # its ends marked, ±1
                               colorbar={"title": {"text": "cos"}, "tickvals": [-1, -0.5, 0, 0.5, 1]},
                               hovertemplate=_("positions %{y} and %{x}: cos %{z:.3f}") + "<extra></extra>"))
    layout(fig, title, x=_("position"), y=_("position"), height=430, subtitle=subtitle)
    # square cells: the picture narrows to keep them (the x axis is not stretched past the positions)
    fig.update_layout(xaxis={"constrain": "domain"}, yaxis={"autorange": "reversed", "scaleanchor": "x",
                                                            "constrain": "domain"})
    n = len(pos)
    said = _("The cosine between every two of {n:,} positions, from {first:,} to {last:,}: 1 on the diagonal, the lowest "
             "{lo:+.3f}.", n=n, first=int(pos[0]), last=int(pos[-1]), lo=float(np.min(cos)))
    if n > 1:
        said += " " + _("Positions side by side in this picture have a cosine of {adj:+.3f} on average; the first and the "
                        "last, {ends:+.3f}.", adj=float(np.mean(np.diagonal(cos, 1))), ends=float(cos[0, -1]))
    return with_words(fig, said)


COSINE_PRESENT = 470  # px: presenter mode's cosine heatmaps, with their collapsed words (step 9)
COLOUR_BAR_PX = 100  # px right of a heatmap's plot for its colour bar at 18 px: the bar, its ticks ("−0.5"), its title


def square_width(fig: go.Figure, height: int) -> int:
    """The width (px) at which ``fig``, a cosine heatmap of square cells drawn ``height`` px high on a projector,
    is its square plot with the colour bar just right of it: drawn across a half-screen column, the square stood in
    the middle and its colour bar at the column's far edge."""
    lay = for_projector(fig, height=height).layout
    plot = height - lay.margin.t - lay.margin.b
    return int(lay.margin.l + plot + lay.margin.r + COLOUR_BAR_PX)


def position_path_figure(coords: np.ndarray, ratio: np.ndarray, title: str) -> go.Figure:
    """Positions 0…T-1 through the first two principal components, joined in order."""
    t = np.arange(coords.shape[0])
    fig = go.Figure(go.Scatter(x=coords[:, 0], y=coords[:, 1], mode="lines+markers", line={"color": "#bbbbbb", "width": 1},
                               marker={"color": t, "colorscale": "Viridis", "size": 5,
                                       "colorbar": {"title": {"text": _("position")}}},
                               customdata=t, hovertemplate=_("position %{customdata}") + "<extra></extra>"))
    centre = coords[:, :2].mean(axis=0)
    span = np.ptp(coords[:, :2], axis=0) if len(coords) else np.ones(2)
    for k in (0, coords.shape[0] - 1):
        # pointed at from outside the path, away from its middle, on a white ground: "t = 511" sat on the path's
        # densest points, unreadable
        out = (coords[k, :2] - centre) / np.where(span > 0, span, 1.0)
        out = out / (np.linalg.norm(out) or 1.0)
        fig.add_annotation(x=coords[k, 0], y=coords[k, 1], text=f"t = {k}", showarrow=True, arrowhead=2,
                           ax=float(45 * out[0]), ay=float(-45 * out[1]), bgcolor="rgba(255, 255, 255, 0.9)",
                           bordercolor="#999999", borderpad=2)
    layout(fig, title, x=_("PC1 ({r:.1%} of variance)", r=float(ratio[0])),
           y=_("PC2 ({r:.1%} of variance)", r=float(ratio[1])), height=430)
    steps = np.linalg.norm(np.diff(coords[:, :2], axis=0), axis=1)
    return with_words(fig, _("Positions 0 to {last:,} as points on their first two principal components ({a:.1%} and {b:.1%} "
                             "of the variance), joined in order: from ({x0:.2f}, {y0:.2f}) to ({x1:.2f}, {y1:.2f}); "
                             "a step from one position to the next is {step:.3f} long on average.", last=len(t) - 1,
                             a=float(ratio[0]), b=float(ratio[1]), x0=float(coords[0, 0]), y0=float(coords[0, 1]),
                             x1=float(coords[-1, 0]), y1=float(coords[-1, 1]),
                             step=float(steps.mean()) if steps.size else 0.0))


def _one_digit(value: float, rounding) -> float:
    """``value`` rounded down (``np.floor``) or up (``np.ceil``) to one significant digit: 2.12 → 2, 0.3997 → 0.3,
    13.9 → 20."""
    p = 10.0 ** np.floor(np.log10(value))
    return float(f"{rounding(value / p + (1e-9 if rounding is np.floor else -1e-9)) * p:.3g}")


def lengths_axis(lo: float, hi: float) -> dict:
    """The log axis of the rows' lengths, whose lowest values are labelled: when the lowest listed tick of
    ``log_axis`` is well above ``lo`` (3, 4, 5 while a learned row dips to 2.01), the axis reaches down to the round
    value just under ``lo`` (2), and that value is listed too; and up to the round value just over ``hi`` when the
    highest listed tick is under it."""
    axis = log_axis(lo, hi)
    ticks = list(axis["tickvals"])
    if ticks and ticks[0] > 1.15 * lo:
        floor = _one_digit(lo, np.floor)
        ticks = sorted({floor, *(v for v in log_tick_values(floor, hi)), *ticks})
        axis.update(tickvals=ticks, ticktext=[log_tick_text(v) for v in ticks])
    if ticks and ticks[-1] < hi:  # likewise at the top: MiniLM's sinusoidal rows (13.9) ran along the edge of an
        ticks = sorted({*ticks, _one_digit(hi, np.ceil)})  # axis whose last label was 10, andrea-micro's (5.66) of 5
        axis.update(tickvals=ticks, ticktext=[log_tick_text(v) for v in ticks])
    bottom, top = min(lo, ticks[0] if ticks else lo), max(hi, lo, ticks[-1] if ticks else hi)
    pad = 0.04 * max(np.log10(top) - np.log10(bottom), 0.1)
    axis["range"] = [float(np.log10(bottom) - pad), float(np.log10(top) + pad)]
    return axis


def position_norms_figure(learned: np.ndarray | None, sinus: np.ndarray) -> go.Figure:
    fig = go.Figure()
    lengths = [np.linalg.norm(sinus, axis=1)]
    if learned is not None:
        lengths.insert(0, np.linalg.norm(learned, axis=1))
        fig.add_scatter(y=lengths[0], mode="lines", name=_("learned"), line={"color": RED})
    fig.add_scatter(y=lengths[-1], mode="lines", name=_("sinusoidal"), line={"color": BLUE})
    layout(fig, _("Length of each position row"), x=_("position t"), y="‖position_embedding[t]‖", height=375,
           subtitle=_("log scale: the sinusoidal rows all have length √(d/2)"))  # one long title ran past 1,280 px
    positive = np.concatenate(lengths)
    positive = positive[positive > 0]  # a log axis's ticks, written through the language's formatter
    fig.update_layout(legend={"orientation": "h", "y": -0.25},
                      yaxis=lengths_axis(float(positive.min()), float(positive.max())) if positive.size else {"type": "log"})
    s = lengths[-1]
    said = [_("Every sinusoidal row, at each of {T:,} positions, has length {s:.3f}.", T=s.size, s=float(np.median(s)))]
    if learned is not None:
        a = lengths[0]
        said.append(_("The learned rows' lengths run from {lo:.3f} to {hi:.3f}, median {m:.3f}, over {T:,} positions; "
                      "row 0 has {first:.3f}.", lo=float(a.min()), hi=float(a.max()), m=float(np.median(a)), T=a.size,
                      first=float(a[0])))
    return with_words(fig, sentences(said))


def rope_picture(q: np.ndarray, k: np.ndarray, pairs: list[tuple[int, int]], theta: float, rotate) -> go.Figure:
    """q at position m and k at position n, rotated by m·θ and n·θ: each pair has offset m − n."""
    fig = go.Figure()
    colors = [BLUE, ORANGE, GREEN, RED]
    for (m, n), c in zip(pairs, colors, strict=False):
        qm, kn = rotate(q, m, theta), rotate(k, n, theta)
        score = float(qm @ kn)
        for v, name, dash in ((qm, _("q at m = {m}", m=m), "solid"), (kn, _("k at n = {n}", n=n), "dot")):
            fig.add_scatter(x=[0, v[0]], y=[0, v[1]], mode="lines+markers", name=f"{name} (q·k = {rope_score_text(score)})",
                            line={"color": c, "width": 3, "dash": dash},
                            marker={"symbol": ["circle", "arrow"], "size": [4, 14], "angleref": "previous", "color": c})
    lim = 1.2 * max(np.linalg.norm(q), np.linalg.norm(k))
    # the claim on a line of its own: the picture sits in a column that one long title overruns (cut in Dutch)
    layout(fig, _("RoPE: rotate q by m·θ and k by n·θ"), height=490, subtitle=_("q·k depends only on m − n"))
    fig.update_layout(xaxis={"range": [-lim, lim], "zeroline": True, "title": {"text": _("first dimension of the pair")}},
                      yaxis={"range": [-lim, lim], "zeroline": True, "scaleanchor": "x",
                             "title": {"text": _("second dimension of the pair")}},
                      # the six arrows listed under the picture, two to a row: beside it they took a third of its width
                      legend={"font": {"size": 11}, "orientation": "h", "yref": "container", "y": 0,
                              "yanchor": "bottom", "entrywidth": 0.5, "entrywidthmode": "fraction"},
                      margin={"b": 130})
    rows = {"m": [], "n": [], "m − n": [], "q·k": []}
    for m, n in pairs:
        rows["m"].append(num(m))
        rows["n"].append(num(n))
        rows["m − n"].append(num(m - n))
        rows["q·k"].append(rope_score_text(float(rotate(q, m, theta) @ rotate(k, n, theta))))
    return with_words(fig, _("q rotated by m·θ and k by n·θ (θ = {theta:.2f}) for {k} pairs of positions, every pair {offset} "
                             "apart: each q·k is {score}, the same, because it depends only on m − n.", theta=theta,
                             k=len(pairs), offset=pairs[0][0] - pairs[0][1] if pairs else 0,
                             score=rows["q·k"][0] if pairs else ""), rows)


def matrix_heatmap(x: np.ndarray, labels: list[str], title: str, lim: float | None = None) -> go.Figure:
    """A (T, d) matrix with one labelled row per token."""
    lim = lim or float(np.percentile(np.abs(x), 99.5)) or 1.0
    fig = go.Figure(go.Heatmap(z=x, y=[plot(s) for s in labels], colorscale=DIVERGING, zmin=-lim, zmax=lim, showscale=False,
                               hovertemplate=_("%{y} · dim %{x}: %{z:.3f}") + "<extra></extra>"))
    layout(fig, title, x=_("dimension"), height=max(260, 60 + 26 * len(labels)))
    fig.update_layout(yaxis={"autorange": "reversed", "type": "category"})
    lengths = np.linalg.norm(np.asarray(x, np.float64), axis=1)
    return with_words(fig, _("{T:,} rows, one per token, of {d:,} numbers each: values from {lo:.3f} to {hi:.3f}; the "
                             "rows' lengths from {a:.3f} to {b:.3f}.", T=x.shape[0], d=x.shape[1], lo=float(x.min()),
                             hi=float(x.max()), a=float(lengths.min()), b=float(lengths.max())),
                      {_("token"): list(labels), _("row length ‖v‖"): [num(float(v), ".3f") for v in lengths]})


def added_scale(parts) -> float:
    """The one colour limit of the terms added into block 1's input (full colour at ± this): the largest of their
    99.5th percentiles of |value|."""
    return max(float(np.percentile(np.abs(p.values), 99.5)) for p in parts if not p.step) or 1.0


def block_input_scale(parts) -> str:
    """What the colours of ``block_input_heatmaps`` mean, said under them: the one scale the first pictures (the
    terms and their sum) share, and that a step after the sum has its own."""
    added = sum(not p.step for p in parts)
    return sentences([_("Colour: blue below 0, white at 0, red above. The first {n} pictures share one scale, full "
                        "colour at ±{lim:.3f}, so the sum's colours are the terms' colours added.", n=added,
                        lim=added_scale(parts)),
                      *([] if added == len(parts) else [_("A step after the sum has a scale of its own.")])])


def block_input_heatmaps(parts, labels: list[str]) -> list[go.Figure]:
    """One heatmap per part of block 1's input: the terms that are added share one colour scale (so the sum reads as
    their sum, ``added_scale``); a step applied after the sum (a LayerNorm, a projection) gets its own."""
    shared = added_scale(parts)
    return [matrix_heatmap(p.values, labels, tr(p.label), None if p.step else shared) for p in parts]


# --- figures from hashable arguments (cached by the app per model and language) ---
COSINE_POSITIONS = 128  # at most this many positions in the position-by-position cosine picture


def sum_of(emb, token_id: int, kind: str, t: int, height: int = 620, present: bool = False) -> go.Figure:
    """x_t for one real id at position t: its own token row (scaled or projected first where the model does that)
    plus the position row, as the model adds them."""
    tok = before_positions(emb.block_input, emb.token_table[token_id][None])[0]
    return three_rows(tok, position_table_of(emb, kind)[t], emb.token(token_id), t, height, present)


def position_table_figure(emb, kind: str) -> go.Figure:
    table = position_table_of(emb, kind)
    title = (_("The learned table, {T:,} × {d}", T=table.shape[0], d=table.shape[1]) if kind == "learned" else
             _("The sinusoidal table, {T:,} × {d}", T=table.shape[0], d=table.shape[1]))
    return table_heatmap(table, title)


def cosines_of(emb, kind: str, label: str | None = None) -> go.Figure:
    """The cosines between positions of ``emb``'s learned table or of the sinusoidal one of its size; ``label``: the
    model named under the learned one's title (the Lesson's step 9 draws it under ANDREA-120M's sizes, and presenter
    mode drops the caption that says whose it is), and the sinusoidal one's said to be a formula."""
    T = position_table_of(emb, kind).shape[0]
    step = max(1, -(-T // COSINE_POSITIONS))
    cos, pos = emb.memo(("position_cosines", kind, step), lambda: position_cosines(emb, kind, step))
    name = _("learned") if kind == "learned" else _("sinusoidal")
    said = []  # under the title: whose table (and the formula's, so that both squares are drawn the same size)
    if label is not None:
        said.append(label if kind == "learned" else _("a formula, of the same size"))
    if step > 1:
        said.append(_("positions 0, {a}, {b}, …", a=step, b=2 * step))
    return cosine_heatmap(cos, pos, _("cos between positions ({kind})", kind=name), " · ".join(said))


def path_of(emb, kind: str) -> go.Figure:
    coords, ratio = emb.memo(("position_path", kind), lambda: position_path(emb, kind))
    T = coords.shape[0]
    name = _("learned") if kind == "learned" else _("sinusoidal")
    return position_path_figure(coords, ratio, _("Positions 0…{last:,} through PC1 and PC2 ({kind})", last=T - 1, kind=name))


def position_norms_of(emb) -> go.Figure:
    return position_norms_figure(emb.position_table, position_table_of(emb, "sinusoidal"))


def rope_of(offset: int, theta: float) -> go.Figure:
    q, k = ROPE_Q, ROPE_K
    return rope_picture(q, k, rope_pairs(offset), theta, rope_rotate)


ROPE_DECIMALS = 6  # q·k in the RoPE picture's legend and in the Positions page's table beside it


def rope_score_text(score: float) -> str:
    """A RoPE score as the legend and the table beside it write it: the language's format, ``ROPE_DECIMALS`` places."""
    return format_number(score, f",.{ROPE_DECIMALS}f")


ROPE_Q, ROPE_K = np.array([1.0, 0.2]), np.array([0.8, 0.6])  # a query and a key in one rotated pair of dimensions


def rope_pairs(offset: int) -> list[tuple[int, int]]:
    return [(n + offset, n) for n in (0, 3, 6)]
