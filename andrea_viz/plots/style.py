"""The look shared by every figure."""

from __future__ import annotations

import math
import unicodedata

import numpy as np

import plotly.graph_objects as go

from ..i18n import _, format_number, language, separators
from .words import words_kept

DIVERGING = "RdBu_r"  # negative blue, zero white, positive red
# The named colours, drawn together on several charts: every pair stays ΔE2000 >= 10 apart for normal vision and
# under simulated deuteranopia and protanopia (Machado 2009; tests/unit/test_colour_vision.py). Okabe & Ito's
# colour-blind-safe blue, orange, bluish green and reddish purple, the theme's red, and a dark grey.
BLUE, ORANGE, GREY, RED, GREEN, PURPLE = "#0072b2", "#e69f00", "#666666", "#d62728", "#009e73", "#cc79a7"
NAMED = (BLUE, ORANGE, GREY, RED, GREEN, PURPLE)
# Word groups and classes: the most colours that stay ΔE2000 >= 10 apart, pairwise and from the map's white ground,
# its grey of no group (OTHER_GREY) and its query red, for normal vision, deuteranopia and protanopia (Okabe & Ito's
# first four, then a greedy max-min pick over an sRGB grid with contrast >= 2:1 on white). The j-th group is drawn in
# PALETTE[j % len(PALETTE)] (a map has at most 9 such groups; a grown model's class map up to 18).
PALETTE = ("#0072b2", "#e69f00", "#009e73", "#56b4e9", "#7f003f", "#001fbf", "#7f0000", "#005f5f", "#9fbf7f",
           "#5f7fff", "#3f7f7f", "#1f7f3f", "#5f00ff")
# Past the palette's colours a group is also told apart by the shape of its markers (the j-th group's shape is
# SHAPES[j // len(PALETTE)]) and, on the chart, by its name written where its points are (``shared_colour``).
SHAPES = ("circle", "square", "diamond", "triangle-up", "cross")


def group_style(j: int) -> tuple[str, str]:
    """(colour, plotly marker symbol) of the group in palette place j (``maps.sample.colour_slots``)."""
    return PALETTE[j % len(PALETTE)], SHAPES[(j // len(PALETTE)) % len(SHAPES)]


def shared_colour(slots) -> list[int]:
    """Of the groups drawn at once in palette places ``slots`` (``group_style``), the positions of those whose colour
    another of them also has (a place past the palette's end takes its first colours again): the chart writes their
    names where their points are, so that they are told apart by label, not only by shape."""
    colours = [s % len(PALETTE) for s in slots]
    return [j for j, c in enumerate(colours) if colours.count(c) > 1]


QUERY_RGB = (214, 39, 40)  # a map's first word asked for (RED)
OTHER_GREY = "#b2b2b2"  # a map's points of no group
TEXT = "#31333f"  # text drawn on a chart in a colour of ours: Streamlit's own text colour, 12.6:1 on white
BUTTON_EDGE = "#8a8d98"  # an animation's Play and Pause: their frame, 3.3:1 on white (a control's edge needs 3)


def hex_rgb(hex_colour: str) -> list[int]:
    """"#rrggbb" as [r, g, b]."""
    h = hex_colour.lstrip("#")
    return [int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)]


def swatch(colour: str) -> str:
    """A square of a colour for a key in HTML (a Markdown table drawn with ``unsafe_allow_html``, or ``st.html``): a
    box, not a glyph, so it is the colour exactly and is not text whose contrast a checker would weigh; hidden from
    screen readers, which read the name beside it."""
    return (f'<span aria-hidden="true" style="display:inline-block;width:0.9em;height:0.9em;border-radius:2px;'
            f'background:{colour};vertical-align:middle"></span>')


def score_rgb(share: float) -> list[int]:
    """A map point's colour for a score in [0, 1] with 1 good (trust, neighbours kept): red at 0, green at 1."""
    return [int(255 * (1 - share)), int(200 * share), 60]


def entry_colours(slots) -> list[str]:
    """The colours of a map's palette entries (``maps.scene``): the grey of no group, each word group in
    ``PALETTE[slot % len(PALETTE)]`` (``slots``: ``maps.sample.colour_slots``, the same group the same colour on every
    map), then the query's red."""
    return [OTHER_GREY, *(PALETTE[s % len(PALETTE)] for s in slots), RED]


TITLE_PAD = 14  # px above a chart's title, pinned to the top of the picture
BUTTON_CHAR_PX, CONTROLS_GAP_PX, PLOT_PX = 9.0, 30.0, 750.0  # a Play/Pause label's character; the gap before the
# slider; a chart's plotting width on a 1,280 px page, in which the slider's start is a fraction


def slider_start(labels: str) -> float:
    """Where an animation's slider starts, as a fraction of the plot's width: past the Play and Pause buttons, whose
    width grows with their labels' language ("▶ Afspelen ❚❚ Pauzeren" reached the grip at 0° from 0.25), 0.25 at
    least."""
    return round(max(0.25, (BUTTON_CHAR_PX * len(labels) + CONTROLS_GAP_PX) / PLOT_PX), 3)


def play_controls(frames: list[str], active: int, play: dict, prefix: str, suffix: str = "", buttons_y: float = -0.1,
                  slider_y: float = -0.03, hang: bool = False) -> dict:
    """The layout of an animation's controls (Dot products' turning v, Grow's class map): Play (``play``: the
    animation's frame and transition options) and Pause at the left, then a slider over ``frames`` (frame names,
    ``active`` shown first) that starts past them in every language, its current value written ``prefix`` value
    ``suffix`` at its right end. ``hang``: both hung by their top edge with no padding above."""
    labels = (_("▶ Play"), _("❚❚ Pause"))
    start = slider_start("".join(labels))
    menu = {"type": "buttons", "direction": "left", "x": 0.0, "y": buttons_y, "xanchor": "left",
            # dark text on white in a grey frame: plotly's own grey on pale blue read as a disabled button
            "font": {"color": TEXT}, "bgcolor": "#ffffff", "bordercolor": BUTTON_EDGE, "borderwidth": 1,
            "buttons": [{"label": labels[0], "method": "animate", "args": [None, play]},
                        {"label": labels[1], "method": "animate",
                         "args": [[None], {"mode": "immediate", "frame": {"duration": 0}}]}]}
    slider = {"active": active, "x": start, "len": 1.0 - start, "y": slider_y,
              # clear of the buttons, in the page's text colour at a size that reads (plotly's own: small, pale grey)
              "currentvalue": {"prefix": prefix, "suffix": suffix, "xanchor": "right",
                               "font": {"size": 15, "color": TEXT}},
              "steps": [{"label": f, "method": "animate",
                         "args": [[f], {"mode": "immediate", "frame": {"duration": 0, "redraw": True}}]}
                        for f in frames]}
    if hang:
        menu.update(yanchor="top", pad={"t": 0, "r": 10})
        slider.update(yanchor="top", pad={"t": 0})
    return {"updatemenus": [menu], "sliders": [slider]}


def layout(fig: go.Figure, title: str, x: str | None = None, y: str | None = None, height: int = 420,
           subtitle: str = "") -> go.Figure:
    """The shared look, set in one update (each separate update walks the figure again). No plotly
    template: Streamlit's theme styles the charts, and applying one costs about 17 ms per figure. ``subtitle``: a
    second line under the title, smaller, with the top margin its two lines need (a half-width column at 1,280 px
    cuts one long title at the picture's edge)."""
    props = {
        # pinned to the top of the picture: Plotly's own place, the middle of the top margin, moves with the margin,
        # so two charts side by side had their titles at two heights and a line's label (``marked_line``) met a subtitle
        "title": {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}, "y": 1.0, "yref": "container",
                  "yanchor": "top", "pad": {"t": TITLE_PAD}},
        "height": height,
        "margin": {"l": 70, "r": 30, "t": 75 if subtitle else 60, "b": 60},
        "font": {"size": 13},
        "hoverlabel": {"font": {"size": 13}},
        "separators": plotly_separators(),
    }
    if subtitle:
        props["title"]["subtitle"] = {"text": subtitle, "font": {"size": 13}}
    if x is not None:
        props["xaxis"] = {"title": {"text": x}}
    if y is not None:
        props["yaxis"] = {"title": {"text": y}}
    fig.update_layout(props)
    return fig


ABOVE_PLOT = 20  # px of top margin for a line's label set above the plot area (``marked_line``)
LINE_LABEL = "vline"  # the name marked_line gives its label, by which for_projector finds it (no word of a msgid:
# the language checks read every name in a figure as words on screen)


def marked_line(fig: go.Figure, x: float, text: str, colour: str = GREY, dash: str = "dash", width: int | None = None,
                side: str = "right") -> go.Figure:
    """A vertical line at ``x`` with its label just above the plot area, on ``side`` of it: inside, the label sat on
    the tallest bars of a histogram and on a subtitle. On a white ground; the top margin grows by its line, so call
    this after ``layout``."""
    line = {"color": colour, "dash": dash, **({"width": width} if width else {})}
    fig.add_vline(x=x, line=line, annotation_position=f"top {side}",
                  annotation={"text": text, "yanchor": "bottom", "bgcolor": "rgba(255, 255, 255, 0.9)",
                              "name": LINE_LABEL})
    fig.update_layout(margin={"t": (fig.layout.margin.t or 60) + ABOVE_PLOT})
    return fig


MAP_AREA = (540.0, 540.0)  # about the plotting area of a 700 px high map beside its legend on a 1,280 px page
CHAR_PX, LINE_PX = 6.5, 16.0  # a label character's width (twice that for a wide one: 貓, ｋ) and its height at 11 px


def text_width(text: str, char: float) -> float:
    """A label's width in px, ``char`` px a character and twice that for an East Asian wide or full-width one."""
    return sum(2 * char if unicodedata.east_asian_width(c) in "WF" else char for c in text)


def apart(labels: list[tuple[float, float, str]], coords: np.ndarray, area: tuple[float, float] = MAP_AREA,
          font: float = 11, equal: bool = False) -> list[tuple[float, float, str]]:
    """The labels, in the order given (the most wanted first), without those whose box would overlap one already kept
    at the chart's first zoom (``kept_apart``)."""
    return [labels[i] for i in kept_apart(labels, coords, area, font, equal)]


def kept_apart(labels: list[tuple[float, float, str]], coords: np.ndarray, area: tuple[float, float] = MAP_AREA,
               font: float = 11, equal: bool = False, avoid: tuple[tuple[float, float, float], ...] = ()) -> list[int]:
    """Positions of the labels (x, y, text), in the order given (the most wanted first), whose box overlaps none kept
    before it at the chart's first zoom, nor a marker of ``avoid`` ((x, y, size in px): the query's star, which is
    drawn over the labels near it) other than its own point's: each label drawn centred just above its point
    (plotly's "top center"), its box estimated from the text's length at ``font`` px, on a plotting area of ``area``
    px spanning ``coords``' range (the same scale on both axes when ``equal``). Zooming in does not bring the others
    back; their words stay in the hover."""
    span = np.ptp(np.asarray(coords, np.float64)[:, :2], axis=0) if len(coords) else np.ones(2)
    sx, sy = area[0] / max(float(span[0]), 1e-9), area[1] / max(float(span[1]), 1e-9)
    if equal:
        sx = sy = min(sx, sy)
    char, line = CHAR_PX * font / 11, LINE_PX * font / 11
    marks = [((mx, my), (mx * sx - size / 2, mx * sx + size / 2, my * sy - size / 2, my * sy + size / 2))
             for mx, my, size in avoid]
    kept, boxes = [], []
    for k, (x, y, text) in enumerate(labels):
        w, cx, cy = text_width(text, char), x * sx, y * sy + 10
        box = (cx - w / 2 - 2, cx + w / 2 + 2, cy - line / 2 - 1, cy + line / 2 + 1)
        others = [b for at, b in marks if at != (x, y)]
        if all(box[1] < b[0] or box[0] > b[1] or box[3] < b[2] or box[2] > b[3] for b in boxes + others):
            kept.append(k)
            boxes.append(box)
    return kept


WORD_PX = 12  # a map's words (Projection's query word 2 px larger): at 10 px a class could not read them projected
# A white halo round a word: readable over a dot of any colour, a one-pixel outline and a soft glow (a blur alone
# left the letters tinted by the markers under them). Plotly's "auto" shadow picks a dark halo for a light word
# (Compare's orange ones were blurred by it).
HALO = "1px 1px 0px white, -1px -1px 0px white, 1px -1px 0px white, -1px 1px 0px white, 0px 0px 3px white"


def words_on_top(x, y, text, marker_size, font_size, color=None) -> go.Scatter:
    """A 2-D map's words as one trace, to be added after every trace of markers: plotly draws a trace's text with its
    own markers, so the words of one group lay under the dots of every group drawn after it. Each word sits where
    "top center" puts it over its point: invisible markers of the point's own size (``marker_size``, one per word,
    like ``font_size``) keep it clear of its dot, and a halo keeps it readable where another dot lies under it; the
    trace takes no hover, no click and no legend entry. ``color``: one for every word, or one per word (TEXT when
    not given)."""
    font = {"size": font_size, "color": color or TEXT, "shadow": HALO}
    return go.Scatter(x=x, y=y, text=text, mode="markers+text", textposition="top center", textfont=font,
                      marker={"size": marker_size, "opacity": 0}, hoverinfo="skip", showlegend=False)


def plotly_separators() -> str:
    """Plotly's separators: the decimal mark, then the thousands mark, of the current language."""
    group, decimal = separators(language())
    return decimal + group


def log_tick_values(lo: float, hi: float) -> list[float]:
    """Ticks for a log axis over [lo, hi]: each power of ten in it when it spans more than three decades, else 1, 2
    and 5 times each power, else (under a decade or so) every digit times each power, so the labels neither crowd
    nor leave the axis bare."""
    if not (lo > 0 and hi >= lo):
        return []
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    for steps in ((1,), (1, 2, 5), tuple(range(1, 10))):
        if steps != (1,) or last - first > 3:
            ticks = [float(f"{m}e{p}") for p in range(first, last + 1) for m in steps if lo <= float(f"{m}e{p}") <= hi]
            if len(ticks) >= 3 or steps[-1] == 9:
                return ticks
    raise AssertionError("unreachable")


def log_tick_text(value: float) -> str:
    """A log axis's tick label through the language's formatter, with the decimals its power of ten needs:
    0.5 is "0,5" in nl (plotly's own labels wrote 0.5 and 0.4 as "5" and "4"), 1000 is "1.000"."""
    decimals = max(0, -math.floor(math.log10(value) + 1e-9))
    return format_number(value, f",.{decimals}f")


def log_axis(lo: float, hi: float) -> dict:
    """A plotly log axis over data in [lo, hi] (both > 0) with explicit ticks, labelled through ``log_tick_text``."""
    ticks = log_tick_values(lo, hi)
    if len(ticks) < 2:  # a narrow range: its two ends, rounded to two significant digits
        ticks = sorted({float(f"{lo:.2g}"), float(f"{hi:.2g}")})
    return {"type": "log", "tickmode": "array", "tickvals": ticks, "ticktext": [log_tick_text(v) for v in ticks]}


PRESENT_FONT = 18  # px: the smallest text a class reads on a 1,280 × 720 projector


def _bump_fonts(node, size: int) -> None:
    """Every ``…font`` dict under ``node`` (font, tickfont, textfont, title's font, …) at least ``size`` px."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key.endswith("font") and isinstance(value, dict):
                if not isinstance(value.get("size"), (int, float)) or value["size"] < size:
                    value["size"] = size
            _bump_fonts(value, size)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _bump_fonts(item, size)


def for_projector(fig: go.Figure, size: int = PRESENT_FONT, height: int | None = None) -> go.Figure:
    """A copy of a finished figure for presenter mode: the layout's font, every axis's ticks and title, legends,
    annotations, sliders, buttons and traces' text at least ``size`` px; text that would have to shrink below it to
    fit (a treemap's small slice, a bar's label) is hidden rather than drawn small, and labels that would overlap at
    that size are thinned (``_room_for_labels``; ``height``: the height the chart is drawn at, when not the
    figure's own). The copy keeps the figure's words (plots.words). The figure itself (often cached) stays as it is."""
    d = fig.to_dict()
    lay = d.setdefault("layout", {})
    if height:
        lay["height"] = height
    font = lay.setdefault("font", {})
    font["size"] = max(size, font.get("size") or 0)
    lay["uniformtext"] = {"minsize": size, "mode": "hide"}
    lay.setdefault("legend", {}).setdefault("font", {})
    for annotation in lay.get("annotations", []):
        annotation.setdefault("font", {})
    _bump_fonts(lay, size)
    legend = lay["legend"]
    if legend.get("orientation") == "h" and (legend.get("y") or 0) < 0 and any(
            isinstance(v, dict) and v.get("scaleanchor") for k, v in lay.items() if k.startswith("yaxis")):
        # a chart whose axes keep one scale (Dot products' arrows) is drawn short on a projector, where a legend hung
        # under it by a fraction of its height lands on the x axis's 18 px tick labels: it is listed beside it instead
        legend.update(orientation="v", x=1.02, xanchor="left", y=1, yanchor="top")
    for trace in d.get("data", []):
        _bump_fonts(trace, size)
    big = go.Figure(d, skip_invalid=False)
    # every axis, those the figure left to plotly too: Streamlit's theme sets their ticks and titles under 18 px
    big.for_each_xaxis(lambda axis: _bump_axis(axis, size))
    big.for_each_yaxis(lambda axis: _bump_axis(axis, size))
    _room_for_labels(big, size)
    return words_kept(big, fig)  # the same figure, said the same way


LABEL_PITCH = 1.4  # a tick label at ``size`` px takes this many times its size along a vertical axis


def _room_for_labels(fig: go.Figure, size: int) -> None:
    """Make room for text at ``size`` px: a subtitle and an x axis's title get the margin their two lines need, and
    each vertical axis keeps only as many tick labels as its height holds (every k-th category of a heatmap's tokens,
    every k-th of a log axis's listed ticks, at most that many ticks on a linear one); the rest stay in the hover and
    the chart's words."""
    lay = fig.layout
    top = lay.margin.t if lay.margin.t is not None else 100  # plotly's own margins
    bottom = lay.margin.b if lay.margin.b is not None else 80
    if lay.title.subtitle.text:
        top = max(top, int(2 * size * LABEL_PITCH) + 50)
    if any(a.name == LINE_LABEL for a in lay.annotations):  # a line's label above the plot (marked_line)
        top += int(size * LABEL_PITCH)
    if any(a.title.text and a.showticklabels is not False for a in fig.select_xaxes()):
        bottom = max(bottom, int(2 * size * LABEL_PITCH) + 10)
    legend, under = lay.legend, 0
    if lay.showlegend is not False and legend.orientation == "h" and legend.y is not None:
        entries = sum(1 for t in fig.data if t.showlegend is not False and t.name)
        under = int(max(1, entries) * size * LABEL_PITCH)  # at worst a line per entry (a narrow column wraps them)
        if legend.yref != "container" and legend.y < 0:
            # hung under the axes by a fraction of the plot's height it lands on the 18 px tick labels: it is
            # placed at the chart's bottom edge instead, below the margin that holds the ticks and the axis title
            legend.update(yref="container", y=0, yanchor="bottom")
            bottom += under + 10
            under = 0
        elif legend.yref != "container" or legend.y >= 0.5:
            under = 0  # beside or above the plot: none of its height
    fig.update_layout(margin={"t": top, "b": bottom})
    plot = (lay.height or 450) - top - bottom - under  # a legend at the bottom edge: plotly's margin grows for it
    categories: dict[str, int] = {}
    for trace in fig.data:  # a heatmap's rows of tokens (a bar chart's few categories each keep their label)
        if trace.type != "heatmap":
            continue
        ys = getattr(trace, "y", None)
        # a list, an array or a Series of labels (numbers come back from to_dict as a typed array: a dict)
        if ys is not None and not isinstance(ys, dict) and isinstance(next(iter(ys), None), str):
            name = "yaxis" + (getattr(trace, "yaxis", "y") or "y")[1:]
            categories[name] = max(categories.get(name, 0), len(ys))
    for name in [k for k in fig.layout.to_plotly_json() if k.startswith("yaxis")]:
        axis = fig.layout[name]
        lo, hi = axis.domain if axis.domain else (0, 1)
        room = max(1, int(plot * (hi - lo) // (size * LABEL_PITCH)))
        if axis.type == "log" and axis.tickvals is not None:
            _thin_listed(axis, -(-len(axis.tickvals) // room), room)
        elif axis.type == "category" or name in categories:
            n = categories.get(name, 0)
            if n > room:
                k = -(-n // room)
                framed = _framed_row(fig, "y" + name[len("yaxis"):])  # the row a box marks keeps its label
                axis.update(tickmode="linear", tick0=0 if framed is None else framed % k, dtick=k)
        elif axis.tickmode != "array":
            if room < 3 and axis.range is not None:  # one label only: the middle of the range (0 when it is in it)
                lo_v, hi_v = sorted(axis.range)
                axis.update(tickmode="array", tickvals=[0 if lo_v < 0 < hi_v else (lo_v + hi_v) / 2])
            else:
                axis.update(nticks=max(2, room))
    for trace in fig.data:  # a colour scale's ticks, along its own share of the height
        bar = getattr(trace, "colorbar", None)
        if bar is None or getattr(trace, "showscale", None) is False:
            continue
        room = max(2, int((plot * (bar.len or 1) - 2 * size) // (size * LABEL_PITCH)))  # its title above them
        if bar.tickvals is not None:  # listed ticks (a cosine's ±1): every k-th, both ends kept
            _thin_listed(bar, -(-(len(bar.tickvals) - 1) // (room - 1)), room)
        elif bar.tickmode != "array":
            bar.update(nticks=room)


def _framed_row(fig: go.Figure, yref: str) -> int | None:
    """The row (a category's position) that a rectangle on the y axis ``yref`` frames, as Lookup's window and the
    lesson's matrix x frame the looked-up token; None when no rectangle frames one."""
    for shape in fig.layout.shapes:
        if shape.type == "rect" and (shape.yref or "y") == yref and shape.y0 is not None and shape.y1 is not None:
            return int(round((float(shape.y0) + float(shape.y1)) / 2))
    return None


def _thin_listed(obj, k: int, room: int) -> None:
    """An axis's or a colour bar's listed ticks (and their texts alike), every k-th, where more than ``room`` are listed."""
    if len(obj.tickvals) > room:
        obj.update(tickvals=list(obj.tickvals)[::k], ticktext=None if obj.ticktext is None else list(obj.ticktext)[::k])


def _bump_axis(axis, size: int) -> None:
    axis.update(tickfont={"size": max(size, axis.tickfont.size or 0)},
                title={"font": {"size": max(size, axis.title.font.size or 0)}})
