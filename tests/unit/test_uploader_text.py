"""Every file uploader goes through the one helper that writes the drop zone's texts in the reader's language."""

import ast
from pathlib import Path

from andrea_viz.ui.uploader_text import css_string, uploader_css

ROOT = Path(__file__).resolve().parents[2]


def test_no_uploader_but_through_the_helper():
    direct = []
    for p in [*(ROOT / "andrea_viz").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "streamlit_app.py"]:
        if p.name == "uploader_text.py":
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Attribute) and node.attr == "file_uploader" and \
                    isinstance(node.value, ast.Name) and node.value.id == "st":
                direct.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert direct == []


def test_the_replacement_texts_are_inert_css_strings():
    assert css_string('a "b" \\ c\n</style>') == '"a \\"b\\" \\\\ c\\a \\3c /style>"'
    css = uploader_css("Kies een bestand", "hoogstens 1.400 MB per bestand")
    assert css.count("<style>") == 1 and css.count("</style>") == 1
    assert 'content: "Kies een bestand"' in css and 'content: "hoogstens 1.400 MB per bestand"' in css
    assert "display: none" in css


def test_the_buttons_name_script_holds_the_name_as_an_inert_string():
    from andrea_viz.ui.uploader_text import label_script

    script = label_script('Kies "een" </script><b>')
    assert script.count("</script>") == 1 and script.endswith("</script>")  # the name cannot close the script
    assert 'w.andreaUploadName = "Kies \\"een\\" \\u003c/script>\\u003cb>"' in script
    assert "setAttribute('aria-label'" in script
