"""The Grow page's session side: one training job and one run folder per session, the live progress,
and Explore (a copy of the chosen snapshot that stays until another is explored).

Trainings run in the server's pool (``grow.pool.shared()``): a press of Train may wait in its queue, and the page
shows how many are ahead. Folders are the session's own (``session_files``): removed when a new run replaces them, and when the session
ends, after its running training is cancelled.

A server that restarts loses every session and their folders (``session_files`` removes those of a server that is no
longer running). So that a learner whose run was lost is told, each run has an id in the page's address
(``?grow_run=…``) and a small record in a folder that outlives the server (RECORDS, under the temporary folder):
which server process ran it, and whether it had ended. A page that arrives with an id whose record names another
server process, and has no run of its own, says the run is gone.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import streamlit as st

from ..checkpoints import load_path
from ..errors import CheckpointError
from ..grow import pool
from ..grow.job import GrowJob
from ..grow.snapshots import CONFIG, SEGMENTS, list_snapshots, read_manifest
from ..grow.timing import last_run
from ..i18n import Msg, _
from ..plots import timeline as plots
from ..timeline import Snapshot, Timeline
from . import session_files, state, url
from .errors import show_error
from .fragments import fragment
from .uploads import user_models
from .charts import chart

JOB, RUN, EXPLORED, TIMELINE = "grow:job", "grow:run", "grow:explored", "grow:timeline"
# the live progress panel's refresh: each refresh is a script run, in every watching tab
POLL_SECONDS = float(os.environ.get("ANDREA_VIZ_POLL_SECONDS", "2"))
# a training that waits longer than this in the queue says so (and can always be left)
QUEUE_LIMIT_SECONDS = float(os.environ.get("ANDREA_VIZ_QUEUE_LIMIT_SECONDS", "300"))
RUN_PARAM = "grow_run"  # the address's name for this session's run id
RUN_ID = re.compile(r"[0-9a-f]{32}")
RECORDS = Path(tempfile.gettempdir()) / "andrea_viz_runs"  # one small JSON per run; outlives a server restart
RECORD_DAYS = 7  # records older than this are removed when a new run is recorded
SERVER = uuid.uuid4().hex  # this server process: a record naming another one was written before a restart
LOST = "grow:lost"  # session_state: what this session's address said of a run lost to a restart (or None)


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
    _record_run()
    return j


def preset_timing(preset: str) -> str:
    """What the preset's run took on this server (its last finished run), or that it has not been timed here."""
    run = last_run(preset)
    if run is None:
        return _("No {preset} run has finished on this server yet, so it gives no time for one.", preset=preset)
    return _("The last {preset} run on this server took {s:.0f} s for {steps:,} steps (about {per:.2f} s a step).",
             preset=preset, s=run.seconds, steps=run.steps, per=run.seconds / run.steps)


def _record_file(run_id: str) -> Path:
    return RECORDS / f"{run_id}.json"


def _private_records() -> bool:
    """RECORDS exists (made 0700 if missing), belongs to this user and nobody else may write it."""
    try:
        RECORDS.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = RECORDS.stat()
    except OSError:
        return False
    return (not hasattr(os, "getuid") or info.st_uid == os.getuid()) and not info.st_mode & 0o022


def _write_record(run_id: str, ended: bool) -> None:
    if not _private_records():
        return
    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(prefix=".run-", dir=RECORDS)
        with os.fdopen(fd, "w") as f:
            json.dump({"server": SERVER, "ended": ended, "at": time.time()}, f)
        os.replace(tmp, _record_file(run_id))


def _read_record(run_id: str) -> dict | None:
    if not RUN_ID.fullmatch(run_id) or not _private_records():
        return None
    try:
        with open(_record_file(run_id), encoding="utf-8") as f:
            record = json.loads(f.read(4096))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _forget_record(run_id: str | None) -> None:
    if run_id and RUN_ID.fullmatch(run_id):
        with contextlib.suppress(OSError):
            _record_file(run_id).unlink()


def _prune_records() -> None:
    old = time.time() - RECORD_DAYS * 86_400
    for p in RECORDS.glob("*.json"):
        with contextlib.suppress(OSError):
            if p.stat().st_mtime < old:
                p.unlink()


def _run_in_address() -> str | None:
    """The run id the address holds (``?grow_run=``), by url's one rule (an id of another shape is ignored, unsaid)."""
    return url.read(RUN_PARAM, None, _run_id, say=False)


def _run_id(raw: str) -> str:
    if not RUN_ID.fullmatch(raw):
        raise ValueError(raw)
    return raw


def _record_run() -> None:
    """A new run: its id in the address and its record on disk (the last run's record removed); the record goes when
    the session ends."""
    _forget_record(_run_in_address())
    run_id = uuid.uuid4().hex
    _write_record(run_id, ended=False)
    with contextlib.suppress(OSError):
        _prune_records()
    url.keep(**{RUN_PARAM: run_id})
    st.session_state[LOST] = None
    session_files.at_session_end(lambda: _forget_record(run_id))


def run_ended() -> None:
    """This session's run has ended (finished, stopped or failed): its record says so, once."""
    run_id = _run_in_address()
    record = _read_record(run_id) if run_id else None
    if record is not None and record.get("server") == SERVER and not record.get("ended"):
        _write_record(run_id, ended=True)


def lost_to_restart() -> Msg | None:
    """When this session has no run and its address names one that a server process before this one ran: the sentence
    that says it was lost with the restart, and how to go on; else None."""
    if job() is not None:
        return None
    if LOST not in st.session_state:
        run_id = _run_in_address()
        record = _read_record(run_id) if run_id else None
        lost = None
        if record is not None and record.get("server") != SERVER:
            lost = (Msg("The training you ran here had ended, but the server has restarted since and its snapshots "
                        "are gone. Train it again to explore them.") if record.get("ended") else
                    Msg("The training you started was stopped when the server restarted; its snapshots are gone. "
                        "Start it again."))
        st.session_state[LOST] = lost
    return st.session_state[LOST]


def how_it_ended(j: GrowJob, info: dict) -> None:
    """What became of an ended run, in sentences: its library error, a process the system killed (the step it reached
    and the last snapshot kept), another failure, or a stop before the end (the step reached and the last snapshot
    kept)."""
    reached, kept = j.snapshot().step, j.last_snapshot()
    if j.error is not None:
        show_error(j.error)
    elif j.killed is not None:
        st.error(_("The training was stopped by the system (out of memory or killed) at step {step:,}; the last "
                   "snapshot kept is step {kept:,}.", step=reached, kept=kept) if kept is not None else
                 _("The training was stopped by the system (out of memory or killed) at step {step:,}, before its "
                   "first snapshot: nothing was kept.", step=reached), icon=":material/warning:")
        return
    elif j.crash is not None:
        st.error(_("Training failed: {reason}", reason=j.crash), icon=":material/warning:")
    if info and not info.get("finished"):
        done = max(int(info.get("steps_done", 0)), reached)
        planned = info.get("steps_planned", 0)
        st.warning(_("Training stopped at step {done:,} of {planned:,}; the last snapshot kept is step {kept:,} "
                     "({n:,} snapshots kept in all).", done=done, planned=planned, kept=kept,
                     n=len(info.get("snapshots", []))) if kept is not None else
                   _("Training stopped at step {done:,} of {planned:,}, before its first snapshot: nothing was kept.",
                     done=done, planned=planned), icon=":material/stop_circle:")


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
        chart(plots.loss_curve(p.losses, p.steps), key="grow:live-loss")
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
