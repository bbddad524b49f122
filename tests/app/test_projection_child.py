"""The Projection page with its UMAP map laid out in a child process (``map_process``): the page draws it, and no
child is left behind (that the child's map equals the server's own is tests/unit/test_map_process.py)."""

import psutil
from streamlit.testing.v1 import AppTest

import andrea_viz

from .conftest import ROOT, no_exception


def test_a_umap_map_laid_out_in_a_child_process_is_drawn_on_the_page(monkeypatch):
    from andrea_viz.maps import process as map_process

    sent = []
    real = map_process.layout_in_child

    def spy(X, *args, **kwargs):
        sent.append(X.shape)
        return real(X, *args, **kwargs)

    monkeypatch.setattr(map_process, "CHILD_ABOVE", 100)  # andrea-micro's whole table counts as a large map here
    monkeypatch.setattr(map_process, "layout_in_child", spy)
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=600)  # the child compiles numba's code
    at.session_state["model"] = "andrea-micro"
    for k, v in {"method": "umap", "n": "all", "seed": "4245"}.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/5_Projection.py").run()
    no_exception(at)
    V = andrea_viz.load("andrea-micro").token_table.shape[0]
    assert len(sent) == 1 and sent[0][0] == V  # the whole table went to the child
    assert {m.label: m.value for m in at.metric}["Points"] == f"{V:,}" and not at.error
    assert not [c for c in psutil.Process().children() if c.status() == psutil.STATUS_ZOMBIE]
