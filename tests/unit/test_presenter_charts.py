"""The Lesson's charts as presenter mode draws them (andrea_viz.plots.style.for_projector at the height the step
gives them, on a 1,280 × 720 screen): every row named at 18 px, each picture large enough to read, the negative
cosines on a scale, the animation's titles bold in every frame; and the Positions page's labels that read."""

import numpy as np
import pytest

import andrea_viz
from andrea_viz import lexicon
from andrea_viz.lesson import EXAMPLE_IDS, SHAPES, trained_of
from andrea_viz.lesson.quiz import Pair
from andrea_viz.plots import lesson as lesson_plots
from andrea_viz.plots import positions as position_plots
from andrea_viz.plots import similarity as similarity_plots
from andrea_viz.plots.style import LABEL_PITCH, PRESENT_FONT, for_projector
from andrea_viz.ui.lesson import WORDS_PX

PITCH = PRESENT_FONT * LABEL_PITCH  # px a label at 18 px takes along a vertical axis


@pytest.fixture(scope="module")
def micro():
    return andrea_viz.load("andrea-micro")


def plot_height(lay) -> float:
    return lay.height - lay.margin.t - lay.margin.b


def test_step_1_names_every_row_at_18_px():
    """At 210 px plotly kept the label of one row of three ("row 256")."""
    fig = for_projector(lesson_plots.rows_heatmap(andrea_viz.load(SHAPES), EXAMPLE_IDS),
                        height=lesson_plots.ROWS_PRESENT - WORDS_PX)
    axis = fig.layout.yaxis
    assert axis.dtick is None and list(axis.tickvals) == list(fig.data[0].y) and len(axis.tickvals) == 3
    assert plot_height(fig.layout) / len(EXAMPLE_IDS) >= PITCH


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_step_6s_three_grids_name_every_row_and_are_about_square(lang):
    """Each grid (scores, causal mask, softmax) names every one of its rows at 18 px (the mask and the softmax
    named none, the scores every third or fourth) and is about as wide as it is tall (they were 320 × 107 px)."""
    from andrea_viz.i18n import set_language

    set_language(lang)
    try:
        emb = andrea_viz.load(trained_of(lang))
        ids = tuple(emb.tokenizer.encode(lexicon.order_sentence(lang)))
        height = lesson_plots.attention_height(len(ids), lesson_plots.ATTENTION_PRESENT - WORDS_PX)
        fig = for_projector(lesson_plots.attention_of(emb, ids, 0, present=True), height=height)
    finally:
        set_language("en")
    lay = fig.layout
    plot = plot_height(lay)
    assert plot / len(ids) >= PITCH
    width = lesson_plots.PRESENT_WIDTH - lay.margin.l - lay.margin.r
    for k, name in enumerate(("yaxis", "yaxis2", "yaxis3")):
        axis = lay[name]
        assert axis.showticklabels is not False and axis.dtick is None, (name, axis)
        assert len(fig.data[k].y) == len(ids) and len(set(fig.data[k].y)) == len(ids)
        x = lay["xaxis" + name[5:]]
        panel = (x.domain[1] - x.domain[0]) * width
        assert 0.6 <= panel / plot <= 1.6, (name, panel, plot)
        assert axis.tickfont.size >= PRESENT_FONT and x.tickfont.size >= PRESENT_FONT
    lefts = [lay["xaxis" + s].domain[0] for s in ("2", "3")]
    rights = [lay["xaxis" + s].domain[1] for s in ("", "2")]
    for a, b in zip(rights, lefts, strict=True):  # room between the grids for the next one's labels
        assert (b - a) * width >= 4 * PRESENT_FONT
    assert fig.layout.title.text is None and fig._andrea_words.title  # the chart's words keep the title


def test_step_5s_arrows_are_the_steps_picture():
    """The arrows were drawn in about 130 × 100 px beside a legend as wide as they were: on a projector each arrow
    is named at its tip, with no legend, in a plot at least 250 px high; u's and v's names stay apart at every
    angle of the slider."""
    fig = similarity_plots.arrows_at(1.0, 1.0, 60.0, True)
    big = for_projector(fig, height=similarity_plots.ARROWS_PRESENT - WORDS_PX)
    assert big.layout.showlegend is False
    assert plot_height(big.layout) >= 250
    names = {a.text for a in big.layout.annotations}
    assert {"<b>u</b>", "<b>v</b>"} <= names
    box = (tuple(big.layout.xaxis.range), tuple(big.layout.yaxis.range))
    (x0, x1), (y0, y1) = box
    # a unit arrow is about half the plot's height: the box is the half circle v sweeps, not ±|v| (0.38 of it)
    assert 1 / (y1 - y0) >= 0.45
    for theta in range(0, 181, 5):
        lay = similarity_plots.arrows_at(1.0, 1.0, float(theta), True).layout
        assert np.allclose([lay.xaxis.range, lay.yaxis.range], box, atol=1e-9)  # the picture does not jump as θ turns
        px = plot_height(big.layout) / (y1 - y0)  # px per unit: the axes keep one scale
        u, v = [np.array([a.x, a.y]) for a in lay.annotations[:2]]
        for x, y in (u, v):  # inside the plot
            assert x0 < x < x1 and y0 < y < y1, theta
        assert np.linalg.norm(u - v) * px >= PITCH, theta  # a line of text apart
    assert similarity_plots.arrows_at(1.0, 1.0, 60.0).layout.legend.orientation == "h"  # the page's own: a legend


def test_step_7s_negative_cosines_have_a_tick():
    """A bar at −0.129 lay left of 0 with no tick under it: the axis reaches the tick below the lowest value."""
    pairs = [Pair(a="cat", b="dog", pieces_a=("cat",), pieces_b=("dog",), cosine=0.7, dot=1.2),
             Pair(a="gato", b="terça-feira", pieces_a=("gato",), pieces_b=("terça",), cosine=-0.129, dot=-1.8)]
    axis = similarity_plots.quiz_reveal(pairs, [0.5, 0.5]).layout.xaxis
    ticks = list(axis.tickvals)
    assert axis.range[0] <= -0.129 and any(-0.129 >= t >= axis.range[0] for t in ticks), (axis.range, ticks)
    assert all(axis.range[0] <= t <= axis.range[1] for t in ticks) and 0.0 in ticks and 1.0 in ticks
    axis = similarity_plots.quiz_reveal(pairs[:1], [0.5]).layout.xaxis
    assert min(axis.tickvals) == 0.0  # no negative cosine: no negative ticks


def test_every_frame_of_the_turning_animation_keeps_the_bold_title():
    """Streamlit draws a chart's title bold by wrapping ``layout.title.text`` in <b>…</b>, not a frame's: while
    playing, each frame's title was regular. Each frame's title is bold itself and changes nothing else."""
    fig = similarity_plots.turning_animation()
    assert len(fig.frames) == 37
    for frame in fig.frames:
        title = frame.layout.title
        assert title.text.startswith("<b>θ = ") and title.text.endswith("</b>"), title.text
        assert title.to_plotly_json().keys() == {"text"}  # the layout's font, place and pad kept


@pytest.mark.parametrize("kind", ["learned", "sinusoidal"])
def test_step_9s_cosine_squares_are_large_with_their_colour_bar_beside(micro, kind):
    """The squares were 128 px, their colour bar at the column's far edge: at presenter mode's height the square
    is at least 240 px, and the chart only as wide as the square, its margins and its colour bar."""
    fig = position_plots.cosines_of(micro, kind)
    height = position_plots.COSINE_PRESENT - WORDS_PX
    lay = for_projector(fig, height=height).layout
    side = plot_height(lay)
    assert side >= 240
    width = position_plots.square_width(fig, height)
    assert width - lay.margin.l - lay.margin.r - side <= position_plots.COLOUR_BAR_PX
    assert width <= 600  # half of presenter mode's screen


def test_step_12s_rows_have_room_for_their_titles_and_ticks(micro):
    """The three rows were about 25 px each with only a "0" tick, and a bar reached into the next row's title: each
    row's title has a line of its own, each row at least two value ticks 25 px apart; the matrix x beside them
    names at least every other row."""
    height = position_plots.SUM_PRESENT - WORDS_PX
    fig = position_plots.sum_of(micro, 532, "learned", 2, height, True)
    big = for_projector(fig, height=height)
    lay = big.layout
    plot = plot_height(lay)
    assert lay.margin.t == fig.layout.margin.t  # laid out for the height it is drawn at
    axes = [lay.yaxis, lay.yaxis2, lay.yaxis3]
    for k, axis in enumerate(axes):
        lo, hi = axis.domain
        ticks = sorted(axis.tickvals)
        assert len(ticks) >= 2 and ticks[0] < 0 < ticks[-1]
        span = axis.range[1] - axis.range[0]
        assert (ticks[1] - ticks[0]) / span * (hi - lo) * plot >= PITCH
        note = lay.annotations[k]
        assert note.y == hi and note.yanchor == "bottom" and note.font.size >= PRESENT_FONT
        above = axes[k - 1].domain[0] if k else 1 + lay.margin.t / plot
        assert hi * plot + PITCH <= above * plot + 0.5, (k, hi, above)  # the title's line clear of the row above
    ids = tuple(micro.tokenizer.encode(lexicon.order_sentence("en")))
    x = for_projector(lesson_plots.x_heatmap(micro, ids, 2), height=height).layout.yaxis
    assert x.dtick is None or x.dtick <= 2


def test_the_path_ends_are_labelled_on_a_white_ground_away_from_the_path(micro):
    fig = position_plots.path_of(micro, "learned")
    coords = np.c_[fig.data[0].x, fig.data[0].y]
    centre = coords.mean(axis=0)
    for note in fig.layout.annotations:
        assert note.bgcolor and note.showarrow and (note.ax, note.ay) != (0, 0)
        at = np.array([note.x, note.y]) - centre
        assert at[0] * note.ax - at[1] * note.ay > 0  # the label outward from the path's middle (ay points down)


@pytest.mark.parametrize("name", ["andrea-micro", "andrea-micro-nl", "andrea-micro-pt-BR", "andrea-micro-zh-TW",
                                  "minilm-l6"])
def test_the_lowest_and_highest_position_lengths_are_labelled(name):
    """pt-BR's learned rows dip to 2.12 and zh-TW's to 2.01 while the log axis labelled only 3, 4 and 5: its lowest
    tick is now at most a little above the lowest length, and inside the axis."""
    fig = position_plots.position_norms_of(andrea_viz.load(name))
    lowest = min(float(np.min(t.y)) for t in fig.data)
    axis = fig.layout.yaxis
    assert axis.tickvals[0] <= 1.15 * lowest and np.log10(axis.tickvals[0]) >= axis.range[0]
    assert np.log10(max(float(np.max(t.y)) for t in fig.data)) <= axis.range[1]
    assert len(axis.ticktext) == len(axis.tickvals)
    # and the highest: MiniLM's sinusoidal rows (√192 = 13.9) ran along the top edge over a last label of 10,
    # andrea-micro's (√32 = 5.66) over one of 5
    highest = max(float(np.max(t.y)) for t in fig.data)
    assert axis.tickvals[-1] >= highest and np.log10(axis.tickvals[-1]) <= axis.range[1]


def test_step_9s_learned_square_names_its_model_and_both_squares_keep_one_size(micro):
    """Under "ANDREA-120M's position table: …" the learned square showed the grown micro run's table with no name:
    read as ANDREA-120M's. Its subtitle names the model; the sinusoidal square's says it is a formula, so that both
    titles take the same room and the squares are drawn the same size."""
    learned = position_plots.cosines_of(micro, "learned", "ANDREA-micro (trained in this app)")
    formula = position_plots.cosines_of(micro, "sinusoidal", "ANDREA-micro (trained in this app)")
    assert learned.layout.title.subtitle.text == "ANDREA-micro (trained in this app)"
    assert formula.layout.title.subtitle.text == "a formula, of the same size"
    assert learned.layout.margin.t == formula.layout.margin.t
    assert not position_plots.cosines_of(micro, "learned").layout.title.subtitle.text  # the Positions page's own
