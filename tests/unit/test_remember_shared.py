"""``ui.cache.remember`` computes a key once even when several sessions ask at the same time: the later
ones wait for the first, and take over if it fails."""

from __future__ import annotations

import contextlib
import threading

import pytest

from andrea_viz.i18n import set_language
from andrea_viz.ui import cache


@pytest.fixture
def fresh_store():
    store, flights, _ = cache._slow_store()
    store.clear()
    flights.clear()
    yield store
    store.clear()
    flights.clear()


def test_sessions_asking_at_once_share_one_computation(fresh_store):
    calls, started, release = [], threading.Event(), threading.Event()

    def compute(progress):
        calls.append(1)
        started.set()
        progress(0.5, "half")
        release.wait(5)
        return sum(range(100))

    results = []
    first = threading.Thread(target=lambda: results.append(cache.remember(("k", 1), compute, None)))
    first.start()
    assert started.wait(5)
    waiting = [threading.Thread(target=lambda: results.append(cache.remember(("k", 1), compute, None)))
               for _ in range(4)]
    for t in waiting:
        t.start()
    _, flights, _ = cache._slow_store()
    (flight,) = flights.values()
    assert flight.fraction == 0.5 and flight.text == "half"
    release.set()
    for t in [first, *waiting]:
        t.join(5)
    assert results == [4950] * 5
    assert len(calls) == 1
    assert not flights


def test_a_failed_computation_is_taken_over_by_a_waiting_session(fresh_store):
    started, release, calls = threading.Event(), threading.Event(), []

    def fails(progress):
        calls.append("fails")
        started.set()
        release.wait(5)
        raise RuntimeError("the first session went away")

    def works(progress):
        calls.append("works")
        return "map"

    errors, results = [], []

    def first():
        try:
            cache.remember(("k", 2), fails, None)
        except RuntimeError as e:
            errors.append(str(e))

    t1 = threading.Thread(target=first)
    t1.start()
    assert started.wait(5)
    t2 = threading.Thread(target=lambda: results.append(cache.remember(("k", 2), works, None)))
    t2.start()
    release.set()
    t1.join(5)
    t2.join(5)
    assert errors == ["the first session went away"]
    assert results == ["map"] and calls == ["fails", "works"]
    assert cache.remember(("k", 2), fails, None) == "map"


def test_different_keys_compute_separately(fresh_store):
    assert cache.remember(("k", 3), lambda progress: 3, None) == 3
    assert cache.remember(("k", 4), lambda progress: 4, None) == 4
    assert cache.remember(("k", 3), lambda progress: 0, None) == 3


@pytest.mark.parametrize(("lang", "said"), [("nl", "De tabellen van het model worden geladen…"),
                                            ("en", "Loading the model's tables…")])
def test_a_model_loaded_again_after_the_cache_let_it_go_says_so_in_the_readers_language(monkeypatch, lang, said):
    """The load runs inside the spinner (entered, the model read, then left), the first time and again once the
    cache has let the model go (six models kept; a seventh evicts one): it used to say so the first time only."""
    events = []

    @contextlib.contextmanager
    def spinner(text, **_k):
        events.append(("shown", text))
        yield
        events.append(("gone", text))

    monkeypatch.setattr(cache.st, "spinner", spinner)
    real = cache.load
    monkeypatch.setattr(cache, "load", lambda source: events.append(("load", source)) or real(source))
    set_language(lang)
    try:
        cache._model.clear()
        first, again = cache.get_model("andrea-micro-nl"), cache.get_model("andrea-micro-nl")
        cache._model.clear()  # as an eviction does
        third = cache.get_model("andrea-micro-nl")
    finally:
        set_language("en")
    assert first is again and first.vocab_size == 563 and third.vocab_size == 563
    load = [("shown", said), ("load", "andrea-micro-nl"), ("gone", said)]
    assert events == load + [("shown", said), ("gone", said)] + load  # the cached call: through it, nothing loaded
