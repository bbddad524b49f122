"""``python -m andrea_viz``: the library from a shell.

Each feature registers its own commands: a module in ``COMMANDS`` offers ``add_commands(sub, common)``, which adds
its subparsers to ``sub`` and picks its repeated options (``--tokenizer``, ``--json``, ``--table``…) from the
parents in ``common`` (andrea_viz/cli_options.py). The benchmark commands come from one table
(andrea_viz/bench/commands.py). Bad input ends with exit code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from . import catalogs, compare_commands, model_commands
from .maps import commands as map_commands
from .anatomy import commands as anatomy_commands
from .bench import commands as bench_commands
from .cli_options import common_options
from .errors import CheckpointError, QueryError
from .grow import commands as grow_commands

# In the order ``--help`` lists them.
COMMANDS = (model_commands, map_commands, compare_commands, catalogs, grow_commands, anatomy_commands, bench_commands)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse's default prints usage too)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m andrea_viz", description="ANDREA Embedding Explorer from a shell")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    common = common_options()
    for feature in COMMANDS:
        feature.add_commands(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (CheckpointError, QueryError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
