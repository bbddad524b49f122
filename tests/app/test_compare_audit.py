"""Compare's fine-tune audit: two folders of the checkpoint folder, a base and its resized fine-tune (made by
transformers' own resize_token_embeddings, tests/audit_pairs.py), B audited as a fine-tune of A."""

from andrea_viz.audit import audit_checkpoints
from andrea_viz.safe_text import md
from tests.audit_pairs import Corpus

from .conftest import no_exception, open_page


def test_the_audit_section_lists_each_added_row_with_its_init(app, tmp_path, monkeypatch):
    pair = Corpus(tmp_path).pair("copy_gpt2_4")  # four added rows, each set to a copy of base row #7
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(tmp_path))
    at = open_page(app("minilm-l6"), "10_Compare.py")
    assert not any("Rows added" in m.value for m in at.markdown)  # two models you have: no audit
    for side, folder in (("A", "base_gpt2/"), ("B", "copy_gpt2_4/")):
        at.radio(key=f"cmp:{side}:source").set_value("folder").run()
        at.selectbox(key=f"cmp:{side}:rel").set_value(folder).run()
        no_exception(at)
    assert not at.error, [e.value for e in at.error]
    added = audit_checkpoints(pair.base, pair.tuned)["added_rows"]
    assert [(r["id"], r["token"], r["init"], r["moved"]) for r in added] == [
        (66, "<tool>", "copy", False), (67, "</tool>", "copy", False), (68, "<sep>", "copy", False),
        (69, "<end>", "copy", False)]
    text = "\n".join(m.value for m in at.markdown)
    assert "Rows added: 4, each with how it was initialised" in text
    for r in added:  # one line of the table per added row: its id, token (inert), init, evidence and moved
        assert f"| {r['id']} | {md(r['token'])} | a copy of a base row | equal to base row #7 | no | " in text
    assert "- tie state: config tied, bytes tied; transformers keeps it as it is, vLLM keeps it as it is" in text
