"""The translation catalogues: in step with the code, complete, and faithful to each msgid's placeholders and
bold text; numbers written each language's way; messages that stay whole when a translation is broken."""

import ast
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from andrea_viz import i18n
from andrea_viz.catalogs import SAME_IN_EVERY_LANGUAGE, SAME_IN_LANGUAGE, extract, key_of, po_path, read_catalog
from andrea_viz.i18n import LANGUAGES, Msg, format_number, render

ROOT = Path(__file__).resolve().parents[2]
OTHER = [lang for lang in LANGUAGES if lang != i18n.DEFAULT_LANGUAGE]
FIELD = re.compile(r"(?<!%)\{[^{}]*\}")
PLOTLY = re.compile(r"%\{[^{}]*\}")


@pytest.fixture(scope="module")
def msgids() -> set[str]:
    return set(extract())


@pytest.mark.parametrize("lang", OTHER)
def test_each_catalogue_holds_exactly_the_msgids_of_the_code(lang, msgids):
    assert po_path(lang).is_file()
    held = {key_of(m) for m in read_catalog(lang) if m.id}
    assert sorted(msgids - held) == [], "new msgids: run python -m andrea_viz catalogs and translate them"
    assert sorted(held - msgids) == [], "msgids no longer used: run python -m andrea_viz catalogs"


ID_FIELD = re.compile(r"\{(?:id|last)[:!][^{}]*,[^{}]*\}")  # {id:,} or {last:,}: an identifier written in groups


def test_token_ids_and_row_numbers_are_written_without_groups(msgids):
    """An id names a row; it is not a count: "row 4937" beside the chips' #4937 and the lists' [4937], never "row
    4,937" (in Dutch "rij 4.937"). Ranges of ids end on an id: "ids 0 to 30521"."""
    grouped = sorted(m for m in msgids if ID_FIELD.search(m) and ("id" in m.lower() or "row" in m.lower()))
    assert [m for m in grouped if not m.startswith(("Positions", "{name} has", "rows {first:,}"))] == []  # counts too


@pytest.mark.parametrize("lang", OTHER)
def test_every_msgid_is_translated(lang, msgids):
    cat = i18n.catalogue(lang)
    assert sorted(m for m in msgids if not cat.get(m, "").strip()) == []


@pytest.mark.parametrize("lang", OTHER)
def test_each_translation_differs_from_the_english_except_allowed_names(lang, msgids):
    cat = i18n.catalogue(lang)
    allowed = SAME_IN_EVERY_LANGUAGE | SAME_IN_LANGUAGE.get(lang, frozenset())
    assert sorted(m for m in msgids if cat.get(m) == i18n.english(m) and m not in allowed) == []
    assert allowed <= msgids, "an allowed msgid the code no longer uses"
    assert "zh-TW" not in SAME_IN_LANGUAGE  # Chinese keeps only names and symbols


@pytest.mark.parametrize("lang", OTHER)
def test_translations_keep_every_placeholder(lang):
    for msgid, text in i18n.catalogue(lang).items():
        assert sorted(FIELD.findall(text)) == sorted(FIELD.findall(msgid)), (msgid, text)
        assert sorted(PLOTLY.findall(text)) == sorted(PLOTLY.findall(msgid)), (msgid, text)


def _strong(text: str) -> int:
    # placeholders filled as the app fills them (a word, not a brace), so CommonMark's flanking rules apply
    return MarkdownIt().render(re.sub(r"%?\{[^{}]*\}", "x1", text)).count("<strong>")


@pytest.mark.parametrize("lang", OTHER)
def test_bold_text_stays_bold_in_every_translation(lang):
    """Chinese punctuation just inside a closing ** followed by a letter leaves the asterisks on screen."""
    for msgid, text in i18n.catalogue(lang).items():
        if "**" in msgid:
            assert _strong(text) == _strong(msgid), (msgid, text)


def test_a_broken_asterisk_pair_is_caught():
    assert _strong("**分詞器：**{tokenizer}") == 0 and _strong("**分詞器**：{tokenizer}") == 1


@pytest.mark.parametrize("lang,n,p,f", [
    ("en", "6,488,832", "5.4%", "+0.873"), ("nl", "6.488.832", "5,4%", "+0,873"),
    ("pt-BR", "6.488.832", "5,4%", "+0,873"), ("zh-TW", "6,488,832", "5.4%", "+0.873"),
])
def test_numbers_in_each_language(lang, n, p, f):
    assert format_number(6_488_832, ",", lang) == n
    assert format_number(6_488_832 / 120e6, ".1%", lang) == p
    assert format_number(0.87318, "+.3f", lang) == f
    assert render("{n:,} × {d:,}", {"n": 8_449, "d": 768}, lang) == f"{format_number(8_449, ',', lang)} × 768"


def test_a_message_is_drawn_in_the_language_asked():
    m = Msg("Tokens: {chips}", chips="`cat` #4937")
    assert m.render("nl") == i18n.catalogue("nl")["Tokens: {chips}"].format(chips="`cat` #4937")
    assert str(m) == "Tokens: `cat` #4937"


def test_a_broken_translation_falls_back_to_the_english(monkeypatch):
    monkeypatch.setitem(i18n.catalogue("nl"), "Row {id}: what the embedding layer hands on", "Rij {nummer}")
    assert render("Row {id}: what the embedding layer hands on", {"id": 4937}, "nl") == \
        "Row 4937: what the embedding layer hands on"


def test_a_word_a_language_writes_two_ways_is_found_by_its_context():
    """"untied" said of the output table is feminine in Portuguese (a tabela), said of a model masculine; the
    catalogue holds both, apart by their msgctxt, and English shows the words alone (also when a translation is
    missing or broken)."""
    from andrea_viz.i18n import english, pN_, translate
    from andrea_viz.ui.models import OUTPUT_KIND_LABELS

    table = OUTPUT_KIND_LABELS["untied"]
    assert table == pN_("output table", "untied") and english(table) == "untied"
    assert translate(table, "pt-BR") == "desvinculada" and translate("untied", "pt-BR") == "desvinculado"
    assert translate(table, "en") == "untied" and translate(pN_("no such context", "untied"), "pt-BR") == "untied"
    assert render(pN_("output table", "{n} tables"), {"n": 2}, "nl") == "2 tables"
    assert {m.context for m in read_catalog("pt-BR") if m.id == "untied"} == {None, "output table", "tie state"}
    # the audit's tie state speaks of both tables at once: plural in Portuguese, its line read as "tables by config:"
    from andrea_viz.ui.audit_view import TIE_LABELS

    assert [translate(TIE_LABELS[k], "pt-BR") for k in ("tied", "untied")] == ["vinculadas", "desvinculadas"]


UI_CALLS = {"title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success", "button",
            "metric", "slider", "select_slider", "selectbox", "radio", "text_input", "number_input", "toggle",
            "checkbox", "file_uploader", "download_button", "expander", "tabs", "progress", "spinner", "status",
            "multiselect", "write", "form_submit_button", "page_link"}
# labels that are symbols or names in every language (the analogy's A − B + C, a vector's length)
NOT_WORDS = {"A", "− B", "+ C", "cos θ", "u·v", "d_model", "Language · 語言 · Taal · Idioma"}


def _ui_files() -> list[Path]:
    return [*ROOT.glob("pages/*.py"), ROOT / "home.py", *(ROOT / "andrea_viz" / "ui").glob("*.py")]


def test_no_ui_text_escapes_translation():
    """Every string literal a page puts on screen goes through _() (or is a symbol)."""
    found = []
    for path in _ui_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in UI_CALLS:
                args = node.args[:1] + [k.value for k in node.keywords if k.arg in ("help", "label", "placeholder", "text")]
                for arg in args:
                    parts = [arg] if isinstance(arg, ast.Constant) else arg.values if isinstance(arg, ast.JoinedStr) else []
                    for part in parts:
                        if isinstance(part, ast.Constant) and isinstance(part.value, str) \
                                and re.search("[A-Za-z]{2}", part.value) and part.value not in NOT_WORDS:
                            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {part.value[:50]!r}")
    assert found == []


def test_nothing_shadows_the_translation_function():
    """``_`` is gettext's name here: a page that assigns to it (``_, x = ...``) would break every _() after."""
    found = []
    for path in [*_ui_files(), *(ROOT / "andrea_viz").rglob("*.py")]:
        tree = ast.parse(path.read_text())
        if not any(isinstance(n, ast.ImportFrom) and any(a.name == "_" for a in n.names) for n in ast.walk(tree)):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) and \
                    node.target.id == "_":
                found.append(f"{path.relative_to(ROOT)}:{node.target.lineno}")
    assert found == []


def test_sentences_said_one_after_another_have_no_space_after_a_chinese_full_stop(minilm):
    """The lookup overview's words are several messages: in zh-TW no space follows 。 (it showed "1。 這張表")."""
    from andrea_viz.i18n import sentences, set_language
    from andrea_viz.plots.lookup import overview_of

    assert sentences(["One.", "Two."]) == "One. Two."
    set_language("zh-TW")
    try:
        assert sentences(["一。", "二。"]) == "一。二。"
        said = overview_of(minilm, 4937)._andrea_words.summary
    finally:
        set_language("en")
    assert "。" in said and "。 " not in said


def test_a_list_is_joined_by_the_languages_own_comma():
    from andrea_viz.i18n import listed, set_language

    assert listed(["cat", "dog", "pet"]) == "cat, dog, pet"
    set_language("zh-TW")
    try:
        assert listed(iter(["貓", "狗"])) == "貓、狗"
    finally:
        set_language("en")
