"""A Grow run lost to a server restart is said on the learner's page, which arrives with the run's id in its address:
simulated here as a restart does it (a new server process, its sessions gone, the old server's folders removed)."""

from __future__ import annotations

import contextlib
import shutil
import uuid

from streamlit.testing.v1 import AppTest

from andrea_viz.ui import grow

from .conftest import ROOT, button, no_exception

LOST_RUNNING = "The training you started was stopped when the server restarted; its snapshots are gone. Start it again."
LOST_ENDED = ("The training you ran here had ended, but the server has restarted since and its snapshots are gone. "
              "Train it again to explore them.")


def grow_page(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=180)
    at.session_state["model"] = "andrea-micro"
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/9_Grow.py").run()
    no_exception(at)
    return at


def said(at: AppTest) -> list[str]:
    return [w.value for w in at.warning]


def restart(monkeypatch, job) -> None:
    """What a restart does to a run: its training process ends with the old server, the new server is another
    process, and the old server's session folders are removed when it starts."""
    import psutil

    for child in psutil.Process().children():
        with contextlib.suppress(psutil.Error):
            if "spawn_main" in " ".join(child.cmdline()):
                child.kill()
    job.cancel()
    assert job.wait(60)
    shutil.rmtree(job.folder.parent, ignore_errors=True)
    monkeypatch.setattr(grow, "SERVER", uuid.uuid4().hex)


def test_a_run_lost_to_a_restart_is_said_on_the_page_that_comes_back(monkeypatch):
    at = grow_page()
    at.number_input[0].set_value(20_000)
    button(at, "Train").click().run()
    no_exception(at)
    job = at.session_state["grow:job"]
    run_id = at.query_params["grow_run"]
    run_id = run_id[0] if isinstance(run_id, list) else run_id
    assert grow.RUN_ID.fullmatch(run_id) and (grow.RECORDS / f"{run_id}.json").is_file()
    assert LOST_RUNNING not in said(grow_page({"grow_run": run_id}))  # the same server: nothing was lost
    restart(monkeypatch, job)
    back = grow_page({"grow_run": run_id})  # the browser reconnects to the new server with the same address
    assert LOST_RUNNING in said(back)
    assert any("press Train" in i.value for i in back.info)  # and the form to start again
    back.run()
    assert LOST_RUNNING in said(back)  # on every run of that page, until a new training starts


def test_a_finished_run_lost_to_a_restart_is_said_too(monkeypatch):
    at = grow_page()
    at.number_input[0].set_value(10)
    button(at, "Train").click().run()
    job = at.session_state["grow:job"]
    assert job.wait(180)
    at.run()  # the page sees the run's end and records it
    no_exception(at)
    run_id = at.query_params["grow_run"]
    run_id = run_id[0] if isinstance(run_id, list) else run_id
    restart(monkeypatch, job)
    assert LOST_ENDED in said(grow_page({"grow_run": run_id}))


def test_an_unknown_or_malformed_run_id_says_nothing_and_raises_nothing():
    for value in ("0" * 32, "../../etc/passwd", "", "x" * 300):
        at = grow_page({"grow_run": value})
        assert not any("restarted" in w for w in said(at))
