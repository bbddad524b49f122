"""The rules that keep the house simple, checked on the tree."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_library_imports_streamlit_only_in_ui():
    offenders = [p for p in (ROOT / "andrea_viz").rglob("*.py")
                 if "ui" not in p.relative_to(ROOT / "andrea_viz").parts[:1] and "streamlit" in _imports(p)]
    assert offenders == []


def test_no_navigation_call_beside_the_pages_folder():
    forbidden = "st." + "navigation"  # written in two parts so that this file does not match itself
    for p in [ROOT / "streamlit_app.py", *ROOT.glob("pages/*.py"), *(ROOT / "andrea_viz").rglob("*.py")]:
        assert forbidden not in p.read_text(), p


def test_every_page_starts_with_the_shared_setup():
    for p in [ROOT / "streamlit_app.py", *ROOT.glob("pages/*.py")]:
        assert "ui.page_setup(" in p.read_text(), p
