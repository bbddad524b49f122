"""Choosing a model for one side of a comparison: one you have, an upload of its own (a second upload
does not evict the first), or a file from the checkpoint folder."""

from __future__ import annotations

import streamlit as st

from ..alignment import Alignment
from ..compare import Drift
from ..checkpoints.folder import checkpoint_dir, display_root, inside, list_checkpoints
from ..errors import CheckpointError
from ..i18n import _, num
from ..model import Embeddings
from ..safe_text import in_code
from . import uploads
from .errors import show_error
from .models import model_label, model_options
from .uploader_text import file_uploader
from .cache import get_model


def pick(side: str, default: str) -> Embeddings | None:
    """The model for side A or B, or None (with a message) while there is none."""
    source = st.radio(_("Source of {side}", side=side), ["have", "upload", "folder"], horizontal=True,
                      key=f"cmp:{side}:source", format_func={"have": _("a model you have"), "upload": _("upload"),
                                                              "folder": _("checkpoint folder")}.get)
    try:
        if source == "have":
            options = model_options()
            choice = st.selectbox(side, options, index=options.index(default) if default in options else 0,
                                  key=f"cmp:{side}:have", format_func={o: model_label(o) for o in options}.__getitem__,
                                  label_visibility="collapsed")
            return uploads.user_models()[choice] if choice in uploads.user_models() else get_model(choice)
        if source == "upload":
            ups = file_uploader(_("Checkpoint for {side} (with its config JSON or tokenizer, if it has them)",
                               side=side), key=f"cmp:{side}:file", accept_multiple_files=True)
            slot = f"compare:{side}"
            names = tuple(sorted((u.name, u.size) for u in ups))
            if ups and st.session_state.get(f"cmp:{side}:name") != names:
                path = uploads.spool_many(ups)
                try:
                    emb = uploads.load_checkpoint(path, None, path.name, confine=path.parent)
                except CheckpointError:
                    uploads.discard([path.parent])
                    uploads.drop_bytes(ups)
                    raise
                except BaseException:  # a rerun asked for while it is read (B's source chosen meanwhile) stops
                    uploads.discard([path.parent])  # the script here: the next run reads the files again
                    raise
                uploads.keep_upload(slot, [path.parent])
                st.session_state[f"cmp:{side}:name"] = names
                st.session_state[f"cmp:{side}:key"] = emb.key
                uploads.drop_bytes(ups)  # last: a run stopped before this line finds the files and reads them again
                return emb
            emb = uploads.user_models().get(st.session_state.get(f"cmp:{side}:key"))
            if emb is not None:  # read by an earlier run: its line again, as the other side shows its own
                uploads.show_read(emb, emb.name)
            return emb
        root = checkpoint_dir()
        entries = list_checkpoints(root)
        if not entries:
            st.info(_("No checkpoints in `{root}` yet.", root=in_code(display_root())))
            return None
        rel = st.selectbox(_("File for {side}", side=side), entries, key=f"cmp:{side}:rel")
        key = f"cmp:{side}:folder:{rel}"
        read_before = key in st.session_state
        if not read_before:  # load_checkpoint says what it read
            st.session_state[key] = uploads.load_checkpoint(inside(root, rel), None, rel.rstrip("/"),
                                                              confine=root).key
        emb = uploads.user_models().get(st.session_state[key])
        if emb is not None and read_before:
            uploads.show_read(emb, rel.rstrip("/"))
        return emb
    except CheckpointError as exc:
        show_error(exc)
        return None



def anchor_label(a: Embeddings, b: Embeddings, al: Alignment, i: int) -> str:
    """Anchor ``i`` as its token in A and in B ("kat → cat"; one string when both write it alike)."""
    ta, tb = a.token(int(al.anchors.a[i])), b.token(int(al.anchors.b[i]))
    return ta if ta == tb else f"{ta} → {tb}"


def alignment_note(a: Embeddings, b: Embeddings, al: Alignment) -> None:
    """What a comparison of two vocabularies rests on: the anchors, the map, and how well it holds on held-out ones."""
    st.info(_("A ({a_v:,} × {a_d:,}) and B ({b_v:,} × {b_d:,}) have different vocabularies or widths, so they are "
              "compared on their {n:,} anchors, the tokens both hold ({s:,} written alike, {lex:,} of the lesson's "
              "words in two languages). A's table is mapped onto B's by {method}, the best of several maps by "
              "cross-validation on the {t:,} anchors it is fitted on; on the {h:,} held out, a mapped row's median "
              "cosine with its true row in B is {c:.3f}, against {p:.3f} for the orthogonal Procrustes map with scale "
              "and {base:.3f} for the nearest-anchor baseline (each guessed from its nearest anchors, as tokensurgeon "
              "does), and the median Jaccard@10 of their neighbour sets is {j:.2f}. The alignment choice above does "
              "not apply here.", a_v=a.vocab_size, a_d=a.d_model, b_v=b.vocab_size, b_d=b.d_model,
              n=len(al.anchors), s=al.anchors.count("string"), lex=al.anchors.count("lexicon"), method=_(al.method_name),
              t=int(al.train.size), h=int(al.held_out.size), c=al.median_cosine, p=al.median_procrustes,
              base=al.median_baseline, j=al.median_jaccard),
            icon=":material/translate:")


def anchor_drift_metrics(median, largest, al: Alignment, r: Drift) -> None:
    """The two drift cards of two vocabularies (``median``, ``largest``: columns): the median of the anchors held out
    of the map's fit, beside their median cosine in the note above, and the largest over every anchor, each saying
    which anchors it is of. Over every anchor the median was ~0.003 against a held-out median cosine of 0.92: the
    80% the map was fitted on land almost exactly on their rows."""
    median.metric(_("Median drift, held-out anchors"), num(al.held_out_drift, ".4f"), help=_(
        "1 − cos(map(A), B) of the {h:,} anchors the map was not fitted on (their median cosine: {c:.3f}). Over all "
        "{n:,} anchors, the {t:,} it was fitted on included, the median is {all:.4f}: the map all but reproduces the "
        "rows it was fitted on.", h=int(al.held_out.size), c=al.median_cosine, n=len(al.anchors),
        t=int(al.train.size), all=r.median_drift))
    largest.metric(_("Largest drift, all anchors"), num(r.max_drift, ".4f"),
                   help=_("Over all {n:,} anchors, those the map was fitted on included.", n=len(al.anchors)))
