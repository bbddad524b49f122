"""The Anatomy page in AppTest: a grown ANDREA (with its run's truth), MiniLM, and Llama-shaped folders with and
without a tokenizer, in every language; a table too large for an exact pass offers a seeded sample."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from andrea_viz.anatomy import hubs
from andrea_viz.i18n import LANGUAGES, translate
from andrea_viz.ui.state import LANGUAGE
from tests.checkpoint_files import makers

from .conftest import ROOT, no_exception
from .test_languages import english_left

PAGE = "pages/11_Anatomy.py"


def open_anatomy(model: str | None = None, lang: str = "en", folder: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "home.py"), default_timeout=300)
    if folder is not None:
        at.query_params["model"] = f"folder:{folder}"
    else:
        at.session_state["model"] = model
    at.session_state[LANGUAGE] = lang
    at.run()
    no_exception(at)
    at.switch_page(PAGE).run()
    no_exception(at)
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


@pytest.fixture
def llama_folders(tmp_path, monkeypatch):
    """Two Llama-shaped Hugging Face folders: untied with no tokenizer, and tied with a byte-level BPE tokenizer."""
    from transformers import LlamaConfig, LlamaForCausalLM

    root = tmp_path / "ckpts"
    makers.hf_llama(root / "llama")
    _v, _m, tok = makers.byte_level_bpe(root / "llama-tied")
    import json

    V = len(json.loads(tok.read_text())["model"]["vocab"])
    import torch

    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                 num_attention_heads=2, num_key_value_heads=2, tie_word_embeddings=True)
                     ).save_pretrained(root / "llama-tied")
    monkeypatch.setenv("ANDREA_VIZ_CHECKPOINT_DIR", str(root))
    return root


def test_grown_andrea_shows_its_truth_beside_the_score_and_the_auroc():
    at = open_anatomy("andrea-micro")
    m = metrics(at)
    assert float(m["AUROC"]) >= 0.98 and m["Reference rows"] == "13"
    table = at.dataframe[0].value
    assert {"count in the corpus", "never in a batch", "score", "length", "× median", "≥ threshold"} <= set(table.columns)
    assert table["score"].is_monotonic_decreasing
    # the score's evidence as numbers (a sentence was cut at the table's edge): the row's own length, and the score
    # as 1 − that length ÷ the median row's, worked out here from the table
    from andrea_viz.builtin import load_builtin

    norms = np.linalg.norm(load_builtin("andrea-micro").token_table.astype(np.float64), axis=1)
    for _k, row in table.head(5).iterrows():
        assert row["length"] == pytest.approx(norms[row["id"]], abs=5e-4)
        assert row["× median"] == pytest.approx(norms[row["id"]] / np.median(norms), abs=5e-3)
        assert row["score"] == pytest.approx(1 - norms[row["id"]] / np.median(norms), abs=5e-4)
    assert list(table.columns)[-1] == "reference"  # the widest text last: the numbers stay in view
    assert table["never in a batch"].iloc[:20].all()  # the rows scored most under-trained were never in a batch
    assert any("the ids" in c.value or "truth" in c.value for c in at.caption)
    assert len([x for x in at.metric if x.label == "Skewness of the counts"]) == 3  # a small table: hubs at once


def test_minilm_finds_its_reference_from_the_tokenizer_and_offers_the_exact_hub_count():
    at = open_anatomy("minilm-l6")
    assert any("1,331 ids this tokenizer cannot produce" in i.value for i in at.info)
    m = metrics(at)
    assert "AUROC" not in m and m["Reference rows"] == "1,331"
    table = at.dataframe[0].value
    assert table["token"].iloc[:10].str.startswith("[unused").sum() >= 5
    assert [b.label for b in at.button] == ["Count the hubs of all 30,522 rows"]


def test_a_llama_folder_without_a_tokenizer_gets_ids_only_and_says_why(llama_folders):
    at = open_anatomy(folder="llama/")
    assert any("could not be found from text" in w.value for w in at.warning)
    table = at.dataframe[0].value
    assert table["token"].str.match(r"^#\d+$").all()
    assert "norm" not in metrics(at) and metrics(at)["Reference rows"] == "0"


def test_a_tied_llama_uses_the_cosine_indicator(llama_folders):
    at = open_anatomy(folder="llama-tied/")
    assert any("cosine to the reference rows" in m.value for m in at.markdown)
    assert metrics(at)["Reference rows"] == "13"  # the bytes UTF-8 never uses


def test_a_table_too_large_for_an_exact_pass_offers_a_seeded_sample(monkeypatch):
    monkeypatch.setattr(hubs, "EXACT_LIMIT_CPU", 1.0)
    monkeypatch.setattr(hubs, "SAMPLE_ROWS", 200)
    at = open_anatomy("andrea-micro")
    assert any("too large for this machine" in w.value for w in at.warning)
    [b] = [b for b in at.button if b.label == "Count the hubs of a seeded sample of 200 rows"]
    b.click().run()
    no_exception(at)
    assert any("A seeded sample of 200 rows" in i.value for i in at.info)
    assert len([x for x in at.metric if x.label == "Skewness of the counts"]) == 3


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
@pytest.mark.parametrize("model", ["andrea-micro", "minilm-l6", "llama/"])
def test_the_page_speaks_every_language(lang, model, llama_folders):
    at = open_anatomy(lang=lang, **({"folder": model} if model.endswith("/") else {"model": model}))
    assert at.title[0].value == translate("Inside the table", lang) != "Inside the table"
    assert english_left(at, lang) == []
