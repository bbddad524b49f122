"""Every file uploader goes through the one helper that writes the drop zone's texts in the reader's language."""

import ast
from pathlib import Path

from andrea_viz import i18n
from andrea_viz.i18n import translate
from andrea_viz.ui.uploader_text import CHIP_NAME, DRAG_TEXT, css_string, sizes_css, uploader_css

ROOT = Path(__file__).resolve().parents[2]


def test_no_uploader_but_through_the_helper():
    direct = []
    for p in [*(ROOT / "andrea_viz").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "home.py"]:
        if p.name == "uploader_text.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "file_uploader" and \
                    isinstance(node.value, ast.Name) and node.value.id == "st":
                direct.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert direct == []


def test_the_replacement_texts_are_inert_css_strings():
    assert css_string('a "b" \\ c\n</style>') == '"a \\"b\\" \\\\ c\\a \\3c /style>"'
    css = uploader_css("Kies een bestand", "hoogstens 1.400 MB per bestand", "Laat het bestand hier los")
    assert css.count("<style>") == 1 and css.count("</style>") == 1
    assert 'content: "Kies een bestand"' in css and 'content: "hoogstens 1.400 MB per bestand"' in css
    assert "display: none" in css
    assert f'{DRAG_TEXT} {{ font-size: 0; }}' in css  # Streamlit's "Drag and drop a file here" hidden ...
    assert f'{DRAG_TEXT}::after {{ content: "Laat het bestand hier los";' in css  # ... and the language's drawn


def test_the_drop_text_is_translated():
    assert translate("Drop the file here", "nl") == "Laat het bestand hier los"
    assert translate("Drop the files here", "pt-BR") == "Solte os arquivos aqui"


def test_an_uploaded_files_size_in_the_language():
    i18n.set_language("nl")
    try:
        css = sizes_css([('corpus "a".txt', 1_234_567), ("b.txt", 512)])
    finally:
        i18n.set_language("en")
    assert css.count("<style>") == 1 and css.count("</style>") == 1
    name = css_string('corpus "a".txt')
    assert f"{CHIP_NAME}[title={name}] + div {{ font-size: 0; }}" in css  # Streamlit's "1.2MB" hidden
    assert f'{CHIP_NAME}[title={name}] + div::after {{ content: "1,2 MB";' in css  # not Streamlit's 1.2MB
    assert f'{CHIP_NAME}[title="b.txt"] + div::after {{ content: "512 B";' in css


def test_the_buttons_name_script_holds_the_name_as_an_inert_string():
    from andrea_viz.ui.uploader_text import label_script

    script = label_script('Kies "een" </script><b>')
    assert script.count("</script>") == 1 and script.endswith("</script>")  # the name cannot close the script
    assert 'w.andreaUploadName = "Kies \\"een\\" \\u003c/script>\\u003cb>"' in script
    assert "set(b, 'aria-label', w.andreaUploadName)" in script


def test_the_chips_texts_reach_the_script_inert_and_in_the_language():
    from andrea_viz.i18n import set_language
    from andrea_viz.ui.uploader_text import chip_texts, label_script

    set_language("nl")
    texts = chip_texts()
    assert set(texts) == {"browse", "remove", "cancel", "retry", "507", "413", "other"}
    assert "{name}" in texts["remove"] and "{name}" in texts["cancel"]  # the file's name is put in by the script
    assert texts["remove"] != "Remove {name}" and "1.400" in texts["413"]  # Dutch, the limit the Dutch way
    texts["other"] = "</script><img src=x onerror=alert(1)>"
    script = label_script(texts)
    assert script.count("</script>") == 1 and "\\u003cimg" in script
