"""The fine-tune audit over the corpus of pairs in tests/audit_pairs.py (made by transformers' own code): every failure
pair detected right, no finding on a clean pair, and the init method right on at least 95% of the added rows."""

from __future__ import annotations

from collections import Counter

import pytest

import numpy as np

from andrea_viz.audit import AUDIT_KEYS, audit_checkpoints, copy_sources, nearest_rows, table_stats, wide
from tests.audit_pairs import KEEPS, SPECS, Corpus

FAILURES = [s.name for s in SPECS if s.mode != "clean"]
CLEAN = [s.name for s in SPECS if s.mode == "clean"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return Corpus(tmp_path_factory.mktemp("audit_corpus"))


@pytest.fixture(scope="module")
def audits(corpus):
    """name -> the audit's JSON-ready dict, each pair audited once."""
    cache: dict[str, dict] = {}

    def get(name: str) -> dict:
        if name not in cache:
            p = corpus.pair(name)
            cache[name] = audit_checkpoints(p.base, p.tuned, init=p.step0)
        return cache[name]
    return get


def test_the_corpus_has_30_failure_pairs_of_10_modes_and_20_clean_pairs():
    modes = Counter(s.mode for s in SPECS if s.mode != "clean")
    assert len(FAILURES) >= 30 and len(modes) >= 10 and len(CLEAN) >= 20, (len(FAILURES), modes, len(CLEAN))
    assert len({s.name for s in SPECS}) == len(SPECS)


def _findings(r: dict) -> dict[str, int]:
    return {k: len(v) for k, v in r.items() if k != "tie" and v}


@pytest.mark.parametrize("name", FAILURES)
def test_each_failure_pair_is_detected_right(audits, corpus, name):
    r = audits(name)
    e = corpus.specs[name].expect
    assert tuple(r) == AUDIT_KEYS
    assert _findings(r) == e.findings
    if e.moved:
        assert tuple(x["moved"] for x in r["added_rows"]) == e.moved
    if e.tie is None:
        assert r["tie"]["config"] == r["tie"]["bytes"] and {k: r["tie"][k] for k in KEEPS} == KEEPS
    else:
        assert r["tie"] == e.tie


@pytest.mark.parametrize("name", CLEAN)
def test_a_clean_pair_has_no_finding_and_a_consistent_tie(audits, name):
    r = audits(name)
    assert _findings(r) == {}, {k: r[k][:3] for k in _findings(r)}
    assert r["tie"]["config"] == r["tie"]["bytes"] and {k: r["tie"][k] for k in KEEPS} == KEEPS


def test_the_init_method_is_right_on_at_least_95_percent_of_added_rows(audits, corpus):
    right = total = 0
    wrong = []
    for name in FAILURES:
        want = corpus.specs[name].expect.init
        got = tuple(x["init"] for x in audits(name)["added_rows"])
        if not want:
            continue
        assert len(got) == len(want), name
        total += len(want)
        right += sum(a == b for a, b in zip(got, want, strict=True))
        wrong += [(name, a, b) for a, b in zip(got, want, strict=True) if a != b]
    assert total >= 80
    assert right / total >= 0.95, wrong
    assert {i for s in SPECS for i in s.expect.init} >= {"zeros", "mean", "mvn", "copy", "description_mean", "normal"}


@pytest.mark.parametrize("dtype", [np.float32, "bfloat16"])
def test_copy_sources_on_wide_tables_agree_with_the_full_nearest_search(dtype):
    import ml_dtypes

    rng = np.random.default_rng(5)
    table = rng.normal(0, 0.02, (3_000, 256)).astype(ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype)
    table[1_234] = table[17]  # two equal rows: the first is named
    s = table_stats(table, 0.02)
    wide = np.asarray(table, np.float64)
    rows = np.stack([wide[5], wide[2_999], wide[17], rng.normal(0, 0.02, 256), wide.mean(0)])
    got = copy_sources(rows, s)
    assert list(got[:3]) == [5, 2_999, 17]
    assert list(got[:3]) == list(nearest_rows(rows[:3], table))  # the slow, full search
    for j in (3, 4):  # no copy: whatever row comes back is not equal to it
        assert not np.allclose(rows[j], wide[got[j]], atol=1e-4)


def test_wide_reads_bfloat16_by_its_bits_exactly_as_a_cast_does():
    import ml_dtypes

    rng = np.random.default_rng(6)
    x = np.concatenate([rng.normal(0, 0.02, 4_998), [0.0, -0.0, 1e-40, -3.5e38, np.inf, -np.inf]])
    b = x.astype(ml_dtypes.bfloat16).reshape(-1, 6)
    np.testing.assert_array_equal(wide(b), b.astype(np.float32))  # the slow, general cast
    np.testing.assert_array_equal(wide(b[:, :3]), b[:, :3].astype(np.float32))  # a column slice, not contiguous
    f = rng.normal(size=(4, 3)).astype(np.float16)
    assert wide(f).dtype == np.float32 and np.array_equal(wide(f), f.astype(np.float32))
