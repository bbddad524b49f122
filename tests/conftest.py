import functools

import pytest

import andrea_viz


@functools.cache
def _model(name: str):
    return andrea_viz.load(name)


@pytest.fixture(scope="session")
def minilm():
    return _model("minilm-l6")


@pytest.fixture(scope="session")
def load_model():
    """Load a built-in model once per test session."""
    return _model
