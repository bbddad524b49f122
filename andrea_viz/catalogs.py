"""The translation catalogues: every msgid in the code, extracted, and the gettext ``.po`` files kept in step.

A msgid is the first argument, a string literal, of ``_()``, ``N_()``, ``Msg()``, ``CheckpointError()`` or
``QueryError()`` anywhere in the library and the pages. ``python -m andrea_viz catalogs`` adds new msgids
to every catalogue (empty, for a translator), keeps existing translations, and drops msgids no longer
used; translators work on the ``.po`` files with any gettext tool (Poedit, Weblate, ``pybabel``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from .i18n import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, LOCALE_DIR

ROOT = Path(__file__).resolve().parents[1]
KEYWORDS = {"_", "N_", "Msg", "CheckpointError", "QueryError"}
SOURCES = ("andrea_viz", "pages", "streamlit_app.py")
# msgids written the same in every language (names, formulas, symbols, units): each catalogue holds them as
# they are, and Chinese, whose every other message differs from the English, may keep these alone
SAME_IN_EVERY_LANGUAGE = {
    "RoPE", "one-hot · E", "PCA: {axes}", "{T:,} × {d:,} = {n:,}", "{T} × {d}", "{a} × {b}", "{n:.0f} µs",
    "{n:.2f} GB/s", "{n:.2f} ms", "{s:.2f} s", "{name}: {format}, {V:,} × {d}.", "id {id:,}",
    "position_embedding[{t}]   ‖·‖ = {n:.3f}",
}

# per language, msgids that language writes as English does: loanwords (token, backend, checkpoint), names
# and formulas with words in them
SAME_IN_LANGUAGE = {
    "nl": frozenset({
        '**Tokenizer:** {tokenizer}', '**Tokens:** ',
        '**{label}**: cos(cat, dog) = {cd:+.3f}, cos(cat, tuesday) = {ct:+.3f}', 'ANDREA-120M: {n} parameters',
        'Backend', 'Backends', 'Checkpoint', 'Context T', 'Corpus', 'Forward pass', 'MLP (fc1, fc2)', 'Model',
        'Overlap (Jaccard@{k})', 'PCA (exact)', 'Score', 'Seed', 'Tokenizer', 'Tokens: {chips}', 'Train',
        'UMAP, seed {seed}', 'V={V}, d={d}, T={T}, L={L}, {kind}: {n} parameters', 'attention (wq, wk, wv, wo)',
        'backend', 'config.json: model_type = {model_type}, architectures = {archs}, tie_word_embeddings = {tie}',
        'cos %{x}<br>%{y:,} tokens', 'dim %{x}: %{y:.4f}', 'm (query)', 'max |one-hot·E − E[id]|',
        'metadata.tsv (Embedding Projector)', 'model<br>{n:,}', 'model_args: {args}', 'n (key)', 'output',
        'parameters', 'safetensors (Hugging Face BERT / MiniLM)', 'tensor', 'token',
        'token_embedding[“{token}”]   ‖·‖ = {n:.3f}', 'tokens', 'trainer_state.json: global_step = {step:,}',
        'vectors.tsv (Embedding Projector)', '{n:,} ({size} in fp32)', 'θ = {theta:.0f}°:  u·v = {dot:+.3f}',
        'θ = {theta}°: u·v = {dot:+.2f}, cos θ = {cos:+.2f}',
    }),
    "pt-BR": frozenset({
        '**Tokenizer:** {tokenizer}', '**Tokens:** ',
        '**{label}**: cos(cat, dog) = {cd:+.3f}, cos(cat, tuesday) = {ct:+.3f}', 'Backend', 'Backends',
        'Checkpoint', 'Corpus', 'Forward pass', 'MLP (fc1, fc2)', 'Tokenizer', 'Tokens: {chips}', 'backend',
        'config.json: model_type = {model_type}, architectures = {archs}, tie_word_embeddings = {tie}',
        'cos %{x}<br>%{y:,} tokens', 'dim %{x}: %{y:.4f}', 'm (query)', 'metadata.tsv (Embedding Projector)',
        'model_args: {args}', 'n (key)', 'perpendicular', 'safetensors (Hugging Face BERT / MiniLM)', 'tensor',
        'token', 'token_embedding[“{token}”]   ‖·‖ = {n:.3f}', 'tokens',
        'trainer_state.json: global_step = {step:,}', 'vectors.tsv (Embedding Projector)',
        'θ = {theta:.0f}°:  u·v = {dot:+.3f}', 'θ = {theta}°: u·v = {dot:+.2f}, cos θ = {cos:+.2f}',
    }),
}


@dataclass(frozen=True)
class FoundMsgid:
    msgid: str
    file: str
    line: int


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def extract(root: Path = ROOT) -> dict[str, list[FoundMsgid]]:
    """msgid -> where it is used, over the library and the pages."""
    out: dict[str, list[FoundMsgid]] = {}
    files = [p for s in SOURCES for p in ((root / s).rglob("*.py") if (root / s).is_dir() else [root / s])]
    for path in sorted(files):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            msgid = _literal(node.args[0]) if name in KEYWORDS else None
            if msgid:
                out.setdefault(msgid, []).append(FoundMsgid(msgid, str(path.relative_to(root)), node.lineno))
    return out


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang.replace("-", "_") / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalog(lang: str):
    from babel.messages.pofile import read_po

    path = po_path(lang)
    if not path.is_file():
        from babel.messages.catalog import Catalog

        return Catalog(locale=lang.replace("-", "_"), domain=DOMAIN, project="ANDREA Embedding Explorer")
    with open(path, "rb") as f:
        return read_po(f, locale=lang.replace("-", "_"), domain=DOMAIN)


def write(lang: str, catalog) -> Path:
    from babel.messages.pofile import write_po

    path = po_path(lang)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        write_po(f, catalog, width=120, sort_output=True, include_previous=False)
    return path


def update(translations: dict[str, dict[str, str]] | None = None) -> dict[str, tuple[int, int]]:
    """Bring every catalogue in step with the code; ``translations`` (lang -> msgid -> text) are written in.
    Returns lang -> (msgids, translated)."""
    found = extract()
    report = {}
    for lang in LANGUAGES:
        if lang == DEFAULT_LANGUAGE:
            continue
        old = read_catalog(lang)
        from babel.messages.catalog import Catalog

        new = Catalog(locale=lang.replace("-", "_"), domain=DOMAIN, project="ANDREA Embedding Explorer",
                      version="1", language_team=LANGUAGES[lang], fuzzy=False, copyright_holder="the ANDREA course",
                      creation_date=old.creation_date, revision_date=old.creation_date)
        given = (translations or {}).get(lang, {})
        for msgid, uses in found.items():
            text = given.get(msgid) or (old[msgid].string if old.get(msgid) is not None else "") \
                or (msgid if msgid in SAME_IN_EVERY_LANGUAGE else "")
            new.add(msgid, text, locations=[(u.file, u.line) for u in uses[:3]],
                    flags=["python-brace-format"] if "{" in msgid and "%{" not in msgid else [])
        write(lang, new)
        report[lang] = (len(found), sum(1 for m in new if m.id and m.string))
    return report
