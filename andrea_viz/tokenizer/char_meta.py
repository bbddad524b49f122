"""nanoGPT's character-level ``meta.pkl`` (data/<dataset>/prepare.py): ``{'vocab_size', 'itos', 'stoi'}``.

Read as plain data (andrea_viz.safe_pickle): nothing in the file runs. Each id is one character;
characters show as themselves, with visible stand-ins for whitespace and control characters.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import CheckpointError, QueryError
from ..i18n import Msg
from ..safe_pickle import load_plain
from .visible import MARKS

STAND_INS = MARKS  # a space, newline, tab or return drawn as every whitespace token is (visible.py)


def shown_char(ch: str) -> str:
    if ch in STAND_INS:
        return STAND_INS[ch]
    if len(ch) == 1 and (ord(ch) < 0x20 or ord(ch) == 0x7F):
        return f"\\x{ord(ch):02x}"
    return ch


class CharTokenizer:
    unknown_id = None

    def __init__(self, itos: dict[int, str], source: str = "meta.pkl"):
        self.itos = itos
        self.stoi = {c: i for i, c in itos.items()}
        self.vocab_size = len(itos)
        self.description = Msg("nanoGPT character vocabulary from {name} ({n:,} characters)", name=source,
                               n=self.vocab_size)

    def encode(self, text: str) -> list[int]:
        missing = sorted({c for c in text if c not in self.stoi})
        if missing:
            raise QueryError("“{text}” holds characters this vocabulary does not have: {chars}", text=text[:60],
                             chars=" ".join(shown_char(c) for c in missing[:10]))
        return [self.stoi[c] for c in text]

    def token(self, token_id: int) -> str:
        ch = self.itos.get(int(token_id))
        return f"#{token_id}" if ch is None else shown_char(ch)

    def lookup(self, word: str) -> list[int]:
        return self.encode(word.strip())


def read_meta(path: Path) -> CharTokenizer:
    """A CharTokenizer from meta.pkl, or a CheckpointError saying what is wrong with the file."""
    meta = load_plain(path)
    if not isinstance(meta, dict) or not isinstance(meta.get("itos"), dict):
        raise CheckpointError("{name} holds {what}; expected nanoGPT's dict with 'vocab_size', 'itos' and 'stoi'",
                              name=path.name, what=type(meta).__name__ if not isinstance(meta, dict)
                              else "a dict with the keys " + ", ".join(map(str, list(meta)[:6])))
    itos = meta["itos"]
    if not all(isinstance(k, int) and isinstance(v, str) and len(v) == 1 for k, v in itos.items()):
        raise CheckpointError("{name}: 'itos' must map ids to single characters", name=path.name)
    n = len(itos)
    if sorted(itos) != list(range(n)):
        raise CheckpointError("{name}: 'itos' must hold the ids 0 to {last}; it holds {n} ids that are not", name=path.name,
                              last=n - 1, n=n)
    declared = meta.get("vocab_size")
    if declared != n:
        raise CheckpointError("{name} says vocab_size = {declared} but its 'itos' holds {n:,} characters", name=path.name,
                              declared=str(declared), n=n)
    stoi = meta.get("stoi")
    if isinstance(stoi, dict) and any(stoi.get(c) != i for i, c in itos.items()):
        raise CheckpointError("{name}: 'stoi' and 'itos' disagree (they must be inverse maps)", name=path.name)
    return CharTokenizer(itos, path.name)
