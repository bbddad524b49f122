"""Every page renders on a Pythia (GPT-NeoX: RoPE, untied), a T5 (relative positions, one table shared by encoder
and decoder) and a bfloat16 Llama (its tables kept bfloat16 and memory-mapped) model, written by transformers'
save_pretrained and opened from the checkpoint folder."""

import pytest
import torch
from streamlit.testing.v1 import AppTest

from andrea_viz.registry import PAGES
from tests.checkpoint_files import makers

from .conftest import ROOT, no_exception

FAMILIES = {"pythia": ("gpt_neox", None), "t5": ("t5", None), "llama-bf16": ("llama-untied", torch.bfloat16)}


@pytest.fixture(scope="module")
def checkpoint_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckpts")
    for name, (family, dtype) in FAMILIES.items():
        makers.hf_family(root / name, family, dtype=dtype)
        makers.word_level_tokenizer(root / name)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
        yield root


@pytest.mark.parametrize("name", FAMILIES)
def test_every_page_renders(checkpoint_root, name):
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=120)
    at.query_params["model"] = f"folder:{name}/"
    at.run()
    no_exception(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Position table"] == {"pythia": "RoPE", "t5": "relative (T5)", "llama-bf16": "RoPE"}[name]
    assert metrics["Output table"] == {"pythia": "untied", "t5": "tied", "llama-bf16": "untied"}[name]
    for page in PAGES[1:]:
        at.switch_page(page.path).run()
        no_exception(at)
        assert not [e.value for e in at.error if "could not be loaded" in e.value], page.path
        if page.path == "pages/7_Forward_pass.py":
            assert [x.value for x in at.metric if x.label == "Backend used"]  # x was computed, not refused
            assert [x.value.strip("$\n") for x in at.latex] == [r"x_t = \mathrm{tok}[id_t]"]
            assert any("no position rows are added" in m.value for m in at.markdown)
