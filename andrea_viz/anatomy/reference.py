"""The reference set: ids whose rows training can never have moved as an input, found from the tokenizer.

An id is in it when the tokenizer cannot produce it from any text:

- decode → encode does not give the id back (``[unused5]`` encodes as ``[``, ``unused``, ``##5``, ``]``);
  a WordPiece continuation piece (``##ing``) is tried after a few one-letter prefixes, since it never starts
  a word;
- a byte that UTF-8 never uses (0xC0, 0xC1, 0xF5-0xFF), as a byte id, a byte-level BPE token or ``<0xNN>``;
  other bytes that are not characters on their own (0x80-0xF4) occur inside characters and are reachable.

Special tokens (BOS, ``[CLS]``, ``<|endoftext|>``) are left out: the text pipeline inserts them, so whether
they trained is not known from the tokenizer. Never a hand-written list; ``--reference FILE`` replaces it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import QueryError
from ..i18n import Msg, N_
from ..family import BYTE_TOKENS
from ..tokenizer import ByteTokenizer, HFTokenizer, VocabTokenizer
from ..tokenizer.llmc import LlmcTokenizer

NEVER_UTF8 = frozenset({0xC0, 0xC1, *range(0xF5, 0x100)})  # bytes no valid UTF-8 text holds
WORDPIECE_PREFIXES = ("a", "e", "o", "x", "q", "z", "1", "7", "ø", "þ")  # tried before a continuation piece (it never starts a word)
BYTE_TOKEN = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")  # SentencePiece's byte fallback pieces

ROUND_TRIP = N_("decode → encode does not give it back")
NEVER_BYTE = N_("a byte UTF-8 never uses")
FROM_FILE = N_("listed in the reference file")
REASONS = (ROUND_TRIP, NEVER_BYTE, FROM_FILE)


@dataclass(frozen=True)
class ReferenceSet:
    """ids: sorted; reasons: id -> one of REASONS (msgids); found: False when no tokenizer could be asked."""

    ids: tuple[int, ...]
    reasons: dict[int, str] = field(default_factory=dict)
    source: str = "tokenizer"  # "tokenizer" | "file" | "none"
    specials: tuple[int, ...] = ()  # ids left out as special tokens

    @property
    def found(self) -> bool:
        return self.source != "none"

    @property
    def note(self) -> Msg:
        if self.source == "none":
            return Msg("the reference set could not be found from text: this model has no tokenizer, so only ids "
                       "are shown")
        if self.source == "file":
            return Msg("the reference set is the {n:,} ids of the file given", n=len(self.ids))
        return Msg("the reference set is the {n:,} ids this tokenizer cannot produce from any text, less the special "
                   "tokens ({special:,}), which the text pipeline inserts itself", n=len(self.ids),
                   special=len(self.specials))


def _set(found: dict[int, str], specials=()) -> ReferenceSet:
    return ReferenceSet(tuple(sorted(found)), found, "tokenizer", tuple(sorted(specials)))


def _andrea(tok) -> ReferenceSet:
    found = {b: NEVER_BYTE for b in range(BYTE_TOKENS) if b in NEVER_UTF8}
    for i in range(BYTE_TOKENS, tok.vocab_size):
        if i != tok.bos_id and tok.encode(tok.decode([i])) != [i]:
            found[i] = ROUND_TRIP
    return _set(found, [tok.bos_id])


def _bytes_to_unicode() -> dict[str, int]:
    """GPT-2's byte-level alphabet, inverted: the character that stands for each byte -> the byte."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs, strict=True)}


def _hf_reference(tok) -> ReferenceSet:
    t = tok._tok
    V = tok.vocab_size
    specials = {i for i, a in t.get_added_tokens_decoder().items() if a.special and i < V}
    prefix = getattr(t.model, "continuing_subword_prefix", None) or None
    byte_of = _bytes_to_unicode() if tok.byte_level else {}
    ids = [i for i in range(V) if i not in specials]
    pieces = {i: t.id_to_token(i) for i in ids}
    texts = [t.decode([i], skip_special_tokens=False) for i in ids]
    enc = t.encode_batch(texts, add_special_tokens=False)
    found: dict[int, str] = {}
    continuation: list[int] = []
    for i, text, e in zip(ids, texts, enc, strict=True):
        piece = pieces[i] or ""
        m = BYTE_TOKEN.match(piece)
        if m:
            if int(m.group(1), 16) in NEVER_UTF8:
                found[i] = NEVER_BYTE
            continue
        if "\ufffd" in text and byte_of and all(c in byte_of for c in piece):  # a piece of a character
            if any(byte_of[c] in NEVER_UTF8 for c in piece):
                found[i] = NEVER_BYTE
            continue
        if list(e.ids) == [i]:
            continue
        if prefix and piece.startswith(prefix) and len(piece) > len(prefix):
            continuation.append(i)
        else:
            found[i] = ROUND_TRIP
    if continuation:
        reached: set[int] = set()
        for p in WORDPIECE_PREFIXES:
            words = [p + pieces[i][len(prefix):] for i in continuation]
            for i, e in zip(continuation, t.encode_batch(words, add_special_tokens=False), strict=True):
                if i in e.ids:
                    reached.add(i)
        found.update({i: ROUND_TRIP for i in continuation if i not in reached})
    return _set(found, specials)


def _vocab_txt(tok) -> ReferenceSet:
    specials = {i for i, s in enumerate(tok.tokens) if s in ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")}
    found = {}
    for i, s in enumerate(tok.tokens):
        if i in specials:
            continue
        if s.startswith("##") and len(s) > 2:
            if not any(i in tok.encode(p + s[2:]) for p in WORDPIECE_PREFIXES):
                found[i] = ROUND_TRIP
        elif tok.encode(s) != [i]:
            found[i] = ROUND_TRIP
    return _set(found, specials)


def _llmc(tok) -> ReferenceSet:
    found = {}
    specials = {tok.eot_id} if tok.eot_id is not None else set()
    for i, b in enumerate(tok.tokens):
        if i in specials:
            continue
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:  # a piece of a character: reachable unless it holds a byte UTF-8 never uses
            if any(x in NEVER_UTF8 for x in b):
                found[i] = NEVER_BYTE
            continue
        try:
            if tok.encode(text) != [i]:
                found[i] = ROUND_TRIP
        except QueryError:
            found[i] = ROUND_TRIP
    return _set(found, specials)


def automatic(tokenizer, vocab_size: int) -> ReferenceSet:
    """The ids this tokenizer cannot produce from text, below ``vocab_size`` (the table's rows)."""
    if isinstance(tokenizer, ByteTokenizer) and tokenizer.segments is not None:
        ref = _andrea(tokenizer)
    elif isinstance(tokenizer, HFTokenizer):
        ref = _hf_reference(tokenizer)
    elif isinstance(tokenizer, VocabTokenizer):
        ref = _vocab_txt(tokenizer)
    elif isinstance(tokenizer, LlmcTokenizer):
        ref = _llmc(tokenizer)
    elif hasattr(tokenizer, "stoi"):  # a character vocabulary: every character is a text of its own
        ref = _set({})
    else:  # no vocabulary (ids only), or an ANDREA table whose segment list is not known
        return ReferenceSet((), {}, "none")
    keep = {i: r for i, r in ref.reasons.items() if i < vocab_size}
    return ReferenceSet(tuple(sorted(keep)), keep, ref.source, tuple(i for i in ref.specials if i < vocab_size))


def parse_ids(text: str, vocab_size: int, name: str = "the reference file") -> ReferenceSet:
    """One id a line (blank lines and ``#`` comments skipped), each below ``vocab_size``."""
    ids = set()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        if not line.isdigit():
            raise QueryError("{name}, line {n}: expected one token id (a whole number), got '{got}'", name=name, n=n,
                             got=line[:40])
        i = int(line)
        if i >= vocab_size:
            raise QueryError("{name}, line {n}: id {id} is outside the table (ids 0 to {last})", name=name, n=n,
                             id=i, last=vocab_size - 1)
        ids.add(i)
    if not ids:
        raise QueryError("{name} holds no ids; expected one token id a line", name=name)
    return ReferenceSet(tuple(sorted(ids)), dict.fromkeys(ids, FROM_FILE), "file")


def from_file(path: str | Path, vocab_size: int) -> ReferenceSet:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise QueryError("the reference file {name} could not be read as text ({detail})", name=p.name,
                         detail=type(exc).__name__) from exc
    return parse_ids(text, vocab_size, p.name)
