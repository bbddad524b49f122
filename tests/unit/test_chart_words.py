"""Every figure has words (plots/words.py): its builder's summary and table where it gives them, else a summary read
from the figure's own data, in the reader's language; and every chart of the app is drawn through the one helper
that shows them (ui/charts.py)."""

import re
from pathlib import Path

import numpy as np
import plotly.graph_objects as go

from andrea_viz.i18n import set_language
from andrea_viz.plots.neighbours import neighbours_of
from andrea_viz.plots.projection import projection_scatter
from andrea_viz.plots.words import MAX_ROWS, words_of
from andrea_viz.maps.project import project_model

ROOT = Path(__file__).resolve().parents[2]


def test_the_neighbour_bars_say_their_ranking_as_a_slow_cosine_loop_finds_it(minilm):
    dog = minilm.tokenizer.lookup("dog")[0]
    X = minilm.token_table.astype(np.float64)
    v = X[dog] / np.linalg.norm(X[dog])
    cos = [(-float(X[i] @ v / np.linalg.norm(X[i])), i) for i in range(minilm.vocab_size) if i != dog]
    top = [i for _c, i in sorted(cos)[:10]]
    words = words_of(neighbours_of(minilm, "dog", 10, "cosine", False))
    assert words.table["token"] == [minilm.token(i) for i in top]
    assert words.table["id"] == [str(i) for i in top]  # ids are names: ungrouped
    best, worst = -sorted(cos)[0][0], -sorted(cos)[9][0]
    assert words.summary == (f"The 10 nearest tokens to “dog”, nearest first, by cosine similarity (higher is closer): "
                             f"from {minilm.token(top[0])} at {best:.3f} to {minilm.token(top[9])} at {worst:.3f}.")
    set_language("nl")
    try:
        nl = words_of(neighbours_of(minilm, "dog", 10, "cosine", False))
    finally:
        set_language("en")
    assert f"{best:.3f}".replace(".", ",") in nl.summary and nl.summary != words.summary
    assert list(nl.table)[:2] == ["token", "id"]  # as the pages' own tables name them


def test_a_figure_without_words_of_its_own_is_read_from_its_data():
    fig = go.Figure(go.Bar(x=["a", "b", "c"], y=[3.0, 1.25, 2.0], name="s"), layout={"title": {"text": "T <b>x</b>"}})
    fig.add_trace(go.Heatmap(z=np.arange(12.0).reshape(3, 4), name="h"))
    fig.add_trace(go.Scatter(x=np.arange(40.0), y=np.arange(40.0) ** 2, text=[f"w{i}" for i in range(40)], name="p"))
    w = words_of(fig)
    assert w.title == "T x"
    assert w.summary == ("Chart: T x. s: 3 bars from 1.250 to 3, the largest at a. h: a grid of 3 × 4 values from 0 "
                         "to 11. p: 40 points, across from 0 to 39, up from 0 to 1,521; the last at 39 across, 1,521 up.")
    assert w.table["Series"] == ["s"] * 3 + ["p"] * MAX_ROWS  # the heatmap's 12 values are said, not tabled
    assert w.table["Label"][:4] == ["a", "b", "c", "w0"] and w.table["Value"][:3] == ["3", "1.250", "2"]
    assert w.table["Value"][5] == "2 across, 4 up" and w.note == f"The first {MAX_ROWS} values of each series."
    set_language("zh-TW")
    try:
        zh = words_of(fig)
    finally:
        set_language("en")
    assert zh.summary.startswith("圖表：T x。") and list(zh.table) == ["資料系列", "標籤", "數值"]


def test_every_chart_of_the_app_goes_through_the_helper_that_gives_it_words():
    """No st.plotly_chart outside ui/charts.py (the benchmark's own app, which draws one chart to time it, aside)."""
    found = []
    for p in [*ROOT.joinpath("pages").glob("*.py"), ROOT / "home.py", *ROOT.joinpath("andrea_viz").rglob("*.py")]:
        if p.name in ("charts.py", "bench_map_app.py"):
            continue
        found += [f"{p.relative_to(ROOT)}:{n}" for n, line in enumerate(p.read_text().splitlines(), 1)
                  if re.search(r"\.plotly_chart\(", line)]
    assert found == []


def test_a_map_says_its_size_its_trust_and_the_chosen_tokens_nearest(minilm):
    r = project_model(minilm, "pca", n=500, include=("dog",), seed=0)
    dog = r.position_of("dog")
    lines = r.true_nearest(minilm, dog)
    words = words_of(projection_scatter(r.projection, r.sample, r.tokens, r.trust, "PCA", lines_from=dog,
                                        lines_to=lines))
    mean = float(np.nanmean(r.trust))
    assert words.summary.startswith(f"PCA: 500 tokens in 2 dimensions; on average {mean:.0%} of each point's 10 nearest")
    X = minilm.token_table[r.sample.ids].astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    cos = [(-float(X[j] @ X[dog]), j) for j in range(len(X)) if j != dog]  # the slow reference: every cosine
    nearest = [j for _c, j in sorted(cos)[:10]]
    assert words.table["token"] == [r.tokens[j] for j in nearest]
    assert f"Lines join dog to its true 10 nearest; the nearest is {r.tokens[nearest[0]]}." in words.summary
    assert words.table["neighbours kept"] == [f"{r.trust[j]:.0%}" for j in nearest]
