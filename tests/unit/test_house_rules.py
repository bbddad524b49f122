"""The rules that keep the house simple, checked on the tree."""

import ast
import re
from pathlib import Path

import pytest

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
    for p in [ROOT / "streamlit_app.py", ROOT / "home.py", *ROOT.glob("pages/*.py"), *(ROOT / "andrea_viz").rglob("*.py")]:
        assert forbidden not in p.read_text(), p


def test_every_page_starts_with_the_shared_setup():
    for p in [ROOT / "home.py", *ROOT.glob("pages/*.py")]:
        assert "ui.page_setup(" in p.read_text(), p


FAMILY_NUMBERS = {4_353, 2_305, 8_449, 16_641, 120_000_000, 12_800_000, 480_000_000}  # V of each size, nominal sizes
LLMC_MAGICS = {20240326, 20240328}


def _int_constants(path: Path) -> set[int]:
    return {n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant)
            and isinstance(n.value, int) and not isinstance(n.value, bool)}


def test_each_family_number_is_written_in_one_library_file():
    where: dict[int, list[str]] = {}
    for p in [*(ROOT / "andrea_viz").rglob("*.py"), *(ROOT / "cuda_ext").rglob("*.py"), *(ROOT / "pages").glob("*.py"),
              ROOT / "home.py"]:
        for v in _int_constants(p) & (FAMILY_NUMBERS | LLMC_MAGICS):
            where.setdefault(v, []).append(str(p.relative_to(ROOT)))
    for v in FAMILY_NUMBERS - {4_353, 2_305, 8_449, 16_641}:  # the V are computed from the segments
        assert where.get(v) == ["andrea_viz/family.py"], (v, where.get(v))
    for v in (4_353, 2_305, 8_449, 16_641):
        assert v not in where, (v, where[v])
    for v in LLMC_MAGICS:
        assert where.get(v) == ["andrea_viz/llmc_format.py"], (v, where.get(v))


def test_the_page_registry_lists_every_page_file():
    from andrea_viz.registry import HOME, PAGES

    assert sorted(p.path for p in PAGES) == sorted([HOME, *(f"pages/{f.name}" for f in ROOT.glob("pages/*.py"))])


def _calls(path: Path, names: set[str]):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in names:
                yield node


def test_messages_are_msgids_with_parameters_not_formatted_strings():
    """An f-string or .format() as a msgid would give a catalogue entry per value: parameters go separately."""
    offenders = []
    for p in [*(ROOT / "andrea_viz").rglob("*.py"), *(ROOT / "pages").glob("*.py"), ROOT / "home.py"]:
        for call in _calls(p, {"CheckpointError", "QueryError", "Msg", "_", "N_"}):
            first = call.args[0]
            ok = (isinstance(first, ast.Constant) and isinstance(first.value, str)) or (
                isinstance(first, ast.Name | ast.Attribute | ast.Subscript | ast.Call) and not (
                    isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and first.func.attr == "format"))
            if isinstance(first, ast.JoinedStr) or not ok:
                offenders.append(f"{p.relative_to(ROOT)}:{call.lineno}")
    assert offenders == []


# Module-level functions that several modules define on purpose, one protocol each: a checkpoint reader
# module offers looks_like(path) and read(path, found); a bench module offers run(...); a feature's commands module
# offers add_commands(sub, common) (andrea_viz/cli.py's COMMANDS).
PROTOCOL_FUNCTIONS = {"looks_like", "read", "run", "add_commands"}


def test_no_two_library_functions_share_a_name():
    where: dict[str, list[str]] = {}
    for p in sorted((ROOT / "andrea_viz").rglob("*.py")):
        for node in ast.parse(p.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                where.setdefault(node.name, []).append(str(p.relative_to(ROOT)))
    shared = {name: files for name, files in where.items() if len(files) > 1 and name not in PROTOCOL_FUNCTIONS}
    assert shared == {}


MAX_INNER_IMPORTS = 10


def _inner_project_imports(path: Path):
    """Imports of the project's own modules written inside a function, as (line number, source line)."""
    text = path.read_text()
    lines = text.splitlines()
    for f in ast.walk(ast.parse(text)):
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(f):
                own = (isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("andrea_viz"))
                       or isinstance(node, ast.Import) and any(a.name.startswith("andrea_viz") for a in node.names))
                if own:
                    yield node.lineno, lines[node.lineno - 1]


def test_few_imports_of_the_project_inside_functions_each_saying_why():
    """They hide real edges between modules: at most MAX_INNER_IMPORTS, each with a comment on why (a cycle, a
    heavy third-party import behind it). Heavy third-party imports themselves (torch, streamlit, …) may stay."""
    found = {f"{p.relative_to(ROOT)}:{n}": line for p in sorted((ROOT / "andrea_viz").rglob("*.py"))
             for n, line in set(_inner_project_imports(p))}
    assert len(found) <= MAX_INNER_IMPORTS, sorted(found)
    assert [where for where, line in found.items() if "#" not in line] == []


def test_one_neighbour_search_in_the_library():
    """Each row's k best is selected in one place, the neighbour kit (andrea_viz/neighbours.py; the bench package
    times other ways beside it): no other library file holds the text of a top-k or a partition call, not even in a
    wrapper's name or a comment."""
    words = ("top" + "k(", "arg" + "partition(")  # in two parts, so that this file does not match itself
    allowed = {ROOT / "andrea_viz" / "neighbours.py"}
    offenders = [f"{p.relative_to(ROOT)}: {w}" for p in sorted((ROOT / "andrea_viz").rglob("*.py"))
                 if p not in allowed and "bench" not in p.relative_to(ROOT / "andrea_viz").parts[:1]
                 for w in words if w in p.read_text()]
    assert offenders == []


WINGS = ("maps", "lesson")  # the named wings: folders of one field each, beside the ground floor at the package root


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _library_edges() -> dict[str, set[str]]:
    """Module -> the library modules it imports at its top level (imports inside functions are counted by the rule
    above), as the interpreter resolves them: ``from . import x`` names the module x where one exists."""
    files = {_module_name(p): p for p in (ROOT / "andrea_viz").rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in files.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out = edges.setdefault(name, set())
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                out |= {a.name for a in node.names if a.name in files}
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
                target = ".".join([*base, *([node.module] if node.module else [])])
                named = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in files}
                out |= named or ({target} if target in files else set())
        out.discard(name)
    return edges


def _room(module: str) -> str:
    """The room a module stands in: a folder under andrea_viz/ (a wing, ui/, plots/ …) or a root module."""
    return module.split(".")[1] if module.count(".") else module


def test_no_import_circle_between_library_modules():
    edges = _library_edges()
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return [*path[path.index(n):], n] if n in path else [m, n]
            if n not in state and (found := visit(n, [*path, n])):
                return found
        state[m] = 2
        return None

    circle = next((found for m in sorted(edges) if m not in state and (found := visit(m, [m]))), None)
    assert circle is None  # the first circle met, module by module


def test_no_import_leaves_a_wing_and_comes_back():
    """No arrow runs up out of a wing: nothing a wing imports (a root module, another folder) imports the wing back,
    directly or through others (maps/colours -> precision -> model_words -> ... -> maps would make the two wings one
    tangle)."""
    rooms: dict[str, set[str]] = {}
    for m, targets in _library_edges().items():
        rooms.setdefault(_room(m), set()).update(_room(t) for t in targets if _room(t) != _room(m))

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            r = todo.pop()
            if r == goal:
                return True
            if r not in seen:
                seen.add(r)
                todo.extend(rooms.get(r, ()))
        return False

    assert all((ROOT / "andrea_viz" / w / "__init__.py").is_file() for w in WINGS)
    back = [(w, r) for w in WINGS for r in sorted(rooms.get(w, ())) if reaches(r, w)]
    assert back == []


def test_a_choice_outside_its_list_is_said_by_one_sentence():
    """Every "must be one of" of the library is ``errors.choices`` / ``errors.not_one_of``: one msgid, whatever the
    parameter (its name, the allowed values and what came filled in)."""
    from andrea_viz.errors import CHOICE, CheckpointError, QueryError, choices

    said = [p.relative_to(ROOT).as_posix() for p in (ROOT / "andrea_viz").rglob("*.py")
            if "must be" in p.read_text(encoding="utf-8") and "one of" in p.read_text(encoding="utf-8")
            and re.search(r"must be (auto or )?one of", p.read_text(encoding="utf-8"))]
    assert said == ["andrea_viz/errors.py"], said
    assert choices("metric", "cosine", ("cosine", "euclidean")) == "cosine"
    with pytest.raises(CheckpointError) as e:
        choices("position_kind", "spiral", {"learned": 1, "none": 2}, CheckpointError)
    assert e.value.msg.msgid == CHOICE and str(e.value) == "position_kind must be one of learned, none; got 'spiral'"
    with pytest.raises(QueryError, match="method must be one of pca, tsne, umap"):
        from andrea_viz.maps.methods import method_of
        method_of("mds")


def test_the_model_card_is_read_by_attribute_inside_the_package():
    """``Card`` is typed: the package reads ``emb.card.layers``, never ``emb.card.get("layers")`` or
    ``emb.card["layers"]`` (each with its own default); it stays a Mapping for scripts."""
    pattern = re.compile(r"\.card(\.get\(|\[)")
    found = [f"{p.relative_to(ROOT).as_posix()}:{i}" for p in [*(ROOT / "andrea_viz").rglob("*.py"), *(ROOT / "pages").glob("*.py")]
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)
             and not line.lstrip().startswith(("#", '"', "``"))]
    assert found == [], found


def test_the_lesson_wing_is_read_by_its_drawers_only():
    """What the lesson says is drawn by plots/, ui/ and the pages; the rest of the library (precision, anatomy,
    maps …) never reads the lesson wing (the words a model is shown in live in ``model_words``, on the floor below)."""
    readers = sorted(m for m, targets in _library_edges().items()
                     if _room(m) not in ("lesson", "plots", "ui") and any(_room(t) == "lesson" for t in targets))
    assert readers == [], readers
