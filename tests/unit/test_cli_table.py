"""``python -m andrea_viz`` as a table: each feature registers its own commands (``add_commands(sub, common)``), the
repeated options come from shared parents, the bench commands from one table, and cli.py stays short."""

import argparse
import ast
from pathlib import Path

import pytest

from andrea_viz import cli
from andrea_viz.bench.commands import BENCHES, Bench
from andrea_viz.cli_options import common_options, named_tables

ROOT = Path(__file__).resolve().parents[2]

# Every command and its options (positionals by name), as they were before the table (issue 32): the table changed
# where commands are written, not what a person can type.
OPTIONS = {
    "analogy": "source a b c -k --tokenizer --json --table --position --output",
    "audit": "base tuned --step0 --lang --json",
    "bench": "--B --T --d --V --dtype --repeats --no-compile --json",
    "bench-anatomy": "--threads",
    "bench-audit": "--repeats --grow-steps --rows --d --added --anchors",
    "bench-class": "n --trainings --steps --only --teacher --idle --servers --store",
    "bench-drift": "--repeats",
    "bench-geometry": "--repeats --tsne-points --tsne-repeats --no-whole --no-sklearn-whole",
    "bench-gpu": "--repeats",
    "bench-grow": "--repeats",
    "bench-load": "--repeats --folder",
    "bench-map": "--repeats --no-big --no-browser --sizes --methods --tables --full-quality --lock-only --card --planted",
    "bench-map-view": "--sizes --renderers",
    "bench-memory": "--gb -d --folder",
    "bench-pages": "--repeats",
    "bench-precision": "--repeats --dtype",
    "bench-tying": "--preset --seed --steps --write",
    "catalogs": "",
    "clusters": "source --n --seed --json --lang --tokenizer --table --position --output",
    "dims": "source --top --tokenizer --json",
    "drift": "a b --tokenizer --align -k --top --json --table --position --output",
    "grow": "--preset --corpus --steps --seed --language --snapshots --out --tied --final-only --json",
    "hubs": "source -k --top --sample --seed --tokenizer --json",
    "info": "source --tokenizer --json --table --position --output",
    "neighbors": "source word -k --metric --tokenizer --json --table --position --output",
    "precision": "source --dtypes --against -k --worst --tokenizer --json --table --position --output",
    "project": "source --method --n --dims --seed --include --out --labels --lang --tokenizer --json --quality "
               "--full-quality --table --position --output",
    "undertrained": "source --top --reference --tokenizer --json",
}


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def _options(p: argparse.ArgumentParser) -> set[str]:
    return {a.option_strings[-1] if a.option_strings else a.dest for a in p._actions} - {"--help"}


def test_cli_py_is_at_most_200_lines():
    assert len((ROOT / "andrea_viz" / "cli.py").read_text().splitlines()) <= 200


def test_every_command_keeps_its_options():
    found = {name: _options(p) for name, p in _commands().items()}
    assert found == {name: set(opts.split()) for name, opts in OPTIONS.items()}


def test_the_bench_commands_are_the_rows_of_one_table():
    commands = _commands()
    assert len({b.name for b in BENCHES}) == len(BENCHES)
    assert {b.name for b in BENCHES} == {name for name in commands if name.startswith("bench")}
    assert "bench-anatomy" in {b.name for b in BENCHES}
    for b in BENCHES:
        assert commands[b.name].get_default("func") is b
        assert _options(commands[b.name]) == set(OPTIONS[b.name].split())


def test_a_bench_row_runs_with_its_options_as_keywords():
    got = []
    row = Bench("bench-x", "h", lambda repeats, whole: got.append((repeats, whole)))
    assert row(argparse.Namespace(command="bench-x", func=row, repeats=3, whole=False)) == 0
    assert got == [(3, False)]
    assert Bench("bench-y", "h", lambda: 7)(argparse.Namespace(command="bench-y")) == 7  # an int: the exit code
    geometry = _commands()["bench-geometry"].parse_args(["--no-whole", "--repeats", "2"])
    assert (geometry.whole, geometry.sklearn_all, geometry.repeats, geometry.tsne_points) == (False, True, 2, 5000)


@pytest.mark.parametrize("argv, says", [
    (["bench-class"], "give one or more class sizes"),
    (["bench-class", "0"], "give one or more class sizes"),
    (["bench-class", "3", "--servers", "2"], "--servers and --store go with --teacher"),
    (["bench-class", "3", "--teacher", "--servers", "0"], "--servers must be at least 1"),
    (["bench-class", "3", "--idle", "--teacher"], "--idle runs one server of each kind"),
    (["bench", "--B", "0"], "must all be at least 1"),
    (["bench-anatomy", "--threads", "two"], "expected a whole number, got 'two'"),
])
def test_bench_rows_refuse_bad_input_in_one_line(cli, argv, says):
    r = cli(*argv)
    assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_the_shared_parents_give_the_same_options_to_each_command():
    commands = _commands()
    args = commands["info"].parse_args(["m", "--table", "wte", "--output", "lm_head", "--tokenizer", "a", "--tokenizer",
                                        "b", "--json"])
    assert named_tables(args) == {"token": "wte", "output": "lm_head"} and args.tokenizer == ["a", "b"] and args.json
    assert named_tables(commands["hubs"].parse_args(["m"])) is None  # hubs names no tables
    common = common_options()
    for name in ("neighbors", "analogy", "drift", "precision", "undertrained", "dims", "hubs"):
        p = commands[name]
        for parent in (common.tokenizer, common.json):
            for a in parent._actions:
                mine = p._option_string_actions[a.option_strings[0]]
                assert (mine.help, mine.default, type(mine)) == (a.help, a.default, type(a)), (name, a.option_strings)


def test_no_library_module_imports_the_cli():
    """The arrow runs from cli.py down to each feature's commands, never back up."""
    offenders = []
    for p in (ROOT / "andrea_viz").rglob("*.py"):
        if p.name in ("cli.py", "__main__.py"):
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else \
                [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            if any(n == "andrea_viz.cli" or n.endswith(".cli") or n == "cli" for n in names):
                offenders.append(str(p.relative_to(ROOT)))
    assert offenders == []
