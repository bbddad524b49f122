"""Every chart builder says what its figure shows and its main numbers (plots/words.py ``with_words``), never the
generic words read from the figure's data: each figure is built here from real rows of andrea-micro (or from the
plain values a page hands it), its main numbers are recomputed in this file by plain Python loops from the same
inputs, and the summary must hold them, written the reader's way: in English (0.812, 35,648) and in Dutch (0,812,
35.648), where the sentence itself is Dutch too."""

import math

import numpy as np
import pytest

from andrea_viz.lesson.angles import plane_pair
from andrea_viz.classroom.answers import Grid
from andrea_viz.family import FAMILY, count_shape
from andrea_viz.i18n import set_language, translate
from andrea_viz.lesson import attention_preview, x_matrix
from andrea_viz.lookup import value_stats
from andrea_viz.plots import anatomy, classroom, compare, lesson, lookup, neighbours, positions, similarity, sizing
from andrea_viz.plots import timeline
from andrea_viz.plots.words import words_of
from andrea_viz.lesson.quiz import Pair

LANGS = ("en", "nl")


def say(x: float, spec: str, lang: str) -> str:
    """``x`` as the reader reads it, by Python's own formatting: Dutch swaps the decimal point and the group comma."""
    text = format(x, spec)
    return text.translate(str.maketrans(",.", ".,")) if lang == "nl" else text


def median(values) -> float:
    s = sorted(float(v) for v in values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def length(row) -> float:
    return math.sqrt(sum(float(v) * float(v) for v in row))


@pytest.fixture(scope="module")
def micro(load_model):
    return load_model("andrea-micro")


def said(build, lang: str):
    """The words of the figure ``build()`` makes with the reader's language set to ``lang``."""
    set_language(lang)
    try:
        return words_of(build())
    finally:
        set_language("en")


def check(build, numbers, english_start: str):
    """In both languages: the builder's own words (not the generic ones), holding every one of ``numbers``
    ((value, spec) pairs, formatted here); the English summary starts with ``english_start``, the Dutch one
    differs from it."""
    texts = {}
    for lang in LANGS:
        w = said(build, lang)
        assert not w.summary.startswith(("Chart: ", "A chart.", "Grafiek: ", "Een grafiek.")), w.summary
        for value, spec in numbers:
            assert say(value, spec, lang) in w.summary, (lang, say(value, spec, lang), w.summary)
        texts[lang] = w
    assert texts["en"].summary.startswith(english_start), texts["en"].summary
    assert texts["nl"].summary != texts["en"].summary
    return texts


# --- the Lookup table page ---
def test_the_overview_says_the_tables_shape_and_the_range_of_its_cells(micro):
    V, d = micro.token_table.shape
    avg, rb, cb = lookup.block_average(micro.token_table, *lookup.OVERVIEW_CELLS)
    cells = [float(v) for v in np.asarray(avg).ravel()]
    check(lambda: lookup.overview_of(micro, 7), [(V, ","), (d, ","), (min(cells), ".4f"), (max(cells), ".4f"), (7, ",")],
          f"The whole token table, {V:,} rows by {d:,} columns")


def test_the_window_says_its_rows_and_their_values_and_tables_each_rows_length(micro):
    rows = micro.token_table[10:18]
    flat = [float(v) for r in rows for v in r]
    w = check(lambda: lookup.window_of(micro, 10, 8, 12), [(min(flat), ".4f"), (max(flat), ".4f"), (12, ",")],
              "Rows 10 to 17 of the table")
    assert w["nl"].table["token"] == [micro.token(i) for i in range(10, 18)]
    assert w["nl"].table["rijlengte ‖v‖"] == [say(length(r), ".4f", "nl") for r in rows]


def test_the_row_says_its_smallest_and_largest_value_where_they_are_and_its_length(micro):
    row = [float(v) for v in micro.token_table[532]]
    lo = min(range(len(row)), key=lambda i: row[i])
    hi = max(range(len(row)), key=lambda i: row[i])
    w = check(lambda: lookup.row_of(micro, 532), [(row[lo], ".4f"), (row[hi], ".4f"), (length(row), ".4f"),
                                                   (sum(v > 0 for v in row), ",")], "Row 532 (“")
    assert f"dimension {lo} " in w["en"].summary and f"dimensie {hi};" in w["nl"].summary


def test_the_values_histogram_says_the_mean_and_spread_of_every_entry_and_the_inits(micro):
    flat = [float(v) for v in micro.token_table.ravel()]
    mean = sum(flat) / len(flat)
    std = math.sqrt(sum((v - mean) ** 2 for v in flat) / len(flat))
    init = micro.card.get("init_std")
    check(lambda: lookup.values_of(micro, True), [(mean, "+.4f"), (std, ".4f"), (init, ".4f")], "The table's entries")


def test_the_lengths_histogram_says_the_median_and_the_ends(micro):
    lengths = [length(r) for r in micro.token_table]
    check(lambda: lookup.norms_of(micro), [(len(lengths), ","), (median(lengths), ".3f"), (min(lengths), ".3f"),
                                            (max(lengths), ".3f")], "The length of each of the")


# --- Dot products ---
@pytest.mark.parametrize("len_u, len_v, theta", [(1.0, 1.5, 60.0), (2.0, 1.0, 135.0)])
def test_the_arrows_say_both_lengths_the_angle_the_cosine_and_the_dot_product(len_u, len_v, theta):
    cos = math.cos(math.radians(theta))
    check(lambda: similarity.arrows(plane_pair(len_u, len_v, theta)),
          [(len_u, ".2f"), (len_v, ".2f"), (theta, ".0f"), (cos, "+.3f"), (len_u * len_v * cos, "+.3f")],
          "Two arrows from the origin")


def test_the_turning_animation_says_the_dot_product_at_both_ends_and_tables_the_angles():
    w = check(lambda: similarity.turning_animation(2.0, 1.5), [(3.0, "+.2f"), (-3.0, "+.2f")], "On the left, u stays")
    assert w["nl"].table["u·v"][2] == say(3.0 * math.cos(math.radians(60)), "+.3f", "nl")  # 60°: half of 3
    # named for the whole animation: its first frame's title ("θ = 0°: u·v = +3.00") read as the state while it played
    assert w["en"].title == "u fixed, v turning" and w["nl"].title == translate("u fixed, v turning", "nl")
    # the three cases' words clear of the axis at 0° (its top tick "2" touched "同方向") and of the edge at 180°
    cases = {a.text: a for a in similarity.turning_animation(2.0, 1.5).layout.annotations if a.xref == "x2"}
    assert (cases["same direction"].xanchor, cases["opposite"].xanchor) == ("left", "right")
    assert cases["same direction"].xshift > 0 > cases["opposite"].xshift and not cases["perpendicular"].xshift


def test_the_products_say_how_many_are_positive_their_sum_and_the_largest(micro):
    u = [float(v) for v in micro.token_table[micro.tokenizer.lookup("cat")[0]]]
    v = [float(x) for x in micro.token_table[micro.tokenizer.lookup("dog")[0]]]
    prod = [a * b for a, b in zip(u, v, strict=True)]
    top = max(range(len(prod)), key=lambda i: abs(prod[i]))
    check(lambda: similarity.products_of(micro, "cat", "dog"),
          [(sum(prod), "+.4f"), (prod[top], "+.4f"), (sum(p > 0 for p in prod), ","), (sum(p < 0 for p in prod), ",")],
          "The 64 products u_i·v_i of “cat” and “dog”")


def test_the_quiz_reveal_says_the_guess_furthest_off_and_tables_every_pair():
    pairs = [Pair("cat", "dog", ("cat",), ("dog",), 0.636, 9.2), Pair("cat", "tuesday", ("cat",), ("tuesday",), 0.132, 1.8)]
    w = check(lambda: similarity.quiz_reveal(pairs, [0.6, 0.9]), [(0.9, ".2f"), (0.132, ".3f")], "Your guess beside")
    assert "cat / tuesday" in w["en"].summary
    assert w["nl"].table["echte cosinus"] == ["0,636", "0,132"]


# --- Neighbours ---
def test_the_input_output_histogram_says_the_median_and_the_ends():
    cos = np.array([0.5, -0.25, 0.125, 0.75, -0.5])
    check(lambda: neighbours.input_output_histogram(cos), [(0.125, "+.3f"), (-0.5, "+.3f"), (0.75, "+.3f"), (5, ",")],
          "The cosine between each token's input row")


# --- Positions, the Forward pass, the Lesson ---
def test_the_sum_says_the_three_lengths(micro):
    tok = [float(v) for v in micro.token_table[532]]
    pos = [float(v) for v in micro.position_table[3]]
    x = [a + b for a, b in zip(tok, pos, strict=True)]
    check(lambda: positions.sum_of(micro, 532, "learned", 3), [(length(tok), ".3f"), (length(pos), ".3f"),
                                                                  (length(x), ".3f")], "Three rows of 64 bars")


def test_the_position_table_says_its_size_and_range(micro):
    T = micro.position_table
    flat = [float(v) for v in T.ravel()]
    check(lambda: positions.position_table_figure(micro, "learned"),
          [(T.shape[0], ","), (min(flat), ".3f"), (max(flat), ".3f"), (length(T[0]), ".3f"), (length(T[-1]), ".3f")],
          f"{T.shape[0]:,} positions down the side")


def test_the_position_cosines_say_the_lowest_and_the_neighbours(micro):
    T = micro.position_table
    cos = [[sum(float(a) * float(b) for a, b in zip(T[i], T[j], strict=True)) / (length(T[i]) * length(T[j]))
            for j in range(len(T))] for i in range(len(T))]
    adjacent = sum(cos[i][i + 1] for i in range(len(T) - 1)) / (len(T) - 1)
    check(lambda: positions.cosines_of(micro, "learned"),
          [(min(min(r) for r in cos), "+.3f"), (adjacent, "+.3f"), (cos[0][-1], "+.3f")], "The cosine between every two")


def test_the_position_path_says_the_variance_kept(micro):
    T = micro.position_table.astype(np.float64)
    c = T - T.mean(axis=0)
    ev = sorted(np.linalg.eigvalsh(c.T @ c), reverse=True)  # PCA by the covariance's eigenvalues, not an SVD
    check(lambda: positions.path_of(micro, "learned"), [(ev[0] / sum(ev), ".1%"), (ev[1] / sum(ev), ".1%")],
          f"Positions 0 to {len(T) - 1}")


def test_the_position_lengths_say_the_sinusoidal_and_the_learned(micro):
    learned = [length(r) for r in micro.position_table]
    check(lambda: positions.position_norms_of(micro),
          [(math.sqrt(micro.d_model / 2), ".3f"), (min(learned), ".3f"), (max(learned), ".3f"), (median(learned), ".3f")],
          "Every sinusoidal row")


def test_rope_says_the_offset_and_the_one_score_every_pair_gets():
    q, k, theta, offset = positions.ROPE_Q, positions.ROPE_K, 0.5, 2

    def turned(v, angle):
        return (v[0] * math.cos(angle) - v[1] * math.sin(angle), v[0] * math.sin(angle) + v[1] * math.cos(angle))

    a, b = turned(q, offset * theta), turned(k, 0.0)
    score = a[0] * b[0] + a[1] * b[1]
    w = check(lambda: positions.rope_of(offset, theta), [(score, ",.6f")], "q rotated by m·θ and k by n·θ")
    assert w["nl"].table["m − n"] == ["2", "2", "2"]


def test_a_forward_pass_heatmap_says_its_rows_and_tables_each_tokens_length(micro):
    x = micro.token_table[[5, 6, 7]]
    labels = ["a", "b", "c"]
    flat = [float(v) for v in x.ravel()]
    w = check(lambda: positions.matrix_heatmap(x, labels, "T"), [(min(flat), ".3f"), (max(flat), ".3f")],
              "3 rows, one per token, of 64 numbers each")
    assert w["en"].table["row length ‖v‖"] == [f"{length(r):.3f}" for r in x]


def test_the_lessons_rows_say_the_ids_and_the_range(micro):
    rows = micro.token_table[[3, 17, 532]]
    flat = [float(v) for v in rows.ravel()]
    w = check(lambda: lesson.rows_heatmap(micro, (3, 17, 532)), [(min(flat), ".4f"), (max(flat), ".4f")],
              "The ids 3, 17, 532 pick 3 rows")
    assert w["en"].table["id"] == ["3", "17", "532"]


def test_the_lessons_ids_are_written_as_its_title_lists_them_in_every_language(load_model):
    """Ids in a list carry no thousands mark: "The ids 256, 1,842, 7,301" read as five numbers; the heatmap's rows
    say "row 1842" as the title's [256, 1842, 7301] does, in each language."""
    from andrea_viz.lesson import EXAMPLE_IDS

    emb = load_model("andrea-120m-init")
    assert any(i >= 1_000 for i in EXAMPLE_IDS)
    listed = ", ".join(map(str, EXAMPLE_IDS))
    for lang, row in (("en", "row"), ("nl", "rij"), ("pt-BR", "linha")):
        set_language(lang)
        try:
            fig = lesson.rows_heatmap(emb, EXAMPLE_IDS)
        finally:
            set_language("en")
        assert list(fig.data[0].y) == [f"{row} {i}" for i in EXAMPLE_IDS], lang
        assert list(fig.layout.yaxis.tickvals) == list(fig.data[0].y), lang  # every row named, on a projector too
        assert f"[{listed}]" in fig.layout.title.text, lang
        assert listed in said(lambda: lesson.rows_heatmap(emb, EXAMPLE_IDS), lang).summary, lang


def test_the_lessons_x_says_its_shape_and_the_outlined_position(micro):
    ids = (532, 5, 7, 9)
    x = [[float(a) + float(b) for a, b in zip(micro.token_table[i], micro.position_table[t], strict=True)]
         for t, i in enumerate(ids)]
    flat = [v for r in x for v in r]
    assert np.allclose(x_matrix(micro, ids), x, atol=1e-5)  # x is token row + position row, as this test reads it
    w = check(lambda: lesson.x_heatmap(micro, ids, 2), [(min(flat), ".3f"), (max(flat), ".3f")],
              "x as a heatmap: one row per position, 4 rows of 64 numbers")
    assert "position 2," in w["en"].summary
    assert w["en"].table["row length ‖v‖"] == [f"{length(r):.3f}" for r in x]


def test_the_attention_says_the_mask_and_where_the_last_position_looks(micro):
    ids = (532, 5, 7, 9)
    a = attention_preview(micro, ids, 0)
    last = list(a.weights[-1])
    j = max(range(len(last)), key=lambda i: last[i])
    w = check(lambda: lesson.attention_of(micro, ids, 0), [(10, ","), (16, ","), (last[j], ".2f")],
              f"Head 1 of {a.heads} on 4 positions")
    assert f"to position {j}," in w["en"].summary


# --- Anatomy ---
def test_the_scores_histogram_says_how_many_rows_reach_the_threshold():
    scores = np.array([0.1, 0.5, 0.9, 0.95, 0.2])
    marked = np.array([False, False, True, False, True])
    check(lambda: anatomy.scores_histogram(scores, 0.8, marked, "reference rows", "other rows", "S"),
          [(5, ","), (0.8, ".3f"), (0.1, ".3f"), (0.95, ".3f")], "The under-trained score of each of 5 rows")
    w = said(lambda: anatomy.scores_histogram(scores, 0.8, marked, "reference rows", "other rows", "S"), "en")
    assert "2 rows are at or above" in w.summary and "reference rows: 2 rows, 1 of them" in w.summary


def test_the_dimension_parts_say_their_sum_and_the_tops_share():
    parts = np.array([0.001, 0.004, -0.0005, 0.002, 0.0005])
    total = sum(float(p) for p in parts)
    w = check(lambda: anatomy.dimension_parts(parts, (1, 3), "T"),
              [(total, "+.4f"), (0.004, "+.5f"), ((0.004 + 0.002) / total, ".0%")], "5 bars, one per dimension")
    assert w["en"].table["dimension"] == ["1", "3"]


def test_the_marked_overview_says_the_flagged_rows_and_the_top_dimensions(micro):
    from andrea_viz.anatomy.dims import stats_of
    from andrea_viz.anatomy.report import undertrained_of

    flagged = undertrained_of(micro, None).ranked.flagged.size
    top = stats_of(micro).top(3)
    w = check(lambda: anatomy.marked_overview_of(micro, None, 3), [(flagged, ",")], "The whole 557 × 64 token table")
    assert ", ".join(str(i) for i in top) in w["en"].summary


# --- Sizing ---
def test_the_treemap_says_every_part_its_count_and_its_share():
    pc = count_shape(FAMILY["ANDREA-120M"])
    parts = [("token table", pc.token), ("position table", pc.position), ("output table", pc.output),
             ("attention (wq, wk, wv, wo)", pc.attention), ("MLP (fc1, fc2)", pc.mlp)]
    numbers = [(pc.total, ",")] + [(n, ",") for _name, n in parts if n] + [(n / pc.total, ".1%") for _n, n in parts if n]
    w = check(lambda: sizing.params_treemap(pc, "T"), numbers, f"The model's {pc.total:,} parameters as areas")
    assert w["en"].table["part"] == [name for name, n in parts if n]


# --- Grow, Checkpoint ---
def test_the_loss_curve_says_the_first_last_and_lowest_loss():
    losses = [5.5, 4.25, 3.5, 3.75]
    w = check(lambda: timeline.loss_curve(losses, 10, [2]), [(5.5, ".3f"), (3.75, ".3f"), (3.5, ".3f")],
              "The training loss at each of 4 steps of 10 planned")
    assert "at step 3." in w["en"].summary


def test_the_pair_series_tables_each_pair_at_the_first_chosen_and_last_step():
    w = check(lambda: timeline.pair_series([0, 300, 600], {("cat", "dog"): [0.05, 0.5, 0.8125]}, 300),
              [(300, ","), (600, ",")], "The cosine of each word pair")
    assert w["nl"].table["bij stap 300"] == ["+0,500"] and w["en"].table["at step 600"] == ["+0.812"]


def test_the_class_map_says_each_class_and_tables_the_words_where_they_are():
    coords = np.array([[[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]], [[0.5, -0.25], [1.5, 1.25], [-2.0, 0.75]]])
    w = check(lambda: timeline.class_map(coords, [0, 600], ["cat", "dog", "red"], ["animals", "animals", "colours"],
                                         np.array([0.5, 0.25]), 600), [(600, ",")], "3 class words (animals: 2 words")
    assert w["nl"].table["PC1"] == ["0,50", "1,50", "-2,00"]



def test_the_class_maps_labels_at_each_step_overlap_none_and_every_word_keeps_its_hover():
    """Grow's class map drew every word's label, and a trained run's classes clumped into blots of text: at each step
    only labels whose boxes overlap none already placed are written, by the map labels' own rule (kept_apart)."""
    from andrea_viz.plots.style import WORD_PX, kept_apart
    from andrea_viz.plots.timeline import CLASS_MAP_AREA

    rng = np.random.default_rng(0)
    words = [f"word{i}" for i in range(24)]
    spread = rng.uniform(-3, 3, size=(24, 2))  # step 0: far apart
    clump = np.vstack([rng.normal(0, 0.05, size=(12, 2)), rng.uniform(-3, 3, size=(12, 2))])  # the last: 12 in a blot
    coords = np.stack([spread, clump])
    fig = timeline.class_map(coords, [0, 600], words, ["a"] * 12 + ["b"] * 12, np.array([0.5, 0.25]), 600)
    for frame, at in zip(fig.frames, coords, strict=True):
        points = [t for t in frame.data if t.mode == "markers"]
        assert sorted(str(c) for tr in points for c in tr.customdata) == sorted(words)  # every word in a hover
        (written,) = [t for t in frame.data if t.mode == "markers+text"]
        # the words are drawn over every class's markers: their trace comes after all of them
        assert list(frame.data).index(written) > max(list(frame.data).index(t) for t in points)
        assert written.hoverinfo == "skip" and written.showlegend is False and written.marker.opacity == 0
        lim = float(np.abs(coords).max()) * 1.1
        want = {words[i] for i in kept_apart([(x, y, w) for (x, y), w in zip(at, words, strict=True)],
                                             np.array([[-lim, -lim], [lim, lim]]), CLASS_MAP_AREA, font=WORD_PX,
                                             equal=True)}
        assert set(written.text) == want
        for x, y, w in zip(written.x, written.y, written.text, strict=True):  # each word over its own point
            assert (x, y) == tuple(at[words.index(w)])
    last = {str(t) for tr in fig.frames[1].data if tr.mode == "markers+text" for t in tr.text}
    assert len(last & set(words[:12])) <= 3 and len({str(t) for tr in fig.frames[0].data if tr.mode == "markers+text"
                                                      for t in tr.text}) >= 16

# --- Compare ---
def test_the_drift_histogram_says_the_median_and_the_largest():
    drift = np.array([0.125, 0.75, 0.25, np.nan, 0.5])
    check(lambda: compare.drift_histogram(drift, "procrustes"), [(4, ","), ((0.25 + 0.5) / 2, ".3f"), (0.75, ".3f")],
          "How far each of 4 tokens moved")


def test_the_arrows_map_says_the_longest_arrow():
    a = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
    b = np.array([[3.0, 4.0], [1.0, 2.0], [2.0, 0.5]])
    w = check(lambda: compare.arrows_map(a, b, ["cat", "dog", "red"], ["most", "least", "least"], np.array([0.5, 0.25])),
              [(5.0, ".2f")], "3 tokens, each an arrow")
    assert "“cat”" in w["en"].summary and w["en"].table["arrow length"] == ["5.000", "1.000", "0.500"]



def test_every_arrowhead_points_from_its_token_in_a_to_it_in_b_the_first_too():
    """Plotly turned each head toward the point before it in its trace ("previous"): the first head, the token that
    moved most, had none to turn to and was drawn without one. Each head now has its own compass angle."""
    a = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [5.0, 5.0], [2.0, 2.0]])
    b = np.array([[0.0, 3.0], [4.0, 1.0], [0.0, -2.0], [3.5, 5.0], [2.0, 2.0]])  # up, right, down, left, no length
    fig = compare.arrows_map(a, b, ["up", "right", "down", "left", "still"], ["most"] * 4 + ["least"],
                             np.array([0.5, 0.25]))
    heads = {t.name: t for t in fig.data if t.mode == "markers" and t.name}
    most, least = heads["moved most"], heads["moved least"]
    assert most.marker.angleref == "up" and [x % 360 for x in most.marker.angle] == [0.0, 90.0, 180.0, 270.0]  # plotly writes 180 as -180
    assert list(least.marker.angle) == [0.0]
    for k, i in enumerate(range(4)):  # the same as the slow way: the angle whose sine and cosine are dx and dy
        dx, dy = b[i] - a[i]
        t = np.radians(most.marker.angle[k])
        assert np.allclose([np.sin(t), np.cos(t)], np.array([dx, dy]) / np.hypot(dx, dy))

# --- Class ---
def test_the_misconception_grid_says_the_most_common_mistake():
    grid = Grid([("cat", "dog"), ("cat", "tuesday")], np.array([[0, 1], [3, 0]]), np.full((2, 2), 4), 4)
    w = check(lambda: classroom.grid_heatmap(grid, ["cat–dog", "cat–tuesday"]), [(4, ","), (3, ",")],
              "4 learners ordered 2 word pairs")
    assert "cat–tuesday above cat–dog, by 3 learners" in w["en"].summary


def test_values_stats_here_are_the_pages_own():
    """The values histogram's words read the same ValueStats the figure draws."""
    stats = value_stats(np.arange(12.0).reshape(3, 4), 0.5)
    w = said(lambda: lookup.value_histogram(stats, 4), "en")
    assert "12 values" in w.summary and "the mean is +5.5000" in w.summary


def test_the_projectors_copy_keeps_the_figures_own_words(micro):
    """Presenter mode draws plots.style.for_projector's copy of a figure: the copy says what the figure says."""
    from andrea_viz.plots.style import for_projector

    fig = lookup.norms_of(micro)
    big = for_projector(fig)
    assert big is not fig and words_of(big) == words_of(fig)
    assert words_of(big).summary.startswith("The length of each of the 557 rows")
