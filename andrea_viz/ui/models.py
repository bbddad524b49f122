"""The shared sidebar model picker, page setup and the model card.

Legacy ``pages/`` mode makes the same widget on two pages two widgets, so the real choice lives
in ``st.session_state[state.MODEL]``; the widget has its own key, is filled from it before it is
drawn, and writes back in ``on_change``. The choice is mirrored in the URL (``?model=...``) so
a view can be shared.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from .. import i18n, lexicon
from ..builtin import BUILTINS, DEFAULT_MODEL
from ..checkpoints import said_as
from ..checkpoints.folder import checkpoint_dir, inside
from ..checkpoints.tables import NoTableError
from ..errors import CheckpointError
from ..i18n import LANGUAGES, N_, _, num, pN_, tr, tr_md
from ..model import Embeddings
from ..safe_text import in_code, md
from ..registry import page_of
from ..sizing import human_bytes
from ..timeline import Timeline, open_timeline
from . import naming, session_files, state, url
from .cache import get_model
from .kernel_build import start_builds_once
from .nav import sidebar_menu
from .uploads import user_models
from .uploads import load_checkpoint
from .tables import dataframe

# The tab's icon, shipped with the app: Streamlit sends a local SVG as a data: URL, where a ":material/...:" page icon
# made every browser fetch it from fonts.gstatic.com (the sidebar's Material icons come from Streamlit's own font).
FAVICON = Path(__file__).with_name("favicon.svg")


def model_options() -> list[str]:
    return list(BUILTINS) + list(user_models())


def model_label(source: str) -> str:
    info = BUILTINS.get(source)
    if info:
        return tr(info.label)
    emb = user_models().get(source)
    return _("{name} (your checkpoint)", name=emb.name) if emb else source


AUTO = "_model_auto"  # session_state: True while the model is the language's default, not one the user asked for


def default_model(lang: str) -> str:
    """The model a new session starts with: MiniLM in English; in another language the model grown on that
    language's corpus (andrea-micro-nl …), so that every page that needs a trained table shows the learner's own
    words. A model named in the address or picked in the sidebar wins."""
    return DEFAULT_MODEL if lang == i18n.DEFAULT_LANGUAGE else lexicon.model_of(lang)


def run_language() -> str:
    """The language of the grown run (and the lesson's words) a page shows beside the sidebar's model: the sidebar
    model's own when it is one of the grown micro models (a model in the address or picked in the sidebar wins),
    else the reader's (andrea-micro-nl and kat in Dutch)."""
    return lexicon.language_of(st.session_state.get(state.MODEL) or "") or lexicon.lexicon_language(i18n.language())


def _copy_back() -> None:
    st.session_state[state.MODEL] = st.session_state[state.MODEL_WIDGET]
    st.session_state[AUTO] = False


POSITION_KIND_LABELS = {"learned": N_("learned"), "sinusoidal": N_("sinusoidal"), "rope": N_("RoPE"), "alibi": N_("ALiBi"),
                        "relative": N_("relative (T5)"), "none": N_("none")}
OUTPUT_KIND_LABELS = {"untied": pN_("output table", "untied"), "tied": pN_("output table", "tied"),  # a table's word:
                      "none": pN_("output table", "none")}  # pt-BR's "desvinculada", where a model is "desvinculado"
FOLDER_PREFIX = "folder:"  # ?model=folder:<path relative to the checkpoint folder>
FOLDER_SOURCES = "_folder_sources"  # session_state: model key -> (its path relative to the checkpoint folder,
#                                       the address value of its tables named by hand, or None)


def from_folder(rel: str, tables: dict[str, str] | None = None) -> Embeddings:
    """A checkpoint picked from the checkpoint folder by its relative path (refused outside the folder);
    remembered so that its URL says where it came from. ``tables``: tables named by hand (the URL says them too)."""
    path = inside(checkpoint_dir(), rel)
    emb = load_checkpoint(path, None, rel.rstrip("/"), confine=checkpoint_dir(), tables=tables)
    said = naming.tables_address(tables) if tables else None
    if not tables or said is not None:  # a key the address cannot hold: that model lives in this session only
        st.session_state.setdefault(FOLDER_SOURCES, {})[emb.key] = (rel, said)
    return emb


def read_from_folder(rel: str) -> Embeddings:
    """``from_folder``; when no known name says which tensor is the token table, the file is kept for
    ``naming.table_picker`` (and the sentence still raised)."""
    try:
        emb = from_folder(rel)
    except NoTableError as exc:
        naming.offer(naming.Pending("folder", rel, exc, lambda tables: from_folder(rel, tables=tables)))
        raise
    naming.forget()
    return emb


def timeline_from_folder(rel: str) -> Timeline:
    """A folder of the checkpoint folder opened as a timeline; its sentences name it by ``rel``, never the server's
    path."""
    path = inside(checkpoint_dir(), rel)
    try:
        return open_timeline(path)
    except CheckpointError as exc:
        raise CheckpointError(said_as(exc.msg, path, rel.rstrip("/") or ".")) from exc


def _model_from_url() -> str:
    """The model the address names (``?model=`` a built-in or ``folder:<path>``, with ``&tables=`` the tables named
    by hand) by url's one rule; without one (or with one refused), the grown model of the session's language."""
    tables = url.initial(naming.TABLES_PARAM, None, naming.tables_in_address)  # used with a ?model=folder:<path>
    wanted = url.initial("model", None, lambda raw: _model_in_address(raw, tables))
    if wanted is not None:
        return wanted
    st.session_state[AUTO] = True
    return default_model(i18n.language())


def _model_in_address(raw: str, tables: dict[str, str] | None = None) -> str:
    if raw in BUILTINS:
        return raw
    if not raw.startswith(FOLDER_PREFIX):
        raise ValueError(raw)  # refused by url's rule, with its sentence
    try:
        return from_folder(raw[len(FOLDER_PREFIX):], tables=tables).key
    except CheckpointError as exc:  # the folder's own sentence says more than url's
        st.error(_("The model in the address could not be opened: {reason}", reason=tr(exc.msg, escape=md)), icon=":material/warning:")
        return DEFAULT_MODEL


def model_picker() -> str:
    """Draw the sidebar picker and return the chosen source."""
    chosen = st.session_state.get(state.MODEL)
    if chosen not in model_options():
        chosen = _model_from_url()
        st.session_state[state.MODEL] = chosen
    options = model_options()
    st.session_state[state.MODEL_WIDGET] = chosen
    labels = {o: model_label(o) for o in options}  # fixed now: the widget may format outside a script run
    st.sidebar.selectbox(
        _("Model"), options, key=state.MODEL_WIDGET, format_func=labels.__getitem__, on_change=_copy_back,
        help=_("Every page shows this model. ANDREA-micro and all-MiniLM-L6-v2 are trained tables; the other ANDREA "
               "tables are untrained (step 0)."),
    )
    info = BUILTINS.get(chosen)
    if info:  # the model's whole name first: a long one is cut in the picker
        st.sidebar.caption(_("{name}: {summary}", name=md(labels[chosen]), summary=tr(info.summary)))
    folder, tables = st.session_state.get(FOLDER_SOURCES, {}).get(chosen, (None, None))
    if chosen in BUILTINS:
        st.query_params["model"] = chosen
    elif folder is not None:  # a file of the checkpoint folder: the address names it (and the tables named by hand)
        st.query_params["model"] = FOLDER_PREFIX + folder
    else:  # an upload lives in this session only
        st.query_params.pop("model", None)
    url.keep(**{naming.TABLES_PARAM: tables if folder is not None else None})
    return chosen


def _copy_language() -> None:
    lang = st.session_state[state.LANGUAGE] = st.session_state[state.LANGUAGE_WIDGET]
    if st.session_state.get(AUTO):  # the model was the old language's default: the new language's replaces it
        st.session_state[state.MODEL] = default_model(lang)


def language_picker() -> str:
    """The session's language: chosen in the sidebar, first taken from ``?lang=``, kept in the URL."""
    lang = st.session_state.get(state.LANGUAGE)
    if lang not in LANGUAGES:
        lang = url.initial("lang", i18n.DEFAULT_LANGUAGE, allowed=LANGUAGES)
        st.session_state[state.LANGUAGE] = lang
    i18n.set_language(lang)
    st.session_state[state.LANGUAGE_WIDGET] = lang
    st.sidebar.selectbox("Language · 語言 · Taal · Idioma", list(LANGUAGES), key=state.LANGUAGE_WIDGET,
                         format_func=LANGUAGES.__getitem__, on_change=_copy_language)
    if lang == i18n.DEFAULT_LANGUAGE:
        st.query_params.pop("lang", None)
    else:
        st.query_params["lang"] = lang
    return lang


def current_model() -> Embeddings:
    """The model every page shows (a built-in, or a checkpoint of this session's)."""
    source = st.session_state[state.MODEL]
    if source in user_models():
        return user_models()[source]
    return get_model(source)


# Every page: a metric's label wraps onto a second line rather than ending in "…" (Dutch and Portuguese labels run
# longer than English ones), and the model card's two words (position kind, output table) are drawn a size smaller
# in wider columns, so "ontkoppeld", "desvinculado" and "relativas (T5)" fit whole, lowered by the difference of the
# two sizes so that they stand on the numbers' baseline (measured in Chromium: 10 px higher without it).
PAGE_CSS = """<style>
[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] * {
  white-space: normal !important; overflow: visible !important; text-overflow: clip !important; }
.st-key-card-words [data-testid="stMetricValue"] { font-size: 1.6rem !important; padding-top: 0.625rem; }
</style>"""


def page_setup(page_file: str) -> Embeddings:
    """Every page starts here: page config from the registry, the menu, the shared picker, the loaded model."""
    info = page_of(page_file)
    i18n.set_language(st.session_state.get(state.LANGUAGE) or url.read("lang", None, allowed=LANGUAGES, say=False))
    st.set_page_config(page_title=f"{tr(info.label)} · ANDREA Embedding Explorer", page_icon=FAVICON, layout="wide")
    st.html(PAGE_CSS)
    session_files.keep_sweeping()
    start_builds_once()
    sidebar_menu()
    model_picker()
    language_picker()
    try:
        return current_model()
    except CheckpointError as exc:
        st.error(_("The model could not be loaded: {reason}", reason=tr(exc.msg, escape=md)), icon=":material/warning:")
        st.stop()


def model_card(emb: Embeddings) -> None:
    """The loaded model at a glance: sizes, position kind, output table, provenance."""
    c = st.columns([1, 1, 1, 3.2])
    c[0].metric(_("Vocabulary V"), num(emb.vocab_size), help=_("rows of the token table: one per token id"))
    c[1].metric("d_model", num(emb.d_model), help=_("columns: the length of every embedding vector"))
    c[2].metric(_("Context T"), _("none") if emb.context is None else num(emb.context),
                help=_("rows of the position table (position kind: {kind})", kind=tr(POSITION_KIND_LABELS[emb.position_kind])))
    words = c[3].container(key="card-words").columns(2)
    words[0].metric(_("Position table"), tr(POSITION_KIND_LABELS[emb.position_kind]))
    words[1].metric(_("Output table"), tr(OUTPUT_KIND_LABELS[emb.output_kind]),
                help=_("untied: a separate (V, d) output projection; tied: the token table is reused; none: the model "
                       "has no output head"))
    p = emb.params
    total = sum(p.values())
    shape = _("{a} × {b}", a=num(emb.vocab_size), b=num(emb.d_model))
    rows = [
        {_("table"): _("token"), _("shape"): shape, _("parameters"): num(p["token"])},
        {_("table"): _("position"), _("shape"): "—" if emb.context is None else _(
            "{a} × {b}", a=num(emb.context), b=num(emb.position_table.shape[1])),
         _("parameters"): num(p["position"])},
        {_("table"): _("output"), _("shape"): shape if p["output"] else f"— ({tr(OUTPUT_KIND_LABELS[emb.output_kind])})",
         _("parameters"): num(p["output"])},
        {_("table"): _("all three"), _("shape"): "",
         _("parameters"): _("{n:,} ({size} in fp32)", n=total, size=human_bytes(4 * total))},
    ]
    if emb.card.total_params:
        rows.append({_("table"): _("the whole model"), _("shape"): _("{n} layers", n=emb.card.layers)
                     if emb.card.layers else "", _("parameters"): num(emb.card.total_params)})
    dataframe(rows, width="content")
    with st.expander(_("Where these tables came from"), expanded=False):
        st.markdown(_("**Format:** {format}", format=tr_md(emb.provenance.format)))
        if emb.provenance.file:
            st.markdown(_("**File:** `{file}`", file=in_code(Path(emb.provenance.file).name)))
        st.markdown(_("**Tokenizer:** {tokenizer}", tokenizer=tr_md(emb.tokenizer.description)))
        if emb.card.model_class:
            st.markdown(_("**Located by transformers:** `{cls}` built on the meta device (no weights allocated)",
                          cls=in_code(emb.card.model_class)))
        if emb.card.position_reason:
            st.markdown(_("**Positions:** {reason}", reason=tr(emb.card.position_reason, escape=md)))
        if emb.card.shared_table:
            st.markdown(_("**Shared:** {what}", what=tr(emb.card.shared_table, escape=md)))
        for line in emb.provenance.assumptions:
            st.markdown(_("- assumed: {line}", line=tr(line, escape=md)))
        for line in emb.provenance.notes:
            st.markdown(f"- {tr(line, escape=md)}")


def _choose(source: str) -> None:
    st.session_state[state.MODEL] = source
    st.session_state[AUTO] = False


def offer_trained_example(emb: Embeddings, key: str) -> None:
    """On an untrained table, say so and offer the trained ANDREA example (andrea-micro) in one click."""
    if not emb.card.untrained:
        return
    c1, c2 = st.columns([5, 1], vertical_alignment="center")
    c1.info(_("{label} is untrained: its rows are random directions, so nothing here is close for a reason. "
              "ANDREA-micro was trained in this app: its words form classes, and its untied output table is trained "
              "too.", label=md(model_label(emb.key))), icon=":material/lightbulb:")
    c2.button(_("Use ANDREA-micro"), key=f"{key}:micro", on_click=_choose, args=(lexicon.model_of(i18n.language()),))
