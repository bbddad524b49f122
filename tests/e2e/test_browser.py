"""The real app in Debian Chromium: pages load, the sidebar model switch works, screenshots are written."""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

import andrea_viz
from andrea_viz import lexicon
from andrea_viz.family import FAMILY
from andrea_viz.i18n import format_number, translate
from andrea_viz.registry import available_pages

from .conftest import (MODEL_PICKER, SHOTS, act_until, axe_violations, cut_buttons, exceptions, metrics_out_of_line,
                       listen_to_websockets, open_page, press_right, record_requests, requests_elsewhere,
                       reruns_asked, screenshot, sidebar_model, streamlit_english, titles_past_their_chart, wait_idle)

# axe-core's serious or critical violations that lie in Streamlit's own markup, each (rule id, a CSS selector of
# Streamlit's element that holds it, why it cannot be fixed here): only these exact ones are allowed. None with
# Streamlit 1.67 and axe-core 4.14.1 once the theme's text and code colours were made dark enough for captions.
STREAMLIT_AXE: tuple[tuple[str, str, str], ...] = ()


def test_model_switch_in_the_sidebar_follows_to_the_next_page(page, app_url):
    open_page(page, app_url)
    assert sidebar_model(page) == "all-MiniLM-L6-v2 (trained)"
    page.locator(f"{MODEL_PICKER} [data-testid='stSelectbox']").click()
    page.get_by_role("option", name="ANDREA-120M at init", exact=True).click()
    page.wait_for_function("() => document.querySelector('[data-testid=stMetric]')?.innerText.includes('8,449')",
                           timeout=60_000)
    wait_idle(page)
    assert exceptions(page) == []
    assert "model=andrea-120m-init" in page.url
    page.locator("[data-testid='stSidebar'] a", has_text="Lookup table").click()
    page.wait_for_url("**/Lookup_table**")
    page.locator("[data-testid='stMain'] [data-testid='stMarkdownContainer']",
                 has_text="(V, d_model) = (8449, 768)").wait_for(timeout=60_000)
    wait_idle(page)
    assert exceptions(page) == []
    assert sidebar_model(page) == "ANDREA-120M at init"
    screenshot(page, "lookup_table_andrea-120m-init")


def test_play_button_turns_the_vector(page, app_url):
    open_page(page, f"{app_url}/Dot_products")
    chart = page.locator(".js-plotly-plot", has=page.locator(".updatemenu-button"))
    chart.wait_for(timeout=60_000)
    assert chart.locator(".gtitle").first.text_content().startswith("θ = 0°")
    chart.locator(".updatemenu-button", has_text="Play").click()
    # the animated chart's own title (the static chart beside it says θ = 60° from the start)
    page.wait_for_function(
        "el => { const t = el.querySelector('.gtitle'); return t && /^θ = [1-9][0-9]*°/.test(t.textContent); }",
        arg=chart.element_handle(), timeout=30_000,
    )
    assert not chart.locator(".gtitle").first.text_content().startswith("θ = 0°")
    assert exceptions(page) == []
    screenshot(page, "dot_products_playing")


def test_quiz_reveal_in_the_browser(page, app_url):
    open_page(page, f"{app_url}/Dot_products")
    quiz = page.locator("[data-testid='stSlider']", has_text="/").get_by_role("slider")  # the pairs' sliders
    quiz.nth(4).wait_for(timeout=60_000)  # drawn below the page's charts
    assert quiz.count() == 5
    for k in range(quiz.count()):  # every pair is placed before the reveal is offered
        press_right(page, quiz.nth(k))
        left = quiz.count() - k - 1  # the caption counts the pairs still at the start: wait for it to count this one
        if left:
            page.locator("[data-testid='stCaptionContainer']", has_text=f"{left} of {quiz.count()} still at the start"
                         ).wait_for(timeout=30_000)
    page.locator("button:not([disabled])", has_text="Reveal the cosines").click(timeout=30_000)
    page.locator("[data-testid='stMetric']", has_text="Score").wait_for(timeout=30_000)
    wait_idle(page)
    assert exceptions(page) == []


def test_the_sizing_exercise_checks_without_rerunning_the_page(page, app_url):
    """Typing an answer and Check rerun the exercise alone (a fragment), not the Sizing page with its treemap, so a
    learner's answer costs the server the exercise's few lines and reaches a teacher at once: every rerun the page
    asks for after the page is loaded names the exercise's fragment, and the feedback says the answer is right."""
    _urls, sent = listen_to_websockets(page)  # what the page sends on Streamlit's websocket: a rerun is one BackMsg
    open_page(page, f"{app_url}/Sizing")
    wait_idle(page)
    sent.clear()
    s = FAMILY["ANDREA-12M"]
    box = page.locator(".st-key-sizing-exercise-ANDREA-12M input")
    box.fill(f"{s.V * s.d:,}")
    box.press("Enter")
    wait_idle(page)
    page.locator(".st-key-sizing-exercise-ANDREA-12M-check button").click()
    page.locator("[data-testid='stAlertContentSuccess']").wait_for(timeout=30_000)  # the page's one success
    wait_idle(page)
    reruns = reruns_asked(sent)
    assert len(reruns) == 2 and all(reruns), reruns  # the typed answer, then Check: both the fragment's runs
    assert exceptions(page) == []


def test_position_slider_answers_in_the_browser(page, app_url):
    """The x_t view's slider is the page's first, keyboard-operable, and redraws in the frame: the title reads
    x_4 after one ArrowRight from x_3 with no message to the server. Prints key-to-paint times (no assertion on
    them: the figure goes to the README)."""
    sent = []  # what the page sends on Streamlit's websocket: a widget change or a rerun would be one
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(payload)))
    open_page(page, f"{app_url}/Positions")
    frame_el = page.locator("iframe[srcdoc*='title-sum']")
    frame_el.wait_for(timeout=60_000)
    frame = frame_el.element_handle().content_frame()  # a Frame: it can evaluate scripts
    title = frame.locator("#title-sum")
    title.wait_for(timeout=30_000)
    assert title.inner_text().startswith("x_3 = token + position")
    slider = frame.get_by_role("slider")
    assert slider.count() == 1 and slider.get_attribute("aria-label") == "Position t"
    streamlit_sliders = page.get_by_role("slider")  # Streamlit's own, in the page: all below the frame
    top = frame_el.bounding_box()["y"]
    assert all(streamlit_sliders.nth(k).bounding_box()["y"] > top for k in range(streamlit_sliders.count()))
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    wait_idle(page)
    sent.clear()
    times = []
    slider.focus()
    for t in range(4, 9):
        frame.evaluate("""() => {
            const seen = window.__keyTiming = {};
            const input = document.getElementById("t"), title = document.getElementById("title-sum");
            input.addEventListener("keydown", (e) => { seen.key = e.timeStamp; }, {capture: true, once: true});
            const watch = new MutationObserver(() => {
                watch.disconnect();
                seen.changed = performance.now();
                requestAnimationFrame(() => setTimeout(() => { seen.painted = performance.now(); }));
            });
            watch.observe(title, {childList: true, characterData: true, subtree: true});
        }""")
        page.keyboard.press("ArrowRight")
        frame.locator("#title-sum", has_text=f"x_{t} = token + position").wait_for(timeout=10_000)
        frame.wait_for_function("() => window.__keyTiming.painted !== undefined", timeout=10_000)
        seen = frame.evaluate("() => window.__keyTiming")
        times.append((seen["changed"] - seen["key"], seen["painted"] - seen["key"]))
    assert frame.locator("#title-position").inner_text().startswith("position_embedding[8]")
    assert requests == [] and sent == []  # nothing asked of the server while the slider moved
    changed = sorted(c for c, _ in times)
    painted = sorted(p for _, p in times)
    print(f"Positions slider, key press → chart changed: median {changed[2]:.1f} ms, → painted: median "
          f"{painted[2]:.1f} ms (5 presses; all painted: {', '.join(f'{p:.1f}' for _, p in times)} ms)")
    assert exceptions(page) == []
    screenshot(page, "positions_t8")


def upload_and_read(page, app_url, files) -> str:
    """The files uploaded together on the Checkpoint page and read: the page's text once the report of the first
    file is there (its heading waited on)."""
    open_page(page, f"{app_url}/Checkpoint")
    page.locator("[data-testid='stFileUploaderDropzoneInput']").first.set_input_files([str(f) for f in files])
    page.locator("[data-testid='stFileChipName']", has_text=files[-1].name).wait_for(timeout=30_000)
    read = page.locator("button:enabled", has_text="Read the upload")  # enabled once the upload has arrived
    read.wait_for(timeout=30_000)
    wait_idle(page)
    read.click()
    page.get_by_role("heading", name=f"What {files[0].name} holds").wait_for(timeout=60_000)
    wait_idle(page)
    return page.locator("[data-testid='stMain']").inner_text()


def test_the_tied_gpt2_upload_says_tied(page, app_url, tmp_path):
    """GPT-2 saved by transformers' save_pretrained (its tied head left out of model.safetensors) uploaded in the
    browser with the config.json and tokenizer.json beside it: the report says the output is tied, not none."""
    from tests.app.test_checkpoint_page import tiny_gpt2

    tiny_gpt2(tmp_path)
    body = upload_and_read(page, app_url, [tmp_path / n for n in ("model.safetensors", "config.json", "tokenizer.json")])
    assert "Format: safetensors" in body and "output tied" in body and "output none" not in body, body[:2000]
    assert exceptions(page) == []


def test_upload_a_checkpoint_and_read_its_report(page, app_url, tmp_path):
    from tests.checkpoint_files import makers

    makers.nanogpt_ckpt(tmp_path / "ckpt.pt", compiled=True)
    body = upload_and_read(page, app_url, [tmp_path / "ckpt.pt"])
    assert "PyTorch checkpoint (nanoGPT ckpt.pt)" in body and "tied" in body
    assert "torch.compile's '_orig_mod.' prefix" in body and "Taken as the model's tables" in body
    assert exceptions(page) == []
    screenshot(page, "checkpoint_report")
    page.get_by_role("button", name="Explore ckpt.pt").click()
    page.wait_for_url("**/Neighbours**", timeout=60_000)
    page.get_by_role("heading", name="Nearest neighbours").wait_for(timeout=60_000)
    wait_idle(page)
    assert sidebar_model(page) == "ckpt.pt (your checkpoint)"
    assert exceptions(page) == []
    # no tokenizer: the analogy starts on three rows by id (#256 − #257 + #258), not on words it cannot spell
    assert page.locator("[data-testid='stAlertContentError']").count() == 0
    screenshot(page, "neighbours_of_uploaded_checkpoint")


def test_projection_downloads_are_written_on_click(page, app_url, tmp_path):
    open_page(page, f"{app_url}/Projection?method=pca")
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    for label, header in (("Coordinates with trust (CSV)", "id,token,group,x1,x2,trust"), ("metadata.tsv", "token\tid\tgroup")):
        wait_idle(page)
        with page.expect_download(timeout=60_000) as info:
            page.get_by_role("button", name=label).click()
        path = tmp_path / info.value.suggested_filename
        info.value.save_as(path)
        lines = path.read_text().splitlines()
        assert lines[0] == header and len(lines) == 5001, (label, lines[:2])
    assert exceptions(page) == []


def test_grow_train_scrub_and_explore(page, app_url):
    open_page(page, f"{app_url}/Grow")
    steps = page.get_by_role("spinbutton", name="Steps")
    steps.fill("120")
    steps.press("Tab")
    page.get_by_role("button", name="Train").click()
    page.locator("[data-testid='stProgress']").wait_for(timeout=60_000)  # the live progress of the job
    screenshot(page, "grow_training")
    # the run has ended when the scrubber of its snapshots appears
    page.locator("[data-testid='stSlider']", has_text="Training step").wait_for(timeout=180_000)
    wait_idle(page)
    step = page.locator("[data-testid='stMetric']", has_text="Step").first
    assert step.locator("[data-testid='stMetricValue']").inner_text() == "120"
    assert exceptions(page) == []
    screenshot(page, "grow_trained")
    page.locator("[data-testid='stSlider']", has_text="Training step").get_by_role("slider").press("Home")
    step.locator("[data-testid='stMetricValue']", has_text=re.compile(r"^0$")).wait_for(timeout=30_000)
    wait_idle(page)
    unchanged = page.locator("[data-testid='stMetric']", has_text="Unchanged token rows").locator(
        "[data-testid='stMetricValue']").inner_text()
    total = unchanged.split("/")[1].strip()
    assert unchanged.split("/")[0].strip() == total  # at step 0 every row is the step-0 row
    page.get_by_role("button", name="Explore step 0 on every page").click()
    page.wait_for_function(
        f"() => document.querySelector(\"{MODEL_PICKER} input\")?.value.startsWith('grown-step-0.bin')", timeout=60_000)
    wait_idle(page)
    assert sidebar_model(page) == "grown-step-0.bin (your checkpoint)"
    assert exceptions(page) == []


def test_compare_two_uploaded_snapshots(page, app_url):
    """The shipped andrea-micro's first and last snapshots (a Grow run's own files), uploaded as A and B."""
    import json

    from andrea_viz.builtin import MICRO_DIR

    unseen = json.loads((MICRO_DIR / "run.json").read_text())["unseen_ids"]
    open_page(page, f"{app_url}/Compare")
    for side, path in zip("AB", (MICRO_DIR / "step-000000.bin", MICRO_DIR / "step-000600.bin"), strict=True):
        page.locator("[data-testid='stRadio']", has_text=f"Source of {side}").get_by_text("upload").click()
        uploader = page.locator("[data-testid='stFileUploader']", has_text=f"Checkpoint for {side}")
        uploader.wait_for(timeout=30_000)
        uploader.locator("[data-testid='stFileUploaderDropzoneInput']").set_input_files(
            [str(path), str(path.parent / "config.json"), str(path.parent / "harris_segments.json")])
        uploader.locator("[data-testid='stFileChipName']", has_text="harris_segments.json").wait_for(timeout=30_000)
        wait_idle(page)
    unmoved = page.locator("[data-testid='stMetric']", has_text="Unmoved rows").locator("[data-testid='stMetricValue']")
    act_until(page.locator("[data-testid='stRadio']", has_text="Alignment").get_by_text("none (one run)").click,
              unmoved.filter(has_text=re.compile(rf"^{len(unseen)}$")))  # a lost click (one CI run): made again
    wait_idle(page)
    assert exceptions(page) == []
    page.get_by_text("From A (open circle) to B").first.wait_for(timeout=30_000)
    for name in ("step-000000.bin", "step-000600.bin"):  # each side says what it read (A's line went once B was read)
        expect(page.locator("[data-testid='stExpander'] summary", has_text=f"{name}: ANDREA .bin")).to_have_count(1)
    moved_least = page.locator("[data-testid='stMarkdownContainer'] strong", has_text="Moved least")  # the heading
    assert moved_least.count() == 1  # (the chart's words below name the trace "Moved least" too)
    screenshot(page, "compare_snapshots")


def test_a_shared_address_opens_the_same_view(page, app_url):
    open_page(page, f"{app_url}/Neighbours?model=minilm-l6&word=dog")
    chart = page.locator(".js-plotly-plot", has=page.locator(".gtitle", has_text="nearest tokens to “dog”"))
    chart.wait_for(timeout=60_000)
    ticks = chart.locator("g.ytick text").all_text_contents()  # plotly's own order, not the ranking
    assert len(ticks) == 10 and {"dogs  #6077", "canine  #28735", "puppy  #17022"} <= set(ticks)
    assert page.locator("[data-testid='stTextInput'] input").first.input_value() == "dog"
    assert exceptions(page) == []


def test_an_address_that_names_a_file_outside_the_checkpoint_folder_is_refused(page, app_url):
    open_page(page, f"{app_url}/?model=folder:../../etc/passwd")
    page.locator("[data-testid='stAlert']", has_text="The model in the address could not be opened").wait_for(
        timeout=60_000)
    assert "outside" in page.locator("[data-testid='stAlert']").first.inner_text()
    assert sidebar_model(page) == "all-MiniLM-L6-v2 (trained)"
    assert exceptions(page) == []


# the title each page draws (its msgid), and a number it writes for the default model
# (the Lesson and the Sizing preset show ANDREA-120M's numbers, whatever the model in the sidebar)
TITLED = {"": ("ANDREA Embedding Explorer", None),  # Home: the V of the language's grown model (below)
          "Lesson": ("The lesson: embeddings", 6_488_832),
          "Sizing": ("Sizing embedding tables", 98_698_752),
          "Dot_products": ("Dot products: how similar are two vectors?", None)}
NO_CHART = ("", "Checkpoint", "Grow", "Class")  # every other page draws a chart before any click

# a page reached by its sidebar link is drawn once the tab's title is the page's, the title on the page is no longer
# the last page's, and the script has run to the end (Streamlit's own state attribute)
NEW_PAGE_DRAWN = """([title, last]) => document.title === title
  && (document.querySelector('[data-testid=stMain] h1')?.innerText ?? last) !== last
  && document.querySelector('[data-testid=stApp]')?.dataset.testScriptState === 'notRunning'"""


def follow_sidebar_link(page, info, lang: str) -> None:
    """Click the sidebar's link to the page ``info`` (a PageInfo) and wait until that page is drawn."""
    last = page.locator("[data-testid='stMain'] h1").first.inner_text()
    page.locator(f"[data-testid='stSidebar'] a[href='{info.url_path}']").click()
    title = f"{translate(info.label, lang)} · ANDREA Embedding Explorer"
    page.wait_for_function(NEW_PAGE_DRAWN, arg=[title, last], timeout=300_000)  # Forward pass builds its kernels


def check_page(page, path: str, lang: str) -> None:
    """The page on screen in ``lang``: its title (and the number it writes, where TITLED names one), its first chart,
    no exception, none of Streamlit's own English, nothing axe-core calls serious; a screenshot of it."""
    title, number = TITLED.get(path, (None, None))
    if not path:  # a new session starts on MiniLM in English, on the model grown in the language in any other
        start = andrea_viz.DEFAULT_MODEL if lang == "en" else lexicon.model_of(lang)  # (andrea-micro-nl: V = 563)
        number = andrea_viz.load(start).vocab_size
    if title is not None:
        page.locator("[data-testid='stMain'] h1", has_text=translate(title, lang)).wait_for(timeout=60_000)
    if number is not None:  # the number is drawn after the title: wait on the text that holds it
        page.locator("[data-testid='stMain']").get_by_text(format_number(number, ",", lang)).first.wait_for(
            timeout=60_000)
    if path not in NO_CHART:
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    assert exceptions(page) == []
    if lang != "en":
        assert streamlit_english(page) == []
    assert axe_violations(page, [(rule, sel) for rule, sel, _why in STREAMLIT_AXE]) == []
    name = path.lower() or "home"
    assert screenshot(page, name if lang == "en" else f"{name}_{lang}").stat().st_size > 10_000
    assert titles_past_their_chart(page) == []  # every chart drawn (the screenshot waits for each to fit)
    assert cut_buttons(page) == []
    assert metrics_out_of_line(page) == []


@pytest.mark.parametrize("lang", ["en", "zh-TW", "nl", "pt-BR"])
def test_every_page_in_each_language(page, app_url, lang):
    """A learner's walk through the app in ``lang``: Home opened at its address (a new session starts on the model
    grown in the language), then every page by its link in the sidebar, as a learner goes; each page checked by
    check_page, and no request made to any host but the app's own on the whole walk (test_frame_and_hosts.py checks
    the map renderers likewise). A page that fails is named and the walk goes on from Home. At 1,280 px, a laptop's
    width and the projector's."""
    page.set_viewport_size({"width": 1280, "height": 900})
    asked = record_requests(page)
    open_page(page, f"{app_url}/?lang={lang}")
    failed = {}
    for info in available_pages():
        try:
            if info.url_path:
                follow_sidebar_link(page, info, lang)
            check_page(page, info.url_path, lang)
        except (AssertionError, PlaywrightTimeout) as exc:
            failed[info.url_path or "Home"] = str(exc)[:1500]
            open_page(page, f"{app_url}/?lang={lang}")
    assert failed == {}
    assert len(asked) > 5 and requests_elsewhere(asked, app_url) == []


def test_canvas_map_frames_pass_axe(page, app_url):
    """The canvas map's two component frames (the map, and the hidden one that hands the lines over) name the
    reader's language and hold no unnamed control: axe finds nothing serious there either."""
    open_page(page, f"{app_url}/Projection?method=pca&renderer=canvas&lang=nl")
    for name in ("canvas_map", "canvas_map_lines"):
        frame = page.locator(f"iframe[src*='map_view.{name}/']").element_handle(timeout=60_000).content_frame()
        frame.wait_for_selector("html[lang='nl']", state="attached", timeout=60_000)  # drawn: its language is set
    wait_idle(page)
    assert exceptions(page) == []
    assert axe_violations(page, [(rule, sel) for rule, sel, _why in STREAMLIT_AXE]) == []


@pytest.mark.parametrize("path", ["Dot_products", "Neighbours"])
def test_the_english_grown_model_on_the_pages_that_show_its_words(page, app_url, path):
    """Dot products and Neighbours on andrea-micro in English (the other languages' grown models: above)."""
    open_page(page, f"{app_url}/{path}?model=andrea-micro")
    # the page's first text box holds the grown model's cat (awaited: the boxes below it may be drawn first)
    expect(page.locator("[data-testid='stMain'] [data-testid='stTextInput'] input").first).to_have_value(
        "cat", timeout=60_000)
    page.wait_for_selector(".js-plotly-plot .main-svg", timeout=60_000)
    wait_idle(page)
    assert exceptions(page) == []
    screenshot(page, f"{path.lower()}_andrea-micro_en")


def test_a_charts_words_open_by_keyboard_and_read_its_numbers(page, app_url):
    """The Neighbours chart's words: its expander reached and opened by keyboard, its summary and table shown in the
    reader's language (nl), nothing serious for axe, and a screenshot of them."""
    open_page(page, f"{app_url}/Neighbours?model=minilm-l6&word=dog&lang=nl")
    title = translate("The {n} nearest tokens to “{query}”", "nl").format(n=10, query="dog")
    words = page.locator("[data-testid='stExpander']", has_text=translate("In words: {title}", "nl").format(title=title))
    summary = words.locator("summary")
    summary.focus()
    page.keyboard.press("Enter")
    table = words.locator("table")
    table.wait_for(timeout=30_000)
    assert table.locator("tbody tr").count() == 10
    assert table.locator("thead th").all_inner_texts()[:2] == ["token", "id"]
    assert words.locator("[data-testid='stExpanderDetails'] [data-testid='stMarkdownContainer']").first.inner_text().startswith(
        f"{title}, de naaste eerst")
    wait_idle(page)
    assert exceptions(page) == []
    assert axe_violations(page, [(rule, sel) for rule, sel, _why in STREAMLIT_AXE]) == []
    words.scroll_into_view_if_needed()
    SHOTS.mkdir(parents=True, exist_ok=True)
    words.screenshot(path=str(SHOTS / "neighbours_chart_in_words_nl.png"))
