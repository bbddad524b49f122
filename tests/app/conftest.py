from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import andrea_viz

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = [n for n, b in andrea_viz.BUILTINS.items() if b.language is None]  # the grown-in-a-language
# micro models are tested as models in tests/unit/test_grow_languages.py, not page by page again


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def start_app(model: str | None = None, query: dict[str, str] | None = None) -> AppTest:
    """A fresh session of the real app, started from the entry script: ``model`` chosen in its state, or ``query``
    as the address's parameters."""
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=120)
    if model is not None:
        at.session_state["model"] = model
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    no_exception(at)
    return at


@pytest.fixture
def app():
    """``start_app``, as a fixture."""
    return start_app


def open_page(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"pages/{page}").run()
    no_exception(at)
    return at


def figures(at: AppTest) -> list[dict]:
    import json

    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def values(v) -> np.ndarray:
    """A trace's array as the figure's JSON holds it: a list, or plotly's base64 typed array (shaped when 2-D)."""
    import base64

    if isinstance(v, dict):
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=v["dtype"])
        return a.reshape([int(n) for n in str(v["shape"]).split(",")]) if "shape" in v else a
    return np.array(v)


def button(at: AppTest, label: str, key: str | None = None):
    """The button with this label (by label, so that other buttons on the page do not shift the index)."""
    found = [b for b in at.button if b.label == label and (key is None or b.key == key)]
    assert len(found) == 1, [b.label for b in at.button]
    return found[0]


def plain(markdown: str) -> str:
    """What a reader sees of a markdown body: rendered by CommonMark, tags dropped, entities decoded."""
    import html
    import re

    from markdown_it import MarkdownIt

    return html.unescape(re.sub(r"<[^>]+>", "", MarkdownIt("commonmark").render(markdown))).strip()
