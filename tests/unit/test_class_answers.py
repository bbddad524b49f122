"""The teacher's reading of a class's answers: sizing answers classified with the exercise's own checker, the
misconception grid against its slow reference, tallies, the common wrong answers, the CSV."""

from __future__ import annotations

import csv
import io
import random

from andrea_viz.classroom import answers as A
from andrea_viz.classroom.store import Answer, Member
from andrea_viz.family import FAMILY
from andrea_viz.i18n import render

S = FAMILY["ANDREA-12M"]
WANT = S.V * S.d


def test_sizing_answers_fall_in_the_four_categories():
    assert A.classify_sizing(f"{WANT:,}", "ANDREA-12M") == (str(WANT), A.RIGHT)
    assert A.classify_sizing(str(S.V + S.d), "ANDREA-12M") == (str(S.V + S.d), A.V_PLUS_D)
    assert A.classify_sizing(str(2 * WANT), "ANDREA-12M") == (str(2 * WANT), A.FACTOR)  # both tables counted
    assert A.classify_sizing(str(WANT * 1000), "ANDREA-12M")[1] == A.FACTOR  # three zeros too many
    assert A.classify_sizing(str(WANT + 1), "ANDREA-12M") == (str(WANT + 1), A.OTHER)
    assert A.classify_sizing("  lots  ", "ANDREA-12M") == ("lots", A.OTHER)  # unreadable: kept as typed


def test_right_is_what_the_exercise_says_is_right_in_each_language():
    from andrea_viz.i18n import set_language

    set_language("nl")
    assert A.classify_sizing(f"{WANT:,}".replace(",", "."), "ANDREA-12M")[1] == A.RIGHT


def _ordering(member: str, guesses: list[float], cosines: list[float], pairs=None) -> Answer:
    pairs = pairs or [("cat", "dog"), ("cat", "tuesday"), ("cat", "xylophone")]
    return Answer(member, A.PREDICT, A.encode_ordering(pairs, guesses, cosines), "", 0.0)


def test_the_grid_counts_learners_who_reversed_two_pairs():
    cos = [0.6, 0.4, 0.1]  # cat/dog above cat/tuesday above cat/xylophone
    rows = [_ordering("m1", [0.9, 0.5, 0.1], cos),  # all right
            _ordering("m2", [0.5, 0.9, 0.1], cos),  # cat/tuesday put above cat/dog
            _ordering("m3", [0.2, 0.8, 0.1], cos,  # the same, in Dutch
                      pairs=[("kat", "hond"), ("kat", "dinsdag"), ("kat", "xylofoon")])]
    g = A.misconception_grid(rows)
    assert g.learners == 3 and g.pairs == [("cat", "dog"), ("cat", "tuesday"), ("cat", "xylophone")]
    assert g.worst() == [(("cat", "tuesday"), ("cat", "dog"), 2, 3)]


def test_the_grid_equals_its_slow_reference_on_random_classes():
    rng = random.Random(7)
    words = ["cat", "dog", "king", "queen", "monday", "tuesday", "xylophone"]
    for _round in range(30):
        rows = []
        for m in range(rng.randint(1, 12)):
            pairs = rng.sample([(a, b) for a in words for b in words if a < b], rng.randint(2, 6))
            rows.append(_ordering(f"m{m}", [rng.choice([0.0, 0.25, 0.5, 0.75, 1.0]) for _p in pairs],
                                  [rng.uniform(-1, 1) for _p in pairs], pairs))
        g = A.misconception_grid(rows)
        fast = {(g.pairs[i], g.pairs[j]): int(g.wrong[i, j]) for i in range(len(g.pairs))
                for j in range(len(g.pairs)) if g.wrong[i, j]}
        assert fast == A.misconception_grid_reference(rows)


def test_a_damaged_ordering_is_left_out():
    rows = [Answer("m1", A.PREDICT, "not json", "", 0.0), _ordering("m2", [0.9, 0.1, 0.5], [0.1, 0.2, 0.3])]
    assert A.misconception_grid(rows).learners == 1


def test_tallies_and_common_wrong_answers_with_their_meaning():
    q = A.sizing_question("ANDREA-12M")
    rows = [Answer(f"m{i}", q, *A.classify_sizing(t, "ANDREA-12M"), 0.0)
            for i, t in enumerate([str(WANT), str(S.V + S.d), str(S.V + S.d), str(2 * WANT), "7"])]
    assert A.tally(rows, q) == {A.RIGHT: 1, A.V_PLUS_D: 2, A.FACTOR: 1, A.OTHER: 1}
    assert A.common_wrong(rows, q, k=2) == [(str(S.V + S.d), A.V_PLUS_D, 2), (str(2 * WANT), A.FACTOR, 1)]
    assert "added V and d" in render(A.meaning(A.V_PLUS_D).msgid, {}, "en")
    assert render(A.meaning(A.V_PLUS_D).msgid, {}, "nl") != render(A.meaning(A.V_PLUS_D).msgid, {}, "en")
    lesson = [Answer("m1", "lesson:dot", "perpendicular", "", 0.0), Answer("m2", "lesson:dot", "perpendicular", "", 0.0)]
    assert A.tally(lesson, "lesson:dot") == {"perpendicular": 2}


def test_the_csv_holds_every_answer_and_runs_no_formula():
    rows = [Answer("m1", "sizing:ANDREA-12M", "=HYPERLINK(\"x\")", A.OTHER, 12.5)]
    text = A.answers_csv(rows, [Member("m1", "@Ana", "pt-BR")])
    got = list(csv.reader(io.StringIO(text)))
    assert got[0] == ["learner", "nickname", "language", "question", "answer", "category", "time"]
    assert got[1] == ["m1", "'@Ana", "pt-BR", "sizing:ANDREA-12M", "'=HYPERLINK(\"x\")", "other", "12.500"]
