"""The options many ``python -m andrea_viz`` commands repeat, as argparse parents each command picks from, and
what reads them back. Each feature's ``add_commands(sub, common)`` receives one ``Common``."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from .tokenizer import TOKENIZER_HELP


@dataclass(frozen=True)
class Common:
    """Parents for ``sub.add_parser(name, parents=[...])``, built once per parser:

    - ``tokenizer``: ``--tokenizer`` (repeatable), for every command that reads a model;
    - ``json``: a plain ``--json`` flag (a command whose ``--json`` says more adds its own);
    - ``tables``: ``--table``, ``--position``, ``--output``: which of a file's tensors is which table, when no known
      name says (read back by ``named_tables``).
    """

    tokenizer: argparse.ArgumentParser
    json: argparse.ArgumentParser
    tables: argparse.ArgumentParser


def common_options() -> Common:
    tokenizer = argparse.ArgumentParser(add_help=False)
    tokenizer.add_argument("--tokenizer", action="append", help=TOKENIZER_HELP)
    as_json = argparse.ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true")
    tables = argparse.ArgumentParser(add_help=False)
    tables.add_argument("--table", metavar="KEY", help="the file's tensor that is the token table (when no known name "
                                                       "matches)")
    tables.add_argument("--position", metavar="KEY", help="the file's tensor that is the position table (with --table)")
    tables.add_argument("--output", metavar="KEY", help="the file's tensor that is the output table (with --table)")
    return Common(tokenizer=tokenizer, json=as_json, tables=tables)


def named_tables(args: argparse.Namespace) -> dict[str, str] | None:
    """What ``--table``, ``--position`` and ``--output`` named, for ``load(..., tables=)``; None when nothing was."""
    named = {"token": getattr(args, "table", None), "position": getattr(args, "position", None),
             "output": getattr(args, "output", None)}
    return {k: v for k, v in named.items() if v} or None


def whole(value: str) -> int:
    """An argparse type: a whole number ≥ 0 written in digits."""
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}")
    return int(value)
