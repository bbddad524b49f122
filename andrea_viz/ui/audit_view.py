"""Compare's fine-tune audit: when A and B are two folders of the checkpoint folder, B audited as a fine-tune of its
base A (``python -m andrea_viz audit A B``), each added row with its init method and the evidence."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ..audit import audit_checkpoints, audit_report
from ..checkpoints.folder import checkpoint_dir, inside
from ..errors import CheckpointError
from ..i18n import N_, _, num, pN_, tr_md, unbroken
from ..safe_text import md
from .cache import remember
from .errors import explain_errors


INIT_LABELS = {"zeros": N_("all zeros"), "mean": N_("the base table's mean row"),
               "mvn": N_("a sample of N(mean, 10⁻⁹·Σ) (transformers' mean_resizing)"),
               "copy": N_("a copy of a base row"), "description_mean": N_("the mean of its description's tokens"),
               "normal": N_("drawn from N(0, σ)"), "unknown": N_("unknown")}
TIE_LABELS = {"tied": pN_("tie state", "tied"), "untied": pN_("tie state", "untied"),  # pt-BR: the tables, plural
              "keeps": N_("keeps it as it is"), "reties": N_("re-ties it"),
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


def section() -> None:
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
            # the short columns' headers on one line: Chinese broke them between any two characters ("已移" over "動")
            head = [unbroken(_("id")), unbroken(_("token")), _("init"), _("evidence"), unbroken(_("moved")),
                    unbroken(_("norm / median"))]
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
