"""The translation catalogues: every msgid in the code, extracted, and the gettext ``.po`` files kept in step.

A msgid is the first argument, a string literal, of ``_()``, ``N_()``, ``Msg()``, ``CheckpointError()`` or
``QueryError()`` anywhere in the library and the pages. ``python -m andrea_viz catalogs`` adds new msgids
to every catalogue (empty, for a translator), keeps existing translations, and drops msgids no longer
used; translators work on the ``.po`` files with any gettext tool (Poedit, Weblate, ``pybabel``).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from .i18n import CONTEXT, DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALE_DIR, context_key

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {"_": None, "N_": None, "Msg": None, "CheckpointError": None, "QueryError": None,
            "pN_": ((1, "c"), 2)}  # Babel's spec: the first argument a msgctxt, the second the msgid
SOURCES = ("andrea_viz", "pages", "home.py")
# msgids written the same in every language (names, formulas, symbols, units): each catalogue holds them as
# they are, and Chinese, whose every other message differs from the English, may keep these alone
SAME_IN_EVERY_LANGUAGE = {
    "RoPE", "ALiBi", "PCA", "× {s:.4g}", "× {s:.4g} (√d, d = {d})", "one-hot · E", "PCA: {axes}", "{T:,} × {d:,} = {n:,}", "{T} × {d}", "{a} × {b}", "{n:.0f} µs",
    "{n:.2f} GB/s", "{n:.2f} ms", "{s:.2f} s", "{name}: {format}, {V:,} × {d}.", "id {id}", "id",
    "position_embedding[{t}]   ‖·‖ = {n:.3f}",
}

# per language, msgids that language writes as English does: loanwords (token, backend, checkpoint), names,
# formulas with words in them, and sentence joiners (Chinese joins sentences with 。 and no space)
SAME_IN_LANGUAGE = {
    "nl": frozenset({
        '{name}: {summary}',
        '**Tokenizer:** {tokenizer}', '**Tokens:** ',
        'ANDREA-120M: {n} parameters',
        'Checkpoint', 'Context T', 'Forward pass', 'Head', 'MLP (fc1, fc2)', 'Model', 'Overlap (Jaccard@{k})', 'Score',
        'Tokenizer', 'Tokens: {chips}', 'UMAP, seed {seed}', 'V={V}, d={d}, T={T}, L={L}, {kind}: {n} parameters', 'attention (wq, wk, wv, wo)',
        'config.json: model_type = {model_type}, architectures = {archs}, tie_word_embeddings = {tie}',
        'cos %{x}<br>%{y:,} tokens', 'dim %{x}: %{y:.4f}', 'm (query)', 'max |one-hot·E − E[id]|',
        'metadata.tsv (Embedding Projector)', 'model<br>{n:,}', 'model_args: {args}', 'n (key)', 'output',
        'parameters', 'safetensors (Hugging Face BERT / MiniLM)', 'tensor', 'token',
        'token_embedding[“{token}”]   ‖·‖ = {n:.3f}', 'tokens', 'trainer_state.json: global_step = {step:,}',
        'vectors.tsv (Embedding Projector)', '{n:,} ({size} in fp32)', 'θ = {theta:.0f}°:  u·v = {dot:+.3f}',
        'θ = {theta}°: u·v = {dot:+.2f}, cos θ = {cos:+.2f}', '{first} {then}', '{note}. {hint}',
        '{a:,} + {b:,} = {n:,} parameters',
        '{token} (byte)',
        'drift', 'drift %{x}<br>%{y:,} tokens',  # the Dutch say drift too: one word on Compare
    }),
    "pt-BR": frozenset({
        '{name}: {summary}',
        '**Tokenizer:** {tokenizer}', '**Tokens:** ',
        'Checkpoint', 'Forward pass',
        'MLP (fc1, fc2)', 'Tokenizer', 'Tokens: {chips}',
        'config.json: model_type = {model_type}, architectures = {archs}, tie_word_embeddings = {tie}',
        'cos %{x}<br>%{y:,} tokens', 'dim %{x}: %{y:.4f}', 'm (query)', 'metadata.tsv (Embedding Projector)',
        'model_args: {args}', 'n (key)', 'perpendicular', 'safetensors (Hugging Face BERT / MiniLM)', 'tensor',
        'token', 'token_embedding[“{token}”]   ‖·‖ = {n:.3f}', 'tokens',
        'trainer_state.json: global_step = {step:,}', 'vectors.tsv (Embedding Projector)',
        'θ = {theta:.0f}°:  u·v = {dot:+.3f}', 'θ = {theta}°: u·v = {dot:+.2f}, cos θ = {cos:+.2f}',
        '{first} {then}', '{note}. {hint}',
        '{token} (byte)',
    }),
}


@dataclass(frozen=True)
class FoundMsgid:
    msgid: str
    file: str
    line: int


def extract(root: Path = ROOT) -> dict[str, list[FoundMsgid]]:
    """msgid -> where it is used, over the library and the pages: Babel's own Python extraction (the first
    argument of each keyword, when it is a string literal; a call inside an f-string or inside another keyword
    call's arguments is not seen, so none is written so)."""
    method_map = [(f"{s}/**.py" if (root / s).is_dir() else s, "python") for s in SOURCES]
    out: dict[str, list[FoundMsgid]] = {}
    for file, line, msgid, _comments, context in extract_from_dir(root, method_map, keywords=KEYWORDS):
        if msgid:
            key = context_key(context, msgid)
            out.setdefault(key, []).append(FoundMsgid(key, file.replace("\\", "/"), line))
    return out


def key_of(message) -> str:
    """A catalogue message's key, as ``i18n.catalogue`` and ``extract`` hold it: its msgctxt and msgid joined."""
    return context_key(message.context, message.id)


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang.replace("-", "_") / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: str):
    path = po_path(lang)
    if not path.is_file():
        return Catalog(locale=lang.replace("-", "_"), domain=DOMAIN, project="ANDREA Embedding Explorer")
    with open(path, "rb") as f:
        return read_po(f, locale=lang.replace("-", "_"), domain=DOMAIN)


def write(lang: str, catalog) -> Path:
    """The .po file without source locations: #: lines change with every edit and make merges conflict."""
    path = po_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=120, sort_output=True, include_previous=False, no_location=True)
    return path


def update(translations: dict[str, dict[str, str]] | None = None) -> dict[str, tuple[int, int]]:
    """Bring every catalogue in step with the code with Babel's merge (``Catalog.update``: new msgids added
    empty, translations kept, msgids no longer used dropped, no fuzzy guesses); ``translations`` (lang -> msgid
    -> text) are written in. Returns lang -> (msgids, translated)."""
    found = extract()
    template = Catalog(domain=DOMAIN)
    for key in found:
        context, _sep, msgid = key.rpartition(CONTEXT)
        template.add(msgid, context=context or None,
                     flags=["python-brace-format"] if "{" in msgid and "%{" not in msgid else [])
    report = {}
    for lang in LANGUAGES:
        if lang == DEFAULT_LANGUAGE:
            continue
        catalog = read_catalog(lang)
        created = catalog.creation_date
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalog.creation_date = created  # Babel takes the template's date: kept, so a run without changes is no diff
        catalog.obsolete.clear()  # msgids no longer in the code are dropped, not kept as #~ comments
        given = (translations or {}).get(lang, {})
        for m in catalog:
            if m.id:
                m.string = given.get(key_of(m)) or m.string or (m.id if m.id in SAME_IN_EVERY_LANGUAGE else "")
        write(lang, catalog)
        report[lang] = (len(found), sum(1 for m in catalog if m.id and m.string))
    return report


def _cmd_catalogs(args: argparse.Namespace) -> int:
    for lang, (n, done) in update().items():
        print(f"{lang}: {n} msgids, {done} translated" + (f", {n - done} to translate" if n > done else ""))
    return 0


def add_commands(sub, common) -> None:
    """``python -m andrea_viz catalogs`` (it takes none of the common options)."""
    p = sub.add_parser("catalogs", help="bring the translation catalogues (.po) in step with the msgids in the code")
    p.set_defaults(func=_cmd_catalogs)
