"""A model a hostile user would bring: tokens, a folder name and words that try to become markup, links,
frames, images, colour, math, direction overrides or a huge caption on the page."""

from __future__ import annotations

from pathlib import Path

import numpy as np

EVIL = "evil.invalid"
BREAKOUT = "x`<img/src=https://evil.invalid/i.png/onerror=alert(1)><iframe/srcdoc=hi></iframe>`y"  # one word, no spaces
HOSTILE = [
    BREAKOUT,
    "a` [x](https://evil.invalid/y) ![i](https://evil.invalid/i.png) `b",
    "`</code><img src=https://evil.invalid/i.png onerror=alert(1)>`",
    "<iframe srcdoc='<script>alert(1)</script>'></iframe>",
    "<object data='data:text/html,<script>alert(1)</script>'></object>",
    "[click](https://evil.invalid/x)",
    "![img](https://evil.invalid/i.png)",
    "<a href=\"https://evil.invalid/x\">cat</a>",
    "<b>bold</b><br>",
    "<script>alert(1)</script>",
    ":red[RED] :material/home:",
    "$x^2$",
    "https://evil.invalid/auto www.evil.invalid",
    "\u202eevil\u202c",
    "nul\x00byte\nline",
    "**strong** _em_ # heading",
    "x" * 5000,
]
WORDS = ["cat", "dog", "pet", "tuesday", "king", "man", "woman", "queen", "the", "a", "sat", "on", "mat"]
FOLDER = "evil`[x](https:__evil.invalid)<b>$y$"


def hostile_folder(root: Path) -> tuple[Path, str]:
    """``root/<hostile folder name>/evil.npz`` with a tokenizer.json of hostile tokens beside it; returns the
    file and its path relative to root (as ``?model=folder:`` names it)."""
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel
    from tokenizers.normalizers import Replace
    from tokenizers.pre_tokenizers import WhitespaceSplit

    folder = root / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"[UNK]": 0}
    for t in WORDS + HOSTILE:
        vocab.setdefault(t, len(vocab))
    tok = Tokenizer(WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = Replace("mat", BREAKOUT)  # the default sentence's last word becomes the break-out: no typing needed
    tok.pre_tokenizer = WhitespaceSplit()
    tok.save(str(folder / "tokenizer.json"))
    rng = np.random.default_rng(0)
    V, d, T = len(vocab), 16, 16
    np.savez(folder / "evil.npz", wte=rng.standard_normal((V, d)).astype(np.float32),
             wpe=rng.standard_normal((T, d)).astype(np.float32) * 0.1)
    return folder / "evil.npz", f"{FOLDER}/evil.npz"
