"""Presenter mode's library parts: figures with every font at least 18 px, byte tokens said with what they are,
the treemap's key naming every part, the animation's controls below the axes."""

import pytest

from andrea_viz import i18n
from andrea_viz.byte_tokens import shown_token
from andrea_viz.family import FAMILY, count_shape
from andrea_viz.plots.similarity import arrows_at, quiz_reveal, turning_animation
from andrea_viz.plots.sizing import params_treemap, parts_key
from andrea_viz.plots.style import PRESENT_FONT, for_projector, log_axis
from andrea_viz.lesson.quiz import Pair


def font_sizes(node, path=""):
    """(path, size) of every ``…font`` dict's size in a figure's JSON, the slow way: a plain walk."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k.endswith("font") and isinstance(v, dict):
                out.append((f"{path}.{k}", v.get("size")))
            out += font_sizes(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += font_sizes(v, f"{path}[{i}]")
    return out


def figures():
    pc = count_shape(FAMILY["ANDREA-120M"])
    pairs = [Pair(a="cat", b="dog", pieces_a=("cat",), pieces_b=("dog",), cosine=0.7, dot=1.2)]
    return [turning_animation(), params_treemap(pc, "t"), quiz_reveal(pairs, [0.5])]


def test_for_projector_lifts_every_font_and_leaves_the_figure_alone():
    for fig in figures():
        before = font_sizes(fig.to_plotly_json())
        assert any(s is not None and s < PRESENT_FONT for _p, s in before)  # something small to lift
        big = for_projector(fig).to_plotly_json()
        sizes = font_sizes(big)
        assert sizes and all(s is not None and s >= PRESENT_FONT for _p, s in sizes), sizes
        assert big["layout"]["font"]["size"] >= PRESENT_FONT
        assert big["layout"]["uniformtext"] == {"minsize": PRESENT_FONT, "mode": "hide"}
        assert font_sizes(fig.to_plotly_json()) == before  # the (cached) original is not changed
        for key in [k for k in big["layout"] if k.startswith(("xaxis", "yaxis"))]:
            assert big["layout"][key]["tickfont"]["size"] >= PRESENT_FONT


@pytest.mark.parametrize("lang, space, newline, other", [
    ("en", "␣ (space byte)", "⏎ (newline byte)", "<0xC8> (byte)"),
    ("nl", "␣ (spatiebyte)", "⏎ (newline-byte)", "<0xC8> (byte)"),
    ("zh-TW", "␣（空格位元組）", "⏎（換行位元組）", "<0xC8>（位元組）"),
    ("pt-BR", "␣ (byte de espaço)", "⏎ (byte de quebra de linha)", "<0xC8> (byte)"),
])
def test_byte_tokens_are_said_with_what_they_are(lang, space, newline, other):
    i18n.set_language(lang)
    try:
        assert shown_token("<0x20>") == space
        assert shown_token("<0x0A>") == newline
        assert shown_token("<0xC8>") == other
        assert shown_token("<0x20>", short=True) == "␣" and shown_token("<0xC8>", short=True) == "<0xC8>"
        assert shown_token("cat") == "cat" and shown_token("<0x2>") == "<0x2>" and shown_token(" <0x20>") == " <0x20>"
    finally:
        i18n.set_language("en")


def test_the_treemap_key_names_every_part_with_its_count():
    key = parts_key(count_shape(FAMILY["ANDREA-120M"]))
    rows = [r for r in key.splitlines()[2:] if "aria-hidden" in r]  # the parts' rows (the subtotals have no swatch)
    assert len(rows) == 5
    for label, n, share in (("token table", "6,488,832", "6.6%"), ("position table", "786,432", "0.8%"),
                            ("output table", "6,488,832", "6.6%"), ("attention (wq, wk, wv, wo)", "28,311,552", "28.7%"),
                            ("MLP (fc1, fc2)", "56,623,104", "57.4%")):
        assert any(f">{label}</span> | {n} | {share} |" in r for r in rows), (label, key)
    fig = params_treemap(count_shape(FAMILY["ANDREA-120M"]), "t")
    slices = dict(zip(fig.data[0].ids, fig.data[0].marker.colors, strict=True))
    for r, name in zip(rows, ("token table", "position table", "output table", "attention (wq, wk, wv, wo)",
                              "MLP (fc1, fc2)"), strict=True):  # each swatch is its slice's own colour
        assert f"background:{slices[name]};" in r and 'aria-hidden="true"' in r, (name, r)


def test_the_animation_controls_hang_below_the_axes():
    lay = turning_animation().layout
    menu, slider = lay.updatemenus[0], lay.sliders[0]
    assert menu.yanchor == "top" and slider.yanchor == "top" and menu.y <= -0.25 and slider.y <= -0.25
    assert slider.x >= 0.25  # right of the Play/Pause buttons, clear of them
    plot_height = lay.height - lay.margin.t - lay.margin.b
    assert lay.margin.b >= -menu.y * plot_height + 80  # room for the controls under the plot


def test_a_square_charts_legend_is_listed_beside_it_on_a_projector():
    """Dot products' arrows keep one scale on both axes, so on a projector they are drawn short and a legend hung
    under them by a fraction of their height lands on the x axis's tick labels: it moves beside the chart. A chart
    of free axes (the quiz's bars) keeps its legend under it, at the chart's bottom edge below the ticks and the axis
    title (hung by a fraction it lay on the 18 px tick labels), and the figure itself (cached) is left as it was."""
    arrows = arrows_at(1.0, 1.0, 60.0)
    big = for_projector(arrows).layout.legend
    assert (big.orientation, big.x, big.xanchor, big.y, big.yanchor) == ("v", 1.02, "left", 1, "top")
    assert (arrows.layout.legend.orientation, arrows.layout.legend.y) == ("h", -0.22)
    pairs = [Pair(a="cat", b="dog", pieces_a=("cat",), pieces_b=("dog",), cosine=0.7, dot=1.2)]
    bars = for_projector(quiz_reveal(pairs, [0.5])).layout.legend
    assert (bars.orientation, bars.yref, bars.y, bars.yanchor) == ("h", "container", 0, "bottom")
    assert quiz_reveal(pairs, [0.5]).layout.legend.y == -0.2


def test_labels_that_would_overlap_at_18_px_are_thinned_and_a_subtitle_gets_its_two_lines():
    """The Lesson's x heatmap (13 tokens down the side, 290 px drawn in presenter mode) keeps every k-th token so
    that each label has 1.4 × 18 px; a log axis's five listed ticks in a short chart keep every k-th; a colour scale
    gets fewer ticks; the subtitle's margin holds two 18 px lines. A tall chart keeps every label."""
    import plotly.graph_objects as go

    from andrea_viz.plots.style import LABEL_PITCH, layout

    tokens = [f"{i}: w{i}" for i in range(13)]
    fig = layout(go.Figure(go.Heatmap(z=[[0.0] * 4] * 13, y=tokens, colorbar={"title": {"text": "cos"}})), "x",
                 x="dimension")
    fig.update_layout(title={"subtitle": {"text": "a (13, 64) matrix"}})
    big = for_projector(fig, height=290)
    lay = big.layout
    assert lay.height == 290 and lay.margin.t >= 2 * PRESENT_FONT * LABEL_PITCH + 20
    plot = 290 - lay.margin.t - lay.margin.b
    shown = -(-13 // lay.yaxis.dtick)  # labels at 0, dtick, 2·dtick, …
    assert lay.yaxis.dtick > 1 and shown * PRESENT_FONT * LABEL_PITCH <= plot, (lay.yaxis.dtick, plot)
    assert big.data[0].colorbar.nticks * PRESENT_FONT * LABEL_PITCH <= plot
    assert fig.layout.yaxis.dtick is None and fig.layout.height != 290  # the cached figure itself untouched
    assert for_projector(fig, height=900).layout.yaxis.dtick is None  # room for all 13
    assert lay.yaxis.tick0 == 0  # no row framed: labels from the first
    # a row framed by a box (the lesson's matrix x at position t) keeps its label among the every-k-th
    for t in (2, 7):
        framed = go.Figure(fig).add_shape(type="rect", x0=-0.5, x1=3.5, y0=t - 0.5, y1=t + 0.5)
        axis = for_projector(framed, height=290).layout.yaxis
        assert axis.dtick > 1 and (t - axis.tick0) % axis.dtick == 0 and 0 <= axis.tick0 < axis.dtick, (t, axis)

    hist = layout(go.Figure(go.Scatter(x=[0, 1], y=[1, 10])), "values", y="density", height=200)
    hist.update_layout(yaxis=log_axis(0.001, 10))
    ticks = for_projector(hist).layout.yaxis
    room = (200 - hist.layout.margin.t - max(hist.layout.margin.b, 0)) // (PRESENT_FONT * LABEL_PITCH)
    assert 1 <= len(ticks.tickvals) <= max(1, room) and list(ticks.tickvals) == list(log_axis(0.001, 10)["tickvals"])[
        ::-(-5 // len(ticks.tickvals))] and len(ticks.ticktext) == len(ticks.tickvals)


def test_a_lines_label_sits_above_the_tallest_bar_and_keeps_its_line_on_a_projector():
    """The median on Neighbours' histogram of cosines: its label above the plot area (the tallest bars reach the
    top), on a white ground, in a top margin one line taller; for_projector keeps that line at 18 px over the title
    and subtitle's own room."""
    import numpy as np

    from andrea_viz.plots.neighbours import input_output_histogram
    from andrea_viz.plots.style import ABOVE_PLOT, LABEL_PITCH

    cos = np.random.default_rng(0).normal(0.002, 0.1, 8_449)
    fig = input_output_histogram(cos)
    (note,) = [a for a in fig.layout.annotations if "median" in a.text]
    assert note.text == f"median {np.median(cos):+.3f}" and note.yanchor == "bottom" and note.y >= 1
    assert note.bgcolor and fig.layout.margin.t == 60 + ABOVE_PLOT
    big = for_projector(fig).layout
    assert big.margin.t >= 60 + ABOVE_PLOT + int(PRESENT_FONT * LABEL_PITCH)
    fig.update_layout(title={"subtitle": {"text": "a subtitle"}})
    assert for_projector(fig).layout.margin.t >= int(2 * PRESENT_FONT * LABEL_PITCH) + 50 + int(PRESENT_FONT * LABEL_PITCH)


def test_a_colour_bars_listed_ticks_are_thinned_on_a_projector_keeping_both_ends():
    """Positions' cosine heatmaps list their colour bar's ticks (−1 to 1 by halves, so that ±1 are always marked):
    on a projector's short chart at 18 px they would overlap, so every k-th is kept, both ends among them."""
    import numpy as np

    from andrea_viz.plots.positions import cosine_heatmap

    pos = np.arange(0, 32, 4)
    fig = cosine_heatmap(np.eye(pos.size), pos, "cos")
    assert list(fig.data[0].colorbar.tickvals) == [-1, -0.5, 0, 0.5, 1]
    small = for_projector(fig, height=250).data[0].colorbar  # 130 px of plot: room for three labels at 18 px
    assert list(small.tickvals) in ([-1, 0, 1], [-1, 1])
    assert list(for_projector(fig, height=900).data[0].colorbar.tickvals) == [-1, -0.5, 0, 0.5, 1]  # room for all


def test_both_animations_start_their_slider_past_play_and_pause_in_dutch():
    """Dot products' turning v and Grow's class map share their controls: in Dutch ("▶ Afspelen", "❚❚ Pauzeren") the
    buttons are wider than the 0.22 and 0.25 the two sliders once started at, and each slider starts past them."""
    import numpy as np

    from andrea_viz.i18n import set_language
    from andrea_viz.plots.style import BUTTON_CHAR_PX, PLOT_PX
    from andrea_viz.plots.timeline import class_map

    set_language("nl")
    try:
        figs = [turning_animation(), class_map(np.zeros((2, 3, 2)), [0, 600], ["kat", "hond", "rood"],
                                               ["dieren", "dieren", "kleuren"], np.array([0.5, 0.25]), 600)]
    finally:
        set_language("en")
    buttons = len("▶ Afspelen") + len("❚❚ Pauzeren")
    for fig in figs:
        menu, slider = fig.layout.updatemenus[0], fig.layout.sliders[0]
        assert [b.label for b in menu.buttons] == ["▶ Afspelen", "❚❚ Pauzeren"]
        assert slider.x * PLOT_PX >= BUTTON_CHAR_PX * buttons > 0.25 * PLOT_PX and slider.x + slider.len == 1.0
        # Play and Pause read as buttons one can press: dark text on white in a frame (plotly's own grey on pale
        # blue read as disabled), the text 4.5:1 and the frame 3:1 against white (WCAG's text and control contrast)
        from andrea_viz import colour_vision as cv
        from andrea_viz.plots.style import TEXT

        assert menu.font.color == TEXT and menu.bgcolor == "#ffffff" and menu.borderwidth == 1
        assert cv.contrast_ratio(menu.font.color) >= 4.5 and cv.contrast_ratio(menu.bordercolor) >= 3.0
