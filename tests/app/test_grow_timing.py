"""The Grow page promises no time it has not measured: before a run finishes on this server it says so; after one,
the preset's time is that run's, scaled to the preset's steps, written the language's way."""

from andrea_viz.grow import PRESETS, timing
from andrea_viz.i18n import render, translate

from .conftest import button, no_exception, open_page


def test_the_preset_time_is_measured_on_this_server(app, monkeypatch):
    monkeypatch.setattr(timing, "_last", {})
    at = open_page(app(query={"lang": "nl"}), "9_Grow.py")
    shape = translate(PRESETS["micro"].label, "nl")
    assert shape in at.selectbox[0].options  # no time in the box: the note says why
    info = " ".join(i.value for i in at.info)
    assert render("No {preset} run has finished on this server yet, so it gives no time for one.",
                  {"preset": "micro"}, "nl") in info
    assert "half" not in info and "halve minuut" not in info

    at.number_input[0].set_value(20)
    button(at, translate("Train", "nl")).click().run()
    no_exception(at)
    job = at.session_state["grow:job"]
    assert job.wait(300) and job.result is not None and job.result.steps_done == 20
    at.run()
    no_exception(at)
    run = timing.last_run("micro")
    assert run is not None and run.steps == 20 and run.seconds >= job.result.seconds  # the wall time, spawn included
    assert shape in at.selectbox[0].options  # the box names the shape whole; the time is the note's

    fresh = open_page(app(query={"lang": "nl"}), "9_Grow.py")  # another visitor of the same server
    info = " ".join(i.value for i in fresh.info)
    assert render("The last {preset} run on this server took {s:.0f} s for {steps:,} steps (about {per:.2f} s a step).",
                  {"preset": "micro", "s": run.seconds, "steps": 20, "per": run.seconds / 20}, "nl") in info
