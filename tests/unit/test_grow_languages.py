"""Growing in the learner's language: the generated corpus in en, nl, pt-BR and zh-TW, every class word one id of
that language's grown tokenizer (single CJK characters included), and the CLI's --language.

Training micro to the end takes minutes on the development machine, so these tests check the corpus, the
segmentation and a short run, and the shipped models (trained once per language, seed 1; their lesson figures are
checked in test_lesson_claims.py and listed in the README)."""

import json
import re
import unicodedata

import pytest

from andrea_viz.builtin import GROWN_IN, MICRO_DIR, micro_name
from andrea_viz.errors import QueryError
from andrea_viz.grow.corpus import (CLASSES_IN, CORPUS_LANGUAGES, SUBCLASSES, TEMPLATES, TEMPLATES_IN, WORD_CLASSES,
                                    generate, word_in)
from andrea_viz.grow.harris import WORD, harris_segments
from andrea_viz.i18n import LANGUAGES
from andrea_viz.tokenizer import ByteTokenizer

OTHER = [lang for lang in CORPUS_LANGUAGES if lang != "en"]


def test_the_corpus_speaks_every_language_of_the_app():
    assert sorted(CORPUS_LANGUAGES) == sorted(LANGUAGES)
    assert CLASSES_IN["en"] is WORD_CLASSES and TEMPLATES_IN["en"] is TEMPLATES  # English stays as it was


@pytest.mark.parametrize("lang,cat,dog,tuesday", [("en", "cat", "dog", "tuesday"), ("nl", "kat", "hond", "dinsdag"),
                                                  ("pt-BR", "gato", "cachorro", "terça-feira"),
                                                  ("zh-TW", "貓", "狗", "星期二")])
def test_each_language_has_the_english_classes_word_for_word(lang, cat, dog, tuesday):
    classes = CLASSES_IN[lang]
    assert list(classes) == list(WORD_CLASSES)
    assert {c: len(w) for c, w in classes.items()} == {c: len(w) for c, w in WORD_CLASSES.items()}
    assert (word_in(lang, "cat"), word_in(lang, "dog"), word_in(lang, "tuesday")) == (cat, dog, tuesday)
    assert [len(t) for t in TEMPLATES_IN[lang].values()] == [len(t) for t in TEMPLATES.values()]


@pytest.mark.parametrize("lang", OTHER)
def test_every_slot_names_a_class_and_every_class_word_is_written_in_the_corpus(lang):
    slots = {s for ts in TEMPLATES_IN[lang].values() for t in ts for s in re.findall(r"\{(\w+)\}", t)}
    assert slots <= set(WORD_CLASSES) | set(SUBCLASSES)
    text = generate(0, language=lang)
    assert generate(0, language=lang) == text and generate(1, language=lang) != text  # seeded
    written = set(WORD.findall(text))
    assert {w for ws in CLASSES_IN[lang].values() for w in ws} <= written


def test_chinese_is_written_with_a_space_between_words():
    text = generate(0, 200, "zh-TW")
    words = {w for ws in CLASSES_IN["zh-TW"].values() for w in ws}
    for line in text.splitlines():
        assert "  " not in line and line == line.strip()
    tokens = {t for line in text.splitlines() for t in line.split(" ")}
    assert words & tokens == words & set(WORD.findall(text))  # each class word stands alone between spaces
    assert "貓" in tokens and "小貓" in tokens


@pytest.mark.parametrize("lang", CORPUS_LANGUAGES)
def test_every_class_word_is_one_id_of_its_languages_tokenizer(lang):
    segments = harris_segments(generate(0, language=lang), max_segments=4_096)
    tok = ByteTokenizer(256 + len(segments) + 1, segments)
    words = sorted({w for ws in CLASSES_IN[lang].values() for w in ws})
    many = {w: [tok.token(i) for i in tok.lookup(w)] for w in words if len(tok.lookup(w)) != 1}
    assert many == {}
    line = generate(5, 1, lang).strip()
    assert tok.decode(tok.encode(line)) == line


def test_harris_keeps_a_single_cjk_character_and_a_hyphenated_word_whole_but_no_single_byte():
    text = "貓 和 狗 a b terça-feira " * 5
    segs = harris_segments(text)
    assert {"貓", "狗", "和", "terça-feira"} <= set(segs)
    assert "a" not in segs and "b" not in segs  # one byte: already a byte id
    assert len(ByteTokenizer(256 + len(segs) + 1, segs).lookup("terça-feira")) == 1


def test_an_unknown_corpus_language_is_refused_with_the_codes():
    with pytest.raises(QueryError, match="en, nl, pt-BR, zh-TW"):
        generate(0, 10, "fr")


@pytest.mark.parametrize("lang,cat", [("nl", "kat"), ("zh-TW", "貓")])
def test_grow_cli_trains_on_the_languages_corpus_and_neighbors_finds_its_cat(cli, tmp_path, lang, cat):
    r = cli("grow", "--steps", "4", "--snapshots", "2", "--language", lang, "--out", str(tmp_path / "run"), "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert set(d) == {"preset", "vocab_size", "d_model", "context", "layers", "total_params", "steps", "seconds",
                      "final_loss", "snapshots", "unseen_count", "unseen_ids"}  # the keys stay as they were
    assert json.loads((tmp_path / "run" / "config.json").read_text())["corpus_language"] == lang
    r = cli("neighbors", d["snapshots"][-1], cat, "--json")
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["query_ids"]) == 1  # the cat word is one segment of this run's tokenizer
    bad = cli("grow", "--language", "fr", "--out", str(tmp_path / "x"))
    assert bad.returncode == 2 and "pt-BR" in bad.stderr


@pytest.mark.parametrize("lang", list(GROWN_IN))
def test_the_shipped_micro_of_each_language_knows_its_dog_is_near_its_cat(tmp_path, lang):
    """The built-in andrea-micro-<lang>: the run replays (its first losses from run.json), every class word of its
    language is one id, and the dog word is among the cat word's 10 nearest (kat → hond, gato → cachorro, 貓 → 狗)."""
    import numpy as np

    import andrea_viz
    from andrea_viz.geometry import neighbours
    from andrea_viz.grow.corpus import word_in
    from andrea_viz.grow.trainer import train

    emb = andrea_viz.load(micro_name(lang))
    folder = MICRO_DIR.parent / micro_name(lang)
    run = json.loads((folder / "run.json").read_text())
    assert json.loads((folder / "config.json").read_text())["corpus_language"] == lang
    many = [w for ws in CLASSES_IN[lang].values() for w in ws if len(emb.tokenizer.encode(w)) != 1]
    assert many == []
    cat, dog = word_in(lang, "cat"), word_in(lang, "dog")
    assert dog in [n.token for n in neighbours(emb, cat, k=10)[1]]
    assert emb.card["step"] == run["steps_done"] == 600
    first = run["first_losses"][:5]
    r = train(tmp_path / "replay", preset=run["preset"], seed=run["seed"], steps=len(first), snapshot_at=[0],
              language=lang)
    np.testing.assert_allclose(r.losses, first, rtol=1e-4)


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_each_grown_models_label_fits_the_sidebars_picker(lang):
    """The model a session in each language starts on is named whole in the sidebar's picker: about 30 columns (a
    Chinese character takes two). "ANDREA-micro cultivado em port" and "在繁體中文中培養的 ANDREA-m" were cut there."""
    from andrea_viz import i18n
    from andrea_viz.builtin import BUILTINS

    i18n.set_language(lang)
    try:
        for grown in ("en", *GROWN_IN):
            label = i18n.tr(BUILTINS[micro_name(grown)].label)
            assert sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in label) <= 30, label
    finally:
        i18n.set_language("en")
