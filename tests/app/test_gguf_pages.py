"""A GGUF model (Q4_0, its SentencePiece tokenizer in the metadata, tied, RoPE) from the checkpoint folder,
through every page."""

from streamlit.testing.v1 import AppTest

from andrea_viz.registry import PAGES
from tests.checkpoint_files import makers

from .conftest import ROOT, no_exception, open_page, plain


def test_every_page_renders_on_a_gguf_model(tmp_path, monkeypatch):
    root = tmp_path / "ckpts"
    root.mkdir()
    info = makers.gguf_model(root / "tiny-q4_0.gguf", V=320, d=64, qtype="Q4_0")
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    from andrea_viz.checkpoints.folder import list_checkpoints

    assert list_checkpoints(root) == ["tiny-q4_0.gguf"]
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=180)
    at.query_params["model"] = "folder:tiny-q4_0.gguf"
    at.run()
    no_exception(at)
    assert at.query_params["model"] == "folder:tiny-q4_0.gguf"
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Vocabulary V"], metrics["d_model"], metrics["Output table"]) == ("320", "64", "tied")
    text = " ".join(plain(m.value) for m in at.markdown)  # what a reader sees (names are escaped for markdown)
    assert "GGUF v3 (llama)" in text and "token_embd.weight is stored as Q4_0" in text
    assert "SentencePiece BPE" in text
    for page in PAGES[1:]:
        open_page(at, page.path.split("/", 1)[1])
        assert at.session_state["model"] != "minilm-l6", page.path
    open_page(at, "8_Checkpoint.py")
    at.selectbox(key="ckpt:rel").set_value("tiny-q4_0.gguf").run()
    [b for b in at.button if b.label == "Read it"][0].click().run()
    no_exception(at)
    assert "Format: GGUF v3 (llama)" in " ".join(plain(m.value) for m in at.markdown)
    open_page(at, "4_Neighbours.py")
    assert at.text_input[0].value == "cat" and not at.error  # the word is found through the file's own tokenizer
    assert len(at.dataframe[0].value["token"]) == 10 and " cat" not in list(at.dataframe[0].value["token"])
    at.text_input[0].set_value("tuesday").run()
    no_exception(at)
    assert not at.error and info["tokens"].index("\u2581tuesday") not in list(at.dataframe[0].value["id"])


def test_the_neighbours_page_measures_what_a_precision_keeps(app):
    from .conftest import button

    at = open_page(app("andrea-micro"), "4_Neighbours.py")
    at.selectbox(key="nb:precision").set_value("q4_0").run()
    button(at, "Compare every token").click().run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert 0 <= float(metrics["median Jaccard@10"]) <= 1
    assert any("cos(cat, dog)" in c.value and "at q4_0" in c.value for c in at.caption)
    assert len(at.dataframe[-1].value) == 20
