"""Compare in Chromium on a resized fine-tune: a base and its resize_token_embeddings(mean_resizing=True) copy with four
added rows, made by transformers' own code (tests/audit_pairs.py) in the checkpoint folder the server reads, chosen on
Compare; the audit section lists each added row with its init method, in each of the app's four languages
(screenshots of the section under artifacts/screenshots/compare_audit_<lang>.png)."""

import functools

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from andrea_viz.audit import audit_checkpoints
from andrea_viz.i18n import Msg
from andrea_viz.ui.audit_view import INIT_LABELS
from tests.audit_pairs import Corpus

from .conftest import SHOTS, act_until, exceptions, open_page, serve, streamlit_english, wait_idle

PAIR = "mvn_gpt2_4"


@pytest.fixture(scope="module")
def audit_app(tmp_path_factory):
    root = tmp_path_factory.mktemp("ckpts")
    pair = Corpus(root).pair(PAIR)
    with serve({"ANDREA_VIZ_CHECKPOINT_DIR": str(root)}) as (url, _pid):
        yield url, audit_checkpoints(pair.base, pair.tuned)["added_rows"]


def choose_the_pair(page, url: str, lang: str):
    """Open Compare, read A and B from the checkpoint folder, choose the tuned folder for B; the audit section."""
    open_page(page, f"{url}/Compare?lang={lang}", timeout=180_000)
    main = page.locator("[data-testid='stMain']")
    for n, side in enumerate("AB"):  # A, then B: read from the checkpoint folder; each side's file picker appears
        radio = main.locator("[data-testid='stRadio']").nth(n).get_by_role("radio", name=Msg("checkpoint folder").render(lang))
        files = main.locator("[data-testid='stSelectbox']", has_text=Msg("File for {side}", side=side).render(lang))
        act_until(functools.partial(radio.check, force=True), files, tries=6)  # a lost click: checked again after 20 s
        wait_idle(page, 180_000)
    files.click()  # B's
    page.get_by_role("option", name=f"{PAIR}/", exact=True).click()
    expect(files.locator("input[role='combobox']")).to_have_value(f"{PAIR}/", timeout=60_000)  # chosen, and kept
    return page.locator(".st-key-cmp-audit")


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_the_audit_of_a_resized_fine_tune_in_each_language(page, audit_app, lang):
    url, added = audit_app
    assert [(r["init"], r["moved"]) for r in added] == [("mvn", False)] * 4  # what transformers' resize wrote
    init = Msg(INIT_LABELS["mvn"]).render(lang)
    section = choose_the_pair(page, url, lang)
    try:  # the added rows' init, the awaited element
        section.locator("td", has_text=init).first.wait_for(timeout=90_000)
    except PlaywrightTimeout:
        # Whole-suite runs (never this module alone, 12 runs) lost a step now and then: once A's first radio click
        # (handled above), once the section after B's file was chosen (2026-12-02, fourth session; not understood).
        # The page as it stood is kept for whoever looks into it, and the pair is chosen once more in a fresh session.
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"compare_audit_{lang}_section_missing.png"), full_page=True)
        print(f"\nthe audit section did not come in {lang}; the page is in compare_audit_{lang}_section_missing.png")
        section = choose_the_pair(page, url, lang)
        section.locator("td", has_text=init).first.wait_for(timeout=180_000)
    wait_idle(page, 180_000)
    rows = section.locator("tbody tr")
    assert rows.count() == 4
    for k, r in enumerate(added):
        cells = rows.nth(k).locator("td").all_inner_texts()
        assert cells[:3] == [str(r["id"]), r["token"], init] and cells[4] == Msg("no").render(lang), cells
    assert exceptions(page) == [] and streamlit_english(page) == []
    # every header on one line: the narrow columns' headers broke between two Chinese characters ("已移" over "動")
    lines = section.locator("thead th").evaluate_all("""ths => ths.map(th => {
        const r = document.createRange(); r.selectNodeContents(th);
        return new Set([...r.getClientRects()].filter(b => b.width > 0).map(b => Math.round(b.top))).size; })""")
    assert len(lines) == 6 and lines[4:] == [1, 1] and lines[:2] == [1, 1], lines
    SHOTS.mkdir(parents=True, exist_ok=True)
    section.screenshot(path=str(SHOTS / f"compare_audit_{lang}.png"))
