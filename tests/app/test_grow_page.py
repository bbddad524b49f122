"""The Grow page under AppTest: a few steps, the live job, the timeline, scrubbing, Explore, bad corpora."""

import numpy as np

import andrea_viz
from andrea_viz.geometry import neighbours

from .conftest import button, figures, no_exception, open_page


def train(at, steps=40, upload=None):
    at.number_input[0].set_value(steps)
    if upload is not None:
        at.radio[0].set_value("upload")
        at.get("file_uploader")[0].upload(*upload)
    button(at, "Train").click().run()  # the job starts in its own thread
    no_exception(at)
    job = at.session_state["grow:job"]
    assert job.wait(180)
    at.run()  # the page after the job: the run and its timeline
    no_exception(at)
    return job


def metrics(at):
    return {m.label: m.value for m in at.metric}


def test_train_scrub_and_explore(app):
    at = open_page(app("andrea-12m-init"), "9_Grow.py")
    assert any("press Train" in i.value for i in at.info)
    job = train(at, steps=40)
    assert job.result.steps_done == 40 and not job.result.cancelled
    m = metrics(at)
    assert m["Step"] == "40"
    V = job.result.config["vocab_size"]
    unseen = len(job.result.unseen_ids)
    assert m["Unchanged token rows"] == f"{unseen:,} / {V:,}" and m["Output rows unchanged"] == f"0 / {V:,}"
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert any("Training loss" in t for t in titles) and any("Cosine of word pairs" in t for t in titles)
    class_map = [f for f in figures(at) if "class words" in f["layout"]["title"]["text"]][0]
    assert len(class_map["frames"]) == len(job.result.snapshots)  # one frame per snapshot
    at.select_slider[0].set_value(0).run()
    no_exception(at)
    assert metrics(at)["Unchanged token rows"] == f"{V:,} / {V:,}"
    step0 = andrea_viz.load(job.result.snapshots[0][1])
    cat = [n.id for n in neighbours(step0, at.text_input[1].value, k=10)[1]]
    assert list(at.dataframe[-1].value["id"]) == cat and len(cat) == 10  # the word's neighbours at step 0
    [b for b in at.button if b.label.startswith("Explore step 0")][0].click().run()
    no_exception(at)
    key = at.session_state["model"]
    explored = andrea_viz.load(key.split(":")[1])
    first = andrea_viz.load(job.result.snapshots[0][1])
    np.testing.assert_array_equal(explored.token_table, first.token_table)
    open_page(at, "4_Neighbours.py")
    assert at.sidebar.selectbox[0].value == key


def test_an_uploaded_corpus_without_cat_follows_its_own_words(app):
    at = open_page(app("minilm-l6"), "9_Grow.py")
    text = ("the river flows past the mill and the miller sings while the river runs to the sea " * 30).encode()
    train(at, steps=20, upload=("river.txt", text, "text/plain"))
    pairs = at.text_input[0].value
    assert "cat" not in pairs and "the" in pairs  # the corpus's most frequent words
    assert at.text_input[1].value == "the"


def test_a_binary_upload_is_a_sentence_and_nothing_starts(app):
    at = open_page(app("minilm-l6"), "9_Grow.py")
    at.radio[0].set_value("upload")
    at.get("file_uploader")[0].upload("x.txt", b"\x00\x01\x02 binary", "text/plain")
    button(at, "Train").click().run()
    no_exception(at)
    assert any("binary" in e.value for e in at.error)
    assert "grow:job" not in at.session_state


def test_a_full_pool_queues_the_training_says_a_long_wait_and_lets_it_leave(app, monkeypatch):
    import threading

    from andrea_viz.grow import pool
    from andrea_viz.grow.job import GrowJob
    from andrea_viz.ui import grow

    class Held(GrowJob):  # another learner's training, holding the pool's only slot until released
        release = threading.Event()

        def _work(self):
            self.release.wait(120)

    monkeypatch.setattr(pool, "_shared", pool.TrainingPool(size=1, threads=1))
    other = pool.shared().submit(Held("/nonexistent"))
    try:
        at = open_page(app("minilm-l6"), "9_Grow.py")
        at.number_input[0].set_value(20)
        button(at, "Train").click().run()
        no_exception(at)
        job = at.session_state["grow:job"]
        assert job.waiting and any("1 ahead of you" in i.value for i in at.info)
        assert not at.warning
        monkeypatch.setattr(grow, "QUEUE_LIMIT_SECONDS", 0.0)  # as if it had waited past the limit
        at.run()
        assert any("longer than" in w.value for w in at.warning)
        button(at, "Leave the queue").click().run()
        no_exception(at)
        assert job.left and not job.active and pool.shared().waiting == 0
        assert any("You left the queue" in i.value for i in at.info)
        monkeypatch.setattr(grow, "QUEUE_LIMIT_SECONDS", 300.0)
        button(at, "Train").click().run()  # queued again, then it trains once the other one ends
        job = at.session_state["grow:job"]
        assert job.waiting
        Held.release.set()
        assert job.wait(180) and job.result.steps_done == 20
        at.run()
        no_exception(at)
        assert metrics(at)["Step"] == "20"
    finally:
        Held.release.set()
        other.wait(10)
