"""The Grow page's session side: one training job and one run folder per session, the live progress,
and Explore (a copy of the chosen snapshot that stays until another is explored).

Trainings run in the server's pool (``grow.pool.shared()``): a press of Train may wait in its queue, and the page
shows how many are ahead. Folders are the session's own (``session_files``): removed when a new run replaces them, and when the session
ends, after its running training is cancelled.
"""

from __future__ import annotations

import os
import shutil

import streamlit as st

from ..checkpoints import load_path
from ..errors import CheckpointError
from ..grow import pool
from ..grow.job import GrowJob
from ..grow import PRESETS
from ..grow.snapshots import CONFIG, SEGMENTS, list_snapshots, read_manifest
from ..grow.timing import expected_seconds, last_run
from ..i18n import _, tr
from ..plots import timeline as plots
from ..timeline import Snapshot, Timeline
from . import session_files, state
from .errors import show_error
from .fragments import fragment
from .uploads import user_models

JOB, RUN, EXPLORED, TIMELINE = "grow:job", "grow:run", "grow:explored", "grow:timeline"
# the live progress panel's refresh: each refresh is a script run, in every watching tab
POLL_SECONDS = float(os.environ.get("ANDREA_VIZ_POLL_SECONDS", "2"))
# a training that waits longer than this in the queue says so (and can always be left)
QUEUE_LIMIT_SECONDS = float(os.environ.get("ANDREA_VIZ_QUEUE_LIMIT_SECONDS", "300"))


class SessionFolder:
    """A folder of this session's, deleted by ``remove`` (a new run) or at the end of the session."""

    def __init__(self, prefix: str):
        self.path = session_files.new_folder(prefix)

    def remove(self) -> None:
        session_files.remove(self.path)


def job() -> GrowJob | None:
    return st.session_state.get(JOB)


def start(**kwargs) -> GrowJob:
    """Stop this session's job (running or queued), drop its folder, and queue a new run in a new folder in the
    server's pool (it starts at once when a slot is free)."""
    old = job()
    if old is not None and old.active:
        old.cancel()
        old.wait(30)
    if RUN in st.session_state:
        st.session_state.pop(RUN).remove()
    folder = SessionFolder("andrea_grow_")
    st.session_state[RUN] = folder
    st.session_state[JOB] = j = pool.shared().submit(GrowJob(folder.path / "run", **kwargs))
    session_files.at_session_end(j.cancel)
    return j


def preset_timing(preset: str) -> str:
    """What the preset's run took on this server (its last finished run), or that it has not been timed here."""
    run = last_run(preset)
    if run is None:
        return _("No {preset} run has finished on this server yet, so it gives no time for one.", preset=preset)
    return _("The last {preset} run on this server took {s:.0f} s for {steps:,} steps (about {per:.2f} s a step).",
             preset=preset, s=run.seconds, steps=run.steps, per=run.seconds / run.steps)


def preset_label(preset: str) -> str:
    """The preset's shape and, once a run of it has finished here, its measured time for its own steps."""
    seconds = expected_seconds(preset, PRESETS[preset].steps)
    if seconds is None:
        return _("{shape} (not yet timed on this server)", shape=tr(PRESETS[preset].label))
    return _("{shape} (about {s:.0f} s on this server)", shape=tr(PRESETS[preset].label), s=seconds)


def timeline() -> Timeline | None:
    """The snapshots written by this session's run (all of them, or those kept when it was stopped)."""
    j = job()
    if j is None or not j.folder.is_dir():
        return None
    snaps = [Snapshot(s, p) for s, p in list_snapshots(j.folder)]
    if not snaps:
        return None
    held = st.session_state.get(TIMELINE)  # one timeline per session: the run's latest, not one per snapshot count
    if held is None or held.source != str(j.folder) or held.snapshots != snaps:
        kept = held.models if held is not None and held.source == str(j.folder) and held.snapshots == snaps[
            : len(held.snapshots)] else {}  # a run that wrote more snapshots keeps the ones already loaded
        held = st.session_state[TIMELINE] = Timeline(snaps, str(j.folder), models=dict(kept))
    return held


def manifest() -> dict:
    j = job()
    return (read_manifest(j.folder) if j is not None else None) or {}


@fragment(run_every=POLL_SECONDS)
def live_progress() -> None:
    """While the job runs: its progress, the loss so far, and Cancel; when it ends, the whole page reruns."""
    j = job()
    if j is None or not j.running:
        st.rerun()
    p = j.snapshot()
    frac = p.step / p.steps if p.steps else 0.0
    st.progress(frac, text=_("Training: step {step:,} of {steps:,}", step=p.step, steps=p.steps) if p.steps
                else _("Preparing the corpus and its segments…"))
    if p.losses:
        st.plotly_chart(plots.loss_curve(p.losses, p.steps), key="grow:live-loss")
    st.button(_("Cancel"), on_click=j.cancel, key="grow:cancel",
              help=_("Stops after the current step; the snapshots written so far are kept and open."))


@fragment(run_every=POLL_SECONDS)
def queue_place() -> None:
    """While the job waits in the server's queue: how many are ahead, a word when it waits too long, and Leave."""
    j = job()
    if j is None or not j.waiting:
        st.rerun()
    shared = j.pool or pool.shared()
    st.info(_("In the queue: {n:,} ahead of you. This server trains {size:,} models at a time; yours starts by "
              "itself when its turn comes.", n=shared.ahead(j) or 1, size=shared.size), icon=":material/hourglass_empty:")
    waited = j.waited()
    if waited > QUEUE_LIMIT_SECONDS:
        st.warning(_("You have waited {minutes:.1f} min, longer than the {limit:.1f} min a turn should take: the "
                     "server is busy with other trainings. Leave the queue and try again later, or keep waiting.",
                     minutes=waited / 60, limit=QUEUE_LIMIT_SECONDS / 60), icon="⌛")
    st.button(_("Leave the queue"), on_click=j.cancel, key="grow:leave",
              help=_("Takes your training out of the queue; nothing is trained or written."))


def explore_step(step: int) -> None:
    """Copy the snapshot of ``step`` (with its config and segments) and make it the model of every page."""
    tl = timeline()
    if tl is None:
        return
    src = tl.snapshots[tl.steps.index(step)].path
    if EXPLORED in st.session_state:
        old = st.session_state.pop(EXPLORED)
        for key in [k for k, e in user_models().items() if e.provenance.file and e.provenance.file.startswith(str(old.path))]:
            user_models().pop(key)
        old.remove()
    folder = SessionFolder("andrea_explored_")
    st.session_state[EXPLORED] = folder
    for name in (src.name, CONFIG, SEGMENTS):
        if (src.parent / name).is_file():
            shutil.copy2(src.parent / name, folder.path / name)
    try:
        emb = load_path(folder.path / src.name, name=f"grown-step-{step}.bin")
    except CheckpointError as exc:
        show_error(exc)
        return
    user_models()[emb.key] = emb
    st.session_state[state.MODEL] = emb.key
