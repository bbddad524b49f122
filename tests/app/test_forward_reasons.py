"""The Forward pass page's backend table in Dutch: every reason a kernel is not available is the catalogue's, never
the loader's English ("this torch is a CPU build")."""

import torch

from andrea_viz.forward_pass import backend_status
from andrea_viz.i18n import set_language, tr, translate

from .conftest import no_exception, open_page


def test_the_backend_reasons_are_in_the_language(app):
    at = open_page(app("andrea-12m-init", query={"lang": "nl"}), "7_Forward_pass.py")
    no_exception(at)
    table = at.table[-1].value
    reasons = dict(zip(table[translate("backend", "nl")], table[translate("why not", "nl")], strict=True))
    english = ("this torch is a CPU build", "no CUDA device is visible", "could not be built", "is not importable")
    assert not [r for r in reasons.values() if any(e in str(r) for e in english)], reasons
    set_language("nl")
    try:
        want = {s.name: tr(s.reason) for s in backend_status()}
    finally:
        set_language("en")
    assert reasons == want
    if not torch.cuda.is_available():
        cause = "this torch is a CPU build" if torch.version.cuda is None else "no CUDA device is visible"
        assert reasons["cuda"] == translate(f"no GPU: torch.cuda.is_available() is False ({cause})", "nl")
