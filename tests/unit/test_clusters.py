"""Clusters found in d dimensions and labels true of their tokens: hand-made tables, andrea-micro, MiniLM."""

import json

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from andrea_viz.maps.clusters import (
    BYTES, CAPITALISED, DIGITS, LOWER, NOISE, PIECE, PUNCTUATION, SINGLE, SPACE, SPECIAL, UPPER, cluster_ids,
    medoid_order, neighbour_graph, shared_traits, traits,
)
from andrea_viz import lexicon
from andrea_viz.geometry import nearest, resolve_ids, unit_rows
from andrea_viz.grow.corpus import WORD_CLASSES
from andrea_viz.model import Embeddings, Provenance
from andrea_viz.maps.sample import group_ids
from andrea_viz.tokenizer.vocab_txt import VocabTokenizer


@pytest.mark.parametrize("token, expected", [
    ("##ing", {PIECE, LOWER, ("script", "LATIN")}),
    ("Ġthe", {SPACE, LOWER, ("script", "LATIN")}),
    ("▁Paris", {SPACE, CAPITALISED, ("script", "LATIN")}),
    ("NASA", {UPPER, ("script", "LATIN")}),
    ("1984", {DIGITS}),
    ("##9", {PIECE, DIGITS, SINGLE}),
    ("?!", {PUNCTUATION}),
    ("€", {PUNCTUATION, SINGLE}),
    ("<0xFA>", {BYTES}),
    ("caf\ufffd", {BYTES}),
    ("[unused3]", {SPECIAL}),
    ("<BOS>", {SPECIAL}),
    ("москва", {LOWER, ("script", "CYRILLIC")}),
    ("東京", {("script", "CJK")}),
    ("a", {LOWER, SINGLE, ("script", "LATIN")}),
    ("Ab1", {CAPITALISED, ("script", "LATIN")}),
])
def test_traits_of_one_token(token, expected):
    assert traits(token) == expected


def test_a_word_class_replaces_case_and_script_and_is_only_read_for_grown_models():
    words = ["cat", "dog", "horse", "cow", "mouse"]
    assert [str(m) for m in shared_traits(words, word_classes=True)] == ["word class: animals"]
    assert [str(m) for m in shared_traits(words)] == ["Latin script", "lower case"]
    assert [str(m) for m in shared_traits(words, usual={LOWER, ("script", "LATIN")})] == []


def test_a_trait_names_a_cluster_from_80_percent_of_its_tokens():
    assert [str(m) for m in shared_traits(["1", "2", "3", "4", "x"])] == ["digits", "single characters"]
    assert "digits" not in [str(m) for m in shared_traits(["1", "2", "3", "y", "x"])]


DIMS = 32
GROUPS = {
    "cyrillic": ["москва", "город", "река", "дом", "книга", "окно", "улица", "школа", "мост", "лес", "поле", "море"],
    "pieces": ["##ing", "##ed", "##er", "##ly", "##est", "##ness", "##ment", "##ful", "##less", "##ous", "##ive", "##al"],
    "digits": [str(n) for n in (1, 7, 12, 42, 99, 100, 256, 1984, 2024, 31, 64, 500)],
    "punctuation": ["!", "?", ".", ",", ";", ":", "(", ")", "[", "]", "{", "}"],
    "capitals": ["Paris", "London", "Rome", "Berlin", "Madrid", "Tokyo", "Lisbon", "Vienna", "Oslo", "Dublin",
                 "Prague", "Athens"],
}


def _hand_made(seed: int = 0) -> tuple[Embeddings, list[str]]:
    """Five groups of 12 tokens, and ten groups of 20 lower case Latin words ('wabcde17'), each group around
    its own direction in DIMS dimensions."""
    rng = np.random.default_rng(seed)
    tokens, rows, truth = [], [], []
    filler = {f"words{g}": ["w" + "".join(rng.choice(list("abcdefghij"), 5)) + f"{g}{j}" for j in range(20)]
              for g in range(10)}
    for name, toks in {**GROUPS, **filler}.items():
        centre = rng.standard_normal(DIMS)
        for t in toks:
            tokens.append(t)
            rows.append(centre + 0.05 * rng.standard_normal(DIMS))
            truth.append(name)
    table = np.asarray(rows, np.float32)
    emb = Embeddings("hand-made", table, None, "none", None, False, VocabTokenizer("vocab.txt", "\n".join(tokens)),
                     Provenance("test"))
    return emb, truth


def test_clusters_of_a_hand_made_table_are_its_groups_with_their_labels():
    emb, truth = _hand_made()
    found = cluster_ids(emb)
    by_group = {}
    for name in GROUPS:
        members = [i for i, t in enumerate(truth) if t == name]
        assigned = set(found.assignment[members].tolist())
        assert len(assigned) == 1 and NOISE not in assigned, (name, assigned)
        by_group[name] = found.clusters[assigned.pop()]
    assert len(found.clusters) == len(GROUPS) + 10
    labels = {name: c.label() for name, c in by_group.items()}
    # lower case Latin words are most of this table: true of nearly every token, those two traits name no cluster
    assert labels["cyrillic"].startswith("Cyrillic script · ") and "lower case" not in labels["cyrillic"]
    assert labels["pieces"].startswith("word pieces (##) · ") and "Latin" not in labels["pieces"]
    assert labels["digits"].startswith("digits · ")
    assert labels["punctuation"].startswith("punctuation and symbols · single characters · ")
    assert labels["capitals"].startswith("capitalised · ")
    for name, c in by_group.items():
        assert c.size == 12 and len(c.medoids) == 10 and set(c.medoids) <= set(GROUPS[name])
        assert c.label().endswith(" ".join(c.medoids[:3]))
    assert by_group["cyrillic"].label("zh-TW") != labels["cyrillic"]


def test_the_medoid_is_the_row_with_the_least_total_cosine_distance():
    X = np.random.default_rng(3).standard_normal((40, 8))
    U = unit_rows(X)
    slow = np.argsort([sum(1 - float(U[i] @ U[j]) for j in range(40)) for i in range(40)], kind="stable")
    assert np.array_equal(medoid_order(X), slow)


@pytest.mark.parametrize("block_bytes", [None, 1, 7 * 5 * 6 * 4])  # as shipped; one row at a time; 7 rows of 60
def test_the_neighbour_graph_holds_true_chord_distances_and_is_one_piece(block_bytes, monkeypatch):
    from andrea_viz.maps import clusters

    if block_bytes is not None:  # the neighbours' rows gathered a block of rows at a time, the last block short
        monkeypatch.setattr(clusters, "GATHER_BLOCK_BYTES", block_bytes)
    rng = np.random.default_rng(1)
    X = np.concatenate([rng.standard_normal((30, 6)) + 20, rng.standard_normal((30, 6)) - 20])  # two far groups
    G = neighbour_graph(X, k=5)
    U = unit_rows(X)
    r, c = G.nonzero()
    assert np.allclose(G[r, c].A1, np.linalg.norm(U[r] - U[c], axis=1), atol=1e-5)
    from scipy.sparse import csgraph

    assert csgraph.connected_components(G, directed=False)[0] == 1


def test_a_row_holding_nan_has_no_neighbours_in_the_graph_and_is_joined_once_at_the_root_of_two():
    X = np.random.default_rng(2).standard_normal((40, 6))
    X[5, 2] = np.nan  # the neighbour kit's rule: nobody's neighbour, none of its own
    G = neighbour_graph(X, k=4)
    assert G[5].nnz == 1 and G[:, 5].nnz == 1 and G[5].data[0] == pytest.approx(np.sqrt(2))
    assert np.array_equal(neighbour_graph(X, 4, near=nearest(X, 4)).toarray(), G.toarray())  # ids searched already


def _one_token_class_words(emb):
    seen = {}
    for name, words in WORD_CLASSES.items():
        for w in words:
            try:
                _, ids = resolve_ids(emb, w)
            except Exception:  # noqa: BLE001 (a word the tokenizer refuses is simply not one token)
                continue
            if len(ids) == 1 and w not in seen:
                seen[w] = (ids[0], name)
    return seen


def test_andrea_micros_clusters_recover_the_corpus_word_classes(load_model):
    micro = load_model("andrea-micro")
    seen = _one_token_class_words(micro)
    assert len(seen) > 100
    found = cluster_ids(micro)
    ids = [i for i, _ in seen.values()]
    ari = adjusted_rand_score([c for _, c in seen.values()], found.assignment[ids])  # noise (-1) is one more cluster
    print(f"andrea-micro: ARI {ari:.3f} over {len(ids)} one-token class words, {len(found.clusters)} clusters")
    assert ari >= 0.6
    animals = found.clusters[found.assignment[seen["dog"][0]]]
    assert animals.label().startswith("word class: animals · ")


@pytest.mark.parametrize("lang", ["nl", "pt-BR", "zh-TW"])
def test_a_model_grown_in_another_language_has_its_word_classes_named(load_model, lang):
    """The word classes are the lexicon's in every language: the Dutch, Portuguese and Chinese grown models' people
    (koning, rei, 國王 …) are a region labelled "word class: people", as andrea-micro's animals are above."""
    found = cluster_ids(load_model(lexicon.model_of(lang)))
    labels = [c.label() for c in found.clusters]
    assert any(label.startswith("word class: people · ") for label in labels), labels


@pytest.fixture(scope="module")
def minilm_clusters(minilm):
    return cluster_ids(minilm)  # the whole table, once for this module


@pytest.mark.parametrize("group", ["weekdays", "months", "numbers"])
def test_minilm_weekdays_months_and_number_words_each_fall_mostly_in_one_cluster(minilm, minilm_clusters, group):
    ids = group_ids(minilm)[group]
    assigned = minilm_clusters.assignment[ids]
    values, counts = np.unique(assigned[assigned != NOISE], return_counts=True)
    print(group, dict(zip(values.tolist(), counts.tolist(), strict=True)), "of", len(ids))
    assert counts.size and counts.max() > len(ids) / 2


def test_minilm_clusters_json_covers_every_token(minilm, minilm_clusters):
    data = minilm_clusters.as_json()
    noise = sum(a == NOISE for a in data["assignment"].values()) / minilm.vocab_size
    print(f"MiniLM: {len(data['clusters'])} clusters, noise {noise:.0%}")
    assert len(data["assignment"]) == minilm.vocab_size
    sizes = {c["id"]: c["size"] for c in data["clusters"]}
    counted = np.bincount([a for a in data["assignment"].values() if a != NOISE], minlength=len(sizes))
    assert [sizes[j] for j in range(len(sizes))] == counted.tolist()
    assert all(len(c["medoids"]) == 10 and c["label"] for c in data["clusters"])
    digits = [c for c in data["clusters"] if c["label"].startswith("digits")]
    assert digits and all(m.isdigit() for m in digits[0]["medoids"])


def test_clusters_cli_json_and_text(cli):
    r = cli("clusters", "andrea-micro", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert set(data["assignment"]) == {str(i) for i in range(557)}
    assert [set(c) for c in data["clusters"]] == [{"id", "size", "label", "medoids"}] * len(data["clusters"])
    assert any(c["label"].startswith("word class: weekdays") for c in data["clusters"])
    r = cli("clusters", "andrea-micro", "--lang", "nl")
    assert r.returncode == 0, r.stderr
    assert "woordklasse: weekdagen" in r.stdout


def test_project_cli_labels_each_point(cli, tmp_path):
    out = tmp_path / "p.tsv"
    r = cli("project", "andrea-micro", "--method", "pca", "--n", "all", "--labels", "--out", str(out))
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert rows[0] == ["id", "token", "group", "x1", "x2", "trust", "cluster", "label"]
    dog = next(row for row in rows[1:] if row[1] == "dog")
    assert dog[7].startswith("word class: animals") and int(dog[6]) >= 0
    assert all((row[6] == "-1") == (row[7] == "") for row in rows[1:])


def test_labels_that_would_overlap_a_larger_regions_label_are_left_off():
    from andrea_viz.plots.style import apart

    coords = np.array([[0.0, 0.0], [10.0, 10.0]])
    shown = apart([(5, 5, "word class: animals · cat dog"), (5.2, 5.0, "digits · 1 2 3"), (5, 9, "far away")], coords)
    assert [t for _, _, t in shown] == ["word class: animals · cat dog", "far away"]


def test_wide_characters_take_twice_the_room_and_a_knot_of_arrows_keeps_one_word():
    """Chinese words are drawn twice as wide as Latin letters: two of them side by side overlap where two Latin words
    of as many letters fit. The tokens that hardly moved between A and B sit in one knot on Compare's arrows: one of
    them keeps its word at the arrow's head, and every one keeps it in the hover."""
    from andrea_viz.plots.compare import arrows_map
    from andrea_viz.plots.style import CHAR_PX, MAP_AREA, kept_apart

    coords = np.array([[0.0, 0.0], [MAP_AREA[0], MAP_AREA[1]]])  # one data unit a pixel
    gap = 3 * CHAR_PX + 6  # three Latin letters and their padding apart, centre to centre
    latin = [(100.0, 100.0, "abc"), (100.0 + gap, 100.0, "def")]
    wide = [(100.0, 100.0, "星期一"), (100.0 + gap, 100.0, "星期二")]
    assert kept_apart(latin, coords) == [0, 1] and kept_apart(wide, coords) == [0]

    rng = np.random.default_rng(0)
    far = rng.normal(0, 3, (5, 2))
    a_xy = np.vstack([far * 0.1, np.zeros((10, 2))])
    b_xy = np.vstack([far, rng.normal(0, 1e-3, (10, 2))])
    tokens = [f"far{i}" for i in range(5)] + [f"<0x{i:02X}>" for i in range(10)]
    fig = arrows_map(a_xy, b_xy, tokens, ["most"] * 5 + ["least"] * 10, np.array([0.5, 0.2]))
    least = next(t for t in fig.data if t.name == "moved least")
    words = fig.data[-1]  # every word in one trace drawn last, over the markers
    assert words.mode == "markers+text" and words.hoverinfo == "skip" and sum(str(x).startswith("&lt;0x") for x in words.text if x) == 1
    assert len(least.customdata) == 10 and "%{customdata}" in least.hovertemplate


def test_a_word_under_the_querys_star_is_not_written_and_the_querys_own_word_is():
    """On the plotly map the query's star is drawn over the words near it: a neighbour's label whose box would lie
    under the star is left to the hover, while the query's own label, just above its own star, stays."""
    from andrea_viz.plots.projection import QUERY_STAR_PX
    from andrea_viz.plots.style import MAP_AREA, kept_apart

    coords = np.array([[0.0, 0.0], [MAP_AREA[0], MAP_AREA[1]]])  # one data unit a pixel
    star = (200.0, 200.0, float(QUERY_STAR_PX))
    labels = [(200.0, 200.0, "cat"),  # the query: its word above its star
              (200.0, 185.0, "pet"),  # 15 px below: its word (10 px above it) lies on the star
              (200.0, 120.0, "dog")]  # far below: clear of everything
    assert kept_apart(labels, coords, avoid=(star,)) == [0, 2]
    assert kept_apart(labels[1:], coords) == [0, 1] and kept_apart(labels[1:], coords, avoid=(star,)) == [1]
