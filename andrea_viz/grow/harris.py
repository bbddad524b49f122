"""Segments from a corpus by Harris's successor variety (Z. Harris, "From phoneme to morpheme", 1955).

The rule implemented here, on the corpus's words (maximal runs of letters, of any script, joined by inner
hyphens as in terça-feira):

1. Successor variety. For a prefix p, SV(p) is the number of distinct letters that follow p in the
   corpus's word types, plus one when p is itself a word (the end of a word counts as a successor).
2. Whole words. A word of two or more bytes in UTF-8 that occurs at least ``min_word_count`` times is a
   segment as it is, so the common words of a corpus (cat, dog, tuesday, terça-feira) are one id each; a
   single letter outside ASCII counts (貓, 狗: three bytes each), a single ASCII letter is already a byte id.
3. Cuts. Every other word is cut after each prefix whose SV is a peak: at least 2, higher than the
   SV of the prefix one letter shorter, and not lower than the SV of the one a letter longer
   ("walk|ing": after "walk" come e, i, s and the word's end). Pieces of one byte are dropped (the 256
   byte ids cover them).
4. Pieces that occur at least ``min_piece_count`` times, counted with their words' frequencies,
   become segments too.
5. Order: most frequent first, ties alphabetical; at most ``max_segments``.

ANDREA's ids are then 256 bytes, these segments in this order, and one BOS.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")  # letters of any script, inner hyphens kept (terça-feira)
MIN_PIECE_BYTES = 2  # a segment of one byte would only repeat a byte id


def _long_enough(piece: str) -> bool:
    return len(piece.encode("utf-8")) >= MIN_PIECE_BYTES


def word_counts(text: str) -> Counter:
    return Counter(WORD.findall(text))


def successor_variety(types: set[str]) -> dict[str, int]:
    """SV of every proper prefix and every word of ``types`` (the empty prefix included)."""
    nxt: dict[str, set[str]] = defaultdict(set)
    for w in types:
        for i in range(len(w)):
            nxt[w[:i]].add(w[i])
        nxt[w].add("")  # the end of a word is a successor too
    return {p: len(s) for p, s in nxt.items()}


def cut(word: str, sv: dict[str, int]) -> list[str]:
    """The word's pieces at the peaks of its successor variety."""
    cuts = []
    for i in range(1, len(word)):
        here, before, after = sv.get(word[:i], 0), sv.get(word[: i - 1], 0), sv.get(word[: i + 1], 0)
        if here >= 2 and here > before and here >= after:
            cuts.append(i)
    bounds = [0, *cuts, len(word)]
    return [word[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def harris_segments(text: str, min_word_count: int = 3, min_piece_count: int = 3,
                    max_segments: int | None = None) -> list[str]:
    """The corpus's segments, most frequent first (see the module's rule)."""
    counts = word_counts(text)
    sv = successor_variety(set(counts))
    seg_counts: Counter = Counter()
    pieces: Counter = Counter()
    for w, n in counts.items():
        if n >= min_word_count:
            if _long_enough(w):
                seg_counts[w] += n
        else:
            for piece in cut(w, sv):
                if _long_enough(piece):
                    pieces[piece] += n
    for piece, n in pieces.items():
        if n >= min_piece_count:
            seg_counts[piece] += n
    ordered = sorted(seg_counts, key=lambda s: (-seg_counts[s], s))
    return ordered[:max_segments] if max_segments is not None else ordered
