"""The Checkpoint page: uploads of every format, the report, exploring it on other pages, bad uploads."""

from pathlib import Path

import pytest

from tests.checkpoint_files import makers

from .conftest import button, no_exception, open_page, plain


def upload(at, path, name=None):
    at.get("file_uploader")[0].upload(name or path.name, path.read_bytes(), "application/octet-stream").run()
    no_exception(at)
    button(at, "Read the upload").click().run()
    no_exception(at)
    return at


def files(tmp_path):
    out = {}
    makers.nanogpt_ckpt(tmp_path / "ckpt.pt", compiled=True)
    out["nanogpt"] = (tmp_path / "ckpt.pt", "PyTorch checkpoint (nanoGPT ckpt.pt)")
    makers.hf_gpt2(tmp_path / "gpt2")
    out["gpt2 safetensors"] = (tmp_path / "gpt2" / "model.safetensors", "safetensors")
    makers.hf_bert(tmp_path / "bert", )
    out["bert safetensors"] = (tmp_path / "bert" / "model.safetensors", "safetensors")
    makers.andrea_bin(tmp_path / "andrea12m.bin", V=2_305, d=384, T=1024, L=6, adam=False)
    out["andrea"] = (tmp_path / "andrea12m.bin", "ANDREA .bin (microGPT layout)")
    makers.llmc_bin(tmp_path / "llmc.bin")
    out["llm.c"] = (tmp_path / "llmc.bin", "llm.c .bin")
    makers.meta_consolidated(tmp_path / "consolidated.00.pth")
    out["meta"] = (tmp_path / "consolidated.00.pth", "PyTorch state dict")
    import numpy as np

    np.savez(tmp_path / "t.npz", wte=np.ones((30, 4), np.float32) * np.arange(30)[:, None])
    out["npz"] = (tmp_path / "t.npz", "numpy .npz")
    return out


def test_upload_every_format_and_see_its_report(app, tmp_path):
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    for label, (path, fmt) in files(tmp_path).items():
        upload(at, path)
        text = " ".join(m.value for m in at.markdown)
        assert f"**Format:** {fmt}" in text, label
        roles = at.table[0].value  # an HTML table, which wraps its sentences (the grid cut them at its edge)
        assert any(r == "token table" for r in roles["role"]), label
        if label == "nanogpt":  # the reason the grid cut at "…; it equals the token tab", whole
            assert any(w.endswith("; it equals the token table, so the model is tied") for w in roles["why"])
        assert at.session_state["model"] == "minilm-l6"  # nothing changes until Explore


def test_explore_makes_it_the_model_of_every_page(app, tmp_path):
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    makers.hf_bert(tmp_path)
    at.get("file_uploader")[1].upload("vocab.txt", (tmp_path / "vocab.txt").read_bytes(), "text/plain").run()
    upload(at, tmp_path / "model.safetensors", "bert.safetensors")
    explore = [b for b in at.button if b.label.startswith("Explore")][0]
    explore.click().run()
    no_exception(at)
    key = at.session_state["model"]
    assert key.startswith("file:")
    at.switch_page("pages/4_Neighbours.py").run()
    no_exception(at)
    assert at.sidebar.selectbox[0].value == key
    assert "bert.safetensors (your checkpoint)" in at.sidebar.selectbox[0].options
    assert "cat" in at.text_input[0].value
    assert len(at.dataframe[0].value) == 10  # neighbours of cat in the uploaded table
    for page in ("1_Lookup_table.py", "3_Dot_products.py", "5_Projection.py", "6_Positions.py", "7_Forward_pass.py"):
        open_page(at, page)
        assert at.sidebar.selectbox[0].value == key
        if page == "1_Lookup_table.py":  # a bare safetensors file does not say how its family initialises
            text = " ".join(m.value for m in at.markdown)
            assert "How this model's family initialises its table is not known here" in text
            assert "ANDREA draws" not in text and "family draws" not in text


@pytest.mark.parametrize("content,sentence", [
    (b"", "bad.pt is empty (0 bytes); expected a checkpoint"),
    (b"not a checkpoint at all", "bad.pt is not a checkpoint format this app reads (expected safetensors, a Hugging Face "
     "model folder, a PyTorch .pt/.pth/.bin state dict, an ANDREA .bin, an llm.c .bin, GGUF, .npy or .npz); its first "
     "bytes are 6e 6f 74 20 61 20 63 68 65 63 6b 70 and it has 23 bytes"),
    (b"PK\x03\x04broken zip", "bad.pt starts like a zip archive (.pt or .npz) but is damaged: File is not a zip file"),
])
def test_a_bad_upload_is_a_sentence_and_the_previous_model_stays(app, tmp_path, content, sentence):
    at = open_page(app("andrea-12m-init"), "8_Checkpoint.py")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(content or b"\0")
    if not content:
        bad.write_bytes(b"")
    at.get("file_uploader")[0].upload("bad.pt", content, "application/octet-stream").run()
    button(at, "Read the upload").click().run()
    no_exception(at)
    assert [plain(e.value) for e in at.error] == [sentence]  # the upload's own name, never the server's path
    assert at.session_state["model"] == "andrea-12m-init"
    at.switch_page("pages/1_Lookup_table.py").run()
    no_exception(at)
    assert at.sidebar.selectbox[0].value == "andrea-12m-init"


def test_folder_picker_refuses_paths_outside(tmp_path, monkeypatch, app):
    from andrea_viz.checkpoints.folder import inside, list_checkpoints
    from andrea_viz.errors import CheckpointError

    root = tmp_path / "ckpts"
    makers.hf_gpt2(root / "gpt2-small")
    makers.llmc_bin(root / "llmc.bin")
    (tmp_path / "secret.pt").write_bytes(b"x")
    assert list_checkpoints(root) == ["gpt2-small/", "gpt2-small/model.safetensors", "llmc.bin"]
    with pytest.raises(CheckpointError, match="outside the checkpoint folder"):
        inside(root, "../secret.pt")
    with pytest.raises(CheckpointError, match="outside the checkpoint folder"):
        inside(root, str(tmp_path / "secret.pt"))
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    at.selectbox(key="ckpt:rel").set_value("gpt2-small/").run()
    [b for b in at.button if b.label == "Read it"][0].click().run()
    no_exception(at)
    assert "**Format:** Hugging Face folder (gpt2)" in " ".join(m.value for m in at.markdown)


@pytest.mark.parametrize("model", ["minilm-l6", "andrea-12m-init", "andrea-120m-init", "andrea-480m-init"])
def test_checkpoint_page_opens_with_every_builtin(app, model):
    at = open_page(app(model), "8_Checkpoint.py")
    assert at.sidebar.selectbox[0].value == model
    assert [t.label for t in at.tabs] == ["Upload a file", "From the checkpoint folder"]
    if model == "minilm-l6":  # what the page says it reads is the table of formats and of tokenizer files
        from andrea_viz.checkpoints import FORMATS, FOLDERS
        from andrea_viz.tokenizer import TOKENIZER_FILES

        intro = at.markdown[0].value
        abouts = [f.about for f in FORMATS if f.about]
        assert len(abouts) == len(FORMATS) - 1 and "GGUF" in intro  # every format but the damaged ANDREA's twin
        assert all(a in intro for a in [FOLDERS, *abouts]), intro
        helps = at.get("file_uploader")[1].proto.help
        assert all(f in helps for f in TOKENIZER_FILES) and "tokenizer.model" in helps, helps


def test_a_rope_model_on_every_page(app, tmp_path):
    """Llama has no position table: the pages say so instead of failing."""
    makers.hf_llama(tmp_path)
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    upload(at, tmp_path / "model.safetensors", "llama.safetensors")
    [b for b in at.button if b.label.startswith("Explore")][0].click().run()
    no_exception(at)
    open_page(at, "6_Positions.py")
    assert any("no learned position table" in i.value and "**RoPE**" in i.value for i in at.info)
    titles = [c.proto.spec for c in at.get("plotly_chart")]
    assert not any("The learned table" in t for t in titles) and any("The sinusoidal table" in t for t in titles)
    open_page(at, "7_Forward_pass.py")  # x = tok for a RoPE model: computed, with the reason no rows are added
    assert [x.value.strip("$\n") for x in at.latex] == [r"x_t = \mathrm{tok}[id_t]"]
    assert any("no position rows are added (positions: rope)" in m.value for m in at.markdown)  # a file with no config
    assert all("no tokenizer" in e.value for e in at.error)  # the text fields, not the position rows
    for page in ("1_Lookup_table.py", "2_Sizing.py", "3_Dot_products.py", "4_Neighbours.py", "5_Projection.py"):
        open_page(at, page)


def test_a_folder_address_opens_that_file_and_refuses_one_outside(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from .conftest import ROOT

    root = tmp_path / "ckpts"
    (root / "run").mkdir(parents=True)
    makers.llmc_bin(root / "run" / "llmc.bin")
    (tmp_path / "secret.pt").write_bytes(b"x")
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))

    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=120)
    at.query_params["model"] = "folder:run/llmc.bin"
    at.run()
    no_exception(at)
    assert at.session_state["model"] != "minilm-l6" and at.query_params["model"] == "folder:run/llmc.bin"
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Vocabulary V"], metrics["d_model"], metrics["Output table"]) == ("100", "16", "tied")

    for outside in ("folder:../secret.pt", f"folder:{tmp_path / 'secret.pt'}"):
        at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=120)
        at.query_params["model"] = outside
        at.run()
        no_exception(at)
        assert at.session_state["model"] == "minilm-l6" and at.query_params["model"] == "minilm-l6"
        assert any("could not be opened" in e.value and "outside the checkpoint folder" in e.value for e in at.error)


def test_a_failed_upload_keeps_the_previous_one_and_a_replaced_upload_is_deleted(app, tmp_path):
    import numpy as np

    from andrea_viz.ui.state import USER_MODELS

    np.savez(tmp_path / "a.npz", wte=np.ones((30, 4), np.float32))
    np.savez(tmp_path / "b.npz", wte=np.ones((40, 4), np.float32))
    at = upload(open_page(app("andrea-12m-init"), "8_Checkpoint.py"), tmp_path / "a.npz")
    (key_a, a), = at.session_state[USER_MODELS].items()
    folder_a = Path(a.provenance.file).parent
    assert folder_a.is_dir() and a.vocab_size == 30
    at.sidebar.selectbox[0].set_value(key_a).run()  # explored: the model of every page
    assert at.session_state["model"] == key_a
    at.get("file_uploader")[0].upload("bad.pt", b"\x80\x02garbage", "application/octet-stream").run()
    button(at, "Read the upload").click().run()
    no_exception(at)
    assert at.error and at.session_state["model"] == key_a  # the explored upload stays, with its file
    assert folder_a.is_dir() and list(at.session_state[USER_MODELS]) == [key_a]
    at = upload(at, tmp_path / "b.npz")
    (key_b, b), = at.session_state[USER_MODELS].items()
    assert b.vocab_size == 40 and Path(b.provenance.file).is_file()
    assert not folder_a.exists()  # replaced: deleted


def tiny_gpt2(folder: Path):
    """A GPT-2 built by transformers from a small GPT2Config and saved by save_pretrained (which leaves the tied head,
    lm_head.weight, out of model.safetensors), with a byte-level BPE tokenizer.json trained here."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel

    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(["the cat sat on the mat", "an embedding layer maps token ids to rows"] * 20,
                            vocab_size=300, min_frequency=1, show_progress=False)
    torch.manual_seed(0)
    V = tok.get_vocab_size()
    model = GPT2LMHeadModel(GPT2Config(vocab_size=V, n_positions=32, n_embd=16, n_layer=1, n_head=2, bos_token_id=0,
                                       eos_token_id=0))
    model.save_pretrained(folder)
    tok.save(str(folder / "tokenizer.json"))
    return model, tok


def test_a_lone_gpt2_weights_file_is_read_with_the_config_beside_it(tmp_path):
    """(a) the folder, (b) its model.safetensors picked alone, (c) the three files as an upload spools them: tied;
    the same file with no config.json beside it has no head."""
    import io
    import shutil

    import numpy as np
    from safetensors import safe_open

    from andrea_viz.checkpoints import load_path
    from andrea_viz.ui import uploads

    model, tok = tiny_gpt2(tmp_path / "gpt2")
    with safe_open(str(tmp_path / "gpt2" / "model.safetensors"), "np") as f:
        assert "lm_head.weight" not in set(f.keys())  # what save_pretrained writes for a tied head
    wte = model.transformer.wte.weight.detach().numpy()
    folder = andrea_viz_load(tmp_path / "gpt2")
    lone = load_path(tmp_path / "gpt2" / "model.safetensors", confine=tmp_path / "gpt2")

    class Upload(io.BytesIO):
        def __init__(self, path):
            super().__init__(path.read_bytes())
            self.name, self.size = path.name, path.stat().st_size

    spooled = uploads.spool_many([Upload(tmp_path / "gpt2" / n) for n in ("config.json", "model.safetensors",
                                                                          "tokenizer.json")])
    try:
        assert spooled.name == "model.safetensors"
        upload_emb = load_path(spooled, name=spooled.name, confine=spooled.parent)
    finally:
        shutil.rmtree(spooled.parent)
    for emb in (folder, lone, upload_emb):
        assert emb.output_kind == "tied" and emb.tied and emb.output_table is None
        assert np.array_equal(emb.token_table, wte) and emb.position_kind == "learned"
        assert emb.tokenizer.encode("the cat sat") == tok.encode("the cat sat").ids
        assert emb.card["total_params"] == sum(p.numel() for p in model.parameters())
    assert "read with the config.json beside model.safetensors" in lone.provenance.text()
    (tmp_path / "alone").mkdir()
    shutil.copy(tmp_path / "gpt2" / "model.safetensors", tmp_path / "alone")
    assert load_path(tmp_path / "alone" / "model.safetensors").output_kind == "none"  # nothing says it is tied


def andrea_viz_load(path):
    import andrea_viz

    return andrea_viz.load(path)


def test_the_tied_gpt2_upload_with_its_config_and_tokenizer_says_tied(app, tmp_path):
    tiny_gpt2(tmp_path)
    at = open_page(app("minilm-l6"), "8_Checkpoint.py")
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        at.get("file_uploader")[0].upload(name, (tmp_path / name).read_bytes(), "application/octet-stream")
    at.run()
    button(at, "Read the upload").click().run()
    no_exception(at)
    assert not at.error
    text = " ".join(m.value for m in at.markdown)
    assert "**Format:** safetensors" in text and "(learned), output tied" in text, text
    assert "output none" not in text
