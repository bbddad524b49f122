"""Choosing a model for one side of a comparison: one you have, an upload of its own (a second upload
does not evict the first), or a file from the checkpoint folder."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ..alignment import Alignment
from ..audit import audit_checkpoints, audit_report
from ..checkpoints.folder import checkpoint_dir, display_root, inside, list_checkpoints
from ..errors import CheckpointError
from ..i18n import N_, _, num, tr_md
from ..model import Embeddings
from ..safe_text import in_code, md
from . import uploads
from .errors import show_error
from .models import model_label, model_options
from .uploader_text import file_uploader
from .cache import get_model, remember
from .errors import explain_errors


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
                    raise
                uploads.keep_upload(slot, [path.parent])
                st.session_state[f"cmp:{side}:name"] = names
                st.session_state[f"cmp:{side}:key"] = emb.key
            return uploads.user_models().get(st.session_state.get(f"cmp:{side}:key"))
        root = checkpoint_dir()
        entries = list_checkpoints(root)
        if not entries:
            st.info(_("No checkpoints in `{root}` yet.", root=in_code(display_root())))
            return None
        rel = st.selectbox(_("File for {side}", side=side), entries, key=f"cmp:{side}:rel")
        key = f"cmp:{side}:folder:{rel}"
        if key not in st.session_state:
            st.session_state[key] = uploads.load_checkpoint(inside(root, rel), None, rel.rstrip("/"),
                                                              confine=root).key
        return uploads.user_models().get(st.session_state[key])
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
              "words in two languages). A's table is rotated and scaled onto B's (orthogonal Procrustes with scale) on "
              "{t:,} anchors; on the {h:,} held out, a mapped row's median cosine with its true row in B is {c:.3f}, "
              "against {base:.3f} for the nearest-anchor baseline (each guessed from its nearest anchors, as "
              "tokensurgeon does), and the median Jaccard@10 of their neighbour sets is {j:.2f}. The alignment choice "
              "above does not apply here.", a_v=a.vocab_size, a_d=a.d_model, b_v=b.vocab_size, b_d=b.d_model,
              n=len(al.anchors), s=al.anchors.count("string"), lex=al.anchors.count("lexicon"), t=int(al.train.size),
              h=int(al.held_out.size), c=al.median_cosine, base=al.median_baseline, j=al.median_jaccard),
            icon=":material/translate:")


INIT_LABELS = {"zeros": N_("all zeros"), "mean": N_("the base table's mean row"),
               "mvn": N_("a sample of N(mean, 1e-9·Σ) (transformers' mean_resizing)"),
               "copy": N_("a copy of a base row"), "description_mean": N_("the mean of its description's tokens"),
               "normal": N_("drawn from N(0, σ)"), "unknown": N_("unknown")}
TIE_LABELS = {"tied": N_("tied"), "untied": N_("untied"), "keeps": N_("keeps it as it is"), "reties": N_("re-ties it"),
              "drops_head": N_("drops the head"), "warns": N_("warns")}


def folder_of(side: str) -> Path | None:
    """The folder chosen for ``side`` when that side reads the checkpoint folder and its choice is a folder."""
    rel = st.session_state.get(f"cmp:{side}:rel")
    if st.session_state.get(f"cmp:{side}:source") != "folder" or rel is None:
        return None
    try:
        path = inside(checkpoint_dir(), rel)
    except CheckpointError:
        return None
    return path if path.is_dir() else None


def _moved(v: bool | None) -> str:
    return _("unknown") if v is None else _("yes") if v else _("no")


def audit_section() -> None:
    """When A and B are two folders of the checkpoint folder: B audited as a fine-tune of its base A (python -m
    andrea_viz audit A B): its rows added, each with its init method and evidence, and the rest of the findings."""
    base, tuned = folder_of("A"), folder_of("B")
    if base is None or tuned is None or base == tuned:
        return
    with st.container(key="cmp-audit"), explain_errors():
        st.subheader(_("Fine-tune audit: B against its base A"))
        stamp = tuple(p.stat().st_mtime_ns for p in (base, tuned))
        result = remember(("audit", str(base), str(tuned), stamp), lambda progress: audit_checkpoints(base, tuned),
                          label=_("Auditing:"))
        added = result["added_rows"]
        if added:
            head = [_("id"), _("token"), _("init"), _("evidence"), _("moved"), _("norm / median")]
            lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
            for r in added:
                token = "—" if r["token"] is None else md(r["token"])
                ratio = "—" if r["norm_ratio"] is None else num(r["norm_ratio"], ".2f")
                lines.append(f"| {num(r['id'])} | {token} | {_(INIT_LABELS[r['init']])} | {tr_md(r['evidence'])} | "
                             f"{_moved(r['moved'])} | {ratio} |")
            st.markdown("**" + _("Rows added: {n:,}, each with how it was initialised", n=len(added)) + "**")
            st.markdown("\n".join(lines))
        rest = [tr_md(line) for line in audit_report(result) if not line.msgid.startswith(("  ", "rows added", "tie "))]
        tie = {k: _(TIE_LABELS[v]) for k, v in result["tie"].items()}
        rest.append(_("tie state: config {config}, bytes {bytes}; transformers {tf}, vLLM {vllm}, llama.cpp {cpp}",
                      config=tie["config"], bytes=tie["bytes"], tf=tie["transformers"], vllm=tie["vllm"],
                      cpp=tie["llama_cpp"]))
        st.markdown("\n".join(f"- {line}" for line in rest))
