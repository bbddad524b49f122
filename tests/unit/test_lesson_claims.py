"""The lesson's claims about a trained table, measured on the four shipped micro models (andrea-micro and
andrea-micro-nl, -pt-BR, -zh-TW), each in its own language's words, on the token (input) table of the final snapshot:

- the cat word and the dog word lie close: cos ≥ 0.6;
- the cat word and the tuesday word, and the cat word and the xylophone word, lie far apart: |cos| ≤ 0.15;
- the cat word's 10 nearest (cosine, itself excluded) hold no word of its language's ``numbers`` or ``foods``.

Every word is one id of its model's tokenizer. The cosines and the neighbour list are computed twice: by the
library (``geometry.neighbours``, ``geometry.cosine``) and by a plain numpy reference over the whole table."""

import numpy as np
import pytest

import andrea_viz
from andrea_viz.builtin import micro_name
from andrea_viz.geometry import cosine, neighbours
from andrea_viz.grow.corpus import CLASSES_IN, CORPUS_LANGUAGES, word_in

NEAR, FAR, K = 0.6, 0.15, 10


def lesson_words(lang: str) -> dict[str, str]:
    classes = CLASSES_IN[lang]
    return {"cat": word_in(lang, "cat"), "dog": word_in(lang, "dog"), "tuesday": word_in(lang, "tuesday"),
            "xylophone": classes["instruments"][0]}


def one_id(emb, word: str) -> int:
    ids = emb.tokenizer.encode(word)
    assert len(ids) == 1, f"{word!r} is {len(ids)} ids of {emb.name}'s tokenizer"
    return ids[0]


def reference(table: np.ndarray, i: int, j: int) -> float:
    """The slow way: the two rows in float64, their dot over their lengths."""
    a, b = table[i].astype(np.float64), table[j].astype(np.float64)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def reference_nearest(table: np.ndarray, i: int, k: int) -> list[int]:
    """The slow way: every row's cosine to row i in float64, one row at a time, sorted."""
    scores = [(reference(table, i, j), j) for j in range(table.shape[0]) if j != i]
    return [j for _c, j in sorted(scores, key=lambda s: -s[0])[:k]]


@pytest.mark.parametrize("lang", CORPUS_LANGUAGES)
def test_the_shipped_micro_model_of_each_language_holds_the_lessons_figures(lang):
    emb = andrea_viz.load(micro_name(lang))
    assert emb.card["step"] == 600 and emb.tokenizer is not None
    table = np.asarray(emb.token_table)
    w = lesson_words(lang)
    ids = {k: one_id(emb, v) for k, v in w.items()}
    cos = {k: reference(table, ids["cat"], ids[k]) for k in ("dog", "tuesday", "xylophone")}
    for k, c in cos.items():  # the library's cosine is the reference's
        assert cosine(table[ids["cat"]], table[ids[k]]) == pytest.approx(c, abs=1e-5)
    print(f"{emb.name}: cos({w['cat']}, {w['dog']}) {cos['dog']:+.3f}, cos({w['cat']}, {w['tuesday']}) "
          f"{cos['tuesday']:+.3f}, cos({w['cat']}, {w['xylophone']}) {cos['xylophone']:+.3f}")
    assert cos["dog"] >= NEAR
    assert abs(cos["tuesday"]) <= FAR
    assert abs(cos["xylophone"]) <= FAR

    _q, found = neighbours(emb, w["cat"], k=K)
    near = reference_nearest(table, ids["cat"], K)
    assert [n.id for n in found] == near
    words = [emb.token(i) for i in near]
    banned = set(CLASSES_IN[lang]["numbers"]) | set(CLASSES_IN[lang]["foods"])
    assert [t for t in words if t in banned] == [], f"{w['cat']}'s {K} nearest: {words}"
    assert w["dog"] in words
