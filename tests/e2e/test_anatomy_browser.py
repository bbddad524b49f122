"""The Anatomy page in Debian Chromium on a grown ANDREA, MiniLM and a Llama-shaped folder without a tokenizer, in
every language; screenshots under artifacts/screenshots/anatomy_*.png."""

import pytest

from andrea_viz.i18n import translate
from tests.checkpoint_files import makers

from .conftest import exceptions, open_page, screenshot, serve

CASES = [("andrea-micro", lang) for lang in ("en", "zh-TW", "nl", "pt-BR")] + [
    ("minilm-l6", "en"), ("minilm-l6", "zh-TW"), ("folder:llama/", "nl"), ("folder:llama/", "pt-BR")]


@pytest.fixture(scope="module")
def anatomy_url(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckpts")
    makers.hf_llama(root / "llama")
    with serve({"ANDREA_VIZ_CHECKPOINT_DIR": str(root)}) as (url, _pid):
        yield url


@pytest.mark.parametrize("model,lang", CASES)
def test_anatomy_page_in_the_browser(page, anatomy_url, model, lang):
    open_page(page, f"{anatomy_url}/Anatomy?model={model}&lang={lang}", timeout=180_000)
    assert exceptions(page) == []
    assert page.locator("h1").first.inner_text() == translate("Inside the table", lang)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    name = model.replace("folder:", "").strip("/").replace("/", "_")
    assert screenshot(page, f"anatomy_{name}_{lang}").stat().st_size > 10_000
