"""``python -m andrea_viz bench-map-view``: the browser half of ``bench-map``. One seeded synthetic map of N points
(a mixture of 48 Gaussian blobs, tokens ``tok00001``…, trust on the first 5,000) drawn by plotly (the page's
``projection_scatter``, set to pan when dragged), deck.gl (``deck_map``) and the canvas map (``canvas_map``), each served by
``ui/bench_map_app.py`` under ``streamlit run`` and opened in headless Chromium (Debian's, software GL), side by side
in one run:

- pan: frames per second while the mouse drags the map 360 px in 48 moves (``requestAnimationFrame`` callbacks
  counted in the page), and pointer moves handled per second;
- hover: the median of 7 hovers from the mouse move to the tooltip holding a new token (polled on each frame);
- click (canvas map only): the median of 9 clicks on distinct points from the click event to the frame that paints
  its lines (timed in the frame), the server having found its true 10
  nearest in a seeded (N, 384) float32 table ((N, 2,560) bfloat16 at Gemma-3's 262,144 points) as the page finds them
  (``geometry.nearest_of``) and sent the lines;
- find (canvas map only): from the last key of a token typed on the focused map to that point selected;
- ids drawn (canvas map only): the distinct ids the point pass draws at the first view, each written to its own pixel
  of a 512 × 512 target and read back (``drawnIds`` in ``ui/map_frame/map.js``): every id, or the map hides some;
- payload: the bytes the page's websocket receives for the map, less those of the same page without a map.

Needs a checkout, Playwright and Debian's ``chromium``; nothing is downloaded.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from statistics import median

import numpy as np

from ..maps.layout import Projection
from ..model import Embeddings, Provenance
from ..tokenizer.ids import IdTokenizer
from ..maps.sample import Sample
from ..testing_harness import CHROMIUM_FLAGS, ROOT, chromium_exe, serve
from .planted import PLANTED_D, PLANTED_V

RENDERERS = ("plotly", "deck", "canvas")
SCRIPT = "andrea_viz/ui/bench_map_app.py"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
CANVAS_FRAME = "iframe[title='andrea_viz.ui.map_view.canvas_map']"
# where each renderer's map lies on the page, and its tooltip's text ('' when none is shown)
TARGET = {"plotly": ".js-plotly-plot .nsewdrag", "deck": "[data-testid='stDeckGlJsonChart'] canvas",
          "canvas": CANVAS_FRAME}
TIP = {
    "plotly": "() => { const t = document.querySelector('.hoverlayer .hovertext'); return t ? t.textContent : ''; }",
    "deck": "() => { const t = document.querySelector('.deck-tooltip'); "
            "return t && t.style.display !== 'none' ? t.innerText : ''; }",
    "canvas": "() => { const f = document.querySelector(\"" + CANVAS_FRAME + "\"); const t = f && f.contentDocument && "
              "f.contentDocument.getElementById('tip'); return t && t.style.display === 'block' ? t.textContent : ''; }",
}
RAF = """() => { window.__frames = 0; const tick = () => { window.__frames++; requestAnimationFrame(tick); };
  requestAnimationFrame(tick); }"""
HOVERS = 7
CLICKS = 9
DIMS = 384  # the synthetic table's width (MiniLM's) for the click's true nearest
PAN_MOVES = 48
SIZES = (30_000, 128_256, PLANTED_V)  # MiniLM-sized, Llama-3's vocabulary, Gemma-3's


def dims_of(n: int) -> int:
    """The width of the table behind a map of n points: Gemma-3's (2,560) at its vocabulary, else MiniLM's."""
    return PLANTED_D if n == PLANTED_V else DIMS


def synthetic_map(n: int, seed: int = 0) -> tuple[Projection, Sample, list[str], np.ndarray]:
    """A seeded map of n points: (projection, sample, tokens, trust), the shapes the page's renderers take."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-20, 20, (48, 2))
    which = rng.integers(0, len(centres), n)
    coords = (centres[which] + rng.standard_normal((n, 2)) * rng.uniform(0.5, 2.5, len(centres))[which, None])
    trust = np.full(n, np.nan)
    trust[: min(n, 5000)] = rng.random(min(n, 5000))
    tokens = [f"tok{i:05d}" for i in range(n)]
    return (Projection(coords.astype(np.float32), "umap", None, 0.0), Sample(np.arange(n), ("other",) * n),
            tokens, trust)


def synthetic_table(n: int, d: int, seed: int = 0) -> np.ndarray:
    """A seeded (n, d) float32 table standing behind the synthetic map: its rows' true nearest are the click's lines."""
    return np.random.default_rng(seed).standard_normal((n, d), dtype=np.float32)


def synthetic_model(n: int, seed: int = 0) -> Embeddings:
    """The model behind the synthetic map of n points, whose true nearest the click's lines are found in as the page
    finds them (``geometry.nearest_of``): ``synthetic_table(n, dims_of(n))``, stored as bfloat16 at Gemma-3's size (as
    Gemma-3 stores its table), else as float32."""
    import ml_dtypes

    table = synthetic_table(n, dims_of(n), seed)
    if n == PLANTED_V:
        table = table.astype(ml_dtypes.bfloat16)
    return Embeddings("synthetic", table, None, "none", None, False, IdTokenizer(n), Provenance("bench-map-view"))


def _click(page, box: dict) -> float | None:
    """The median over CLICKS distinct points near the centre of the canvas map of the ms from a click on a point to
    its lines painted, as the frame itself times them (``data-click-ms``: from the click event to the end of the
    frame that draws that point's lines, so the browser's own latency counts and Playwright's polling does not)."""
    frame = page.frame_locator(CANVAS_FRAME)
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    times, seen = [], set()
    for k in range(CLICKS):
        at = (cx + 31 * (k - CLICKS // 2), cy + 17 * ((k % 3) - 1))
        page.mouse.move(box["x"] - 10, box["y"] - 10)  # off the map: its tooltip and hovered id gone
        frame.locator("body:not([data-hovered])").wait_for(state="attached", timeout=10_000)
        page.mouse.move(*at)
        try:
            frame.locator("body[data-hovered]").wait_for(state="attached", timeout=10_000)
        except Exception:  # noqa: BLE001 (nothing under the pointer)
            continue
        hovered = frame.locator("body").get_attribute("data-hovered")
        if hovered in seen:  # the same point again: its lines are already drawn
            continue
        seen.add(hovered)
        page.mouse.click(*at)
        done = frame.locator(f"body[data-lines-from='{hovered}'][data-click-ms]")
        done.wait_for(state="attached", timeout=60_000)
        times.append(float(done.get_attribute("data-click-ms")))
    return median(times) if times else None


def _canvas_frame(page):
    return page.locator(CANVAS_FRAME).element_handle().content_frame()


def drawn_ids(page) -> int:
    """Distinct ids the canvas map's point pass draws at its first view, read back from a 512 × 512 target."""
    return int(_canvas_frame(page).evaluate("() => window.andreaMap.drawnIds(512)"))


def _find(page, token: str, token_id: int) -> float:
    """ms from the last key of ``token`` typed on the focused canvas to that point selected (its highlight drawn)."""
    frame = _canvas_frame(page)
    frame.focus("canvas#map")
    page.keyboard.type(token[:-1])  # each key handled before the next is sent (the frame finds as it is typed)
    t0 = time.perf_counter()  # well within the 1.5 s that keys of one word may lie apart
    page.keyboard.press(token[-1])
    frame.wait_for_function(f"() => document.body.dataset.selected === '{token_id}'", polling="raf", timeout=10_000)
    return 1000 * (time.perf_counter() - t0)


def _open(page, url: str, renderer: str) -> int:
    """Open the bench page; the bytes its websocket received until the map is drawn and the script idle."""
    got = [0]

    def on_socket(ws):
        ws.on("framereceived", lambda payload: got.__setitem__(0, got[0] + len(payload)))

    page.on("websocket", on_socket)
    page.goto(url)
    page.wait_for_selector("[data-testid='stCaptionContainer']", timeout=600_000)  # the caption: the script's end
    page.wait_for_selector(IDLE, timeout=600_000)
    if renderer in TARGET:
        page.locator(TARGET[renderer]).first.wait_for(timeout=600_000)
    if renderer == "canvas":
        page.frame_locator(CANVAS_FRAME).locator("body[data-ready]").wait_for(state="attached", timeout=600_000)
    page.wait_for_timeout(1500)  # let the first paint finish before measuring
    page.remove_listener("websocket", on_socket)
    return got[0]


def _pan(page, box: dict) -> tuple[float, float]:
    """(frames per second, pointer moves per second) while dragging from the centre 360 px to the right."""
    x, y = box["x"] + box["width"] / 2 - 180, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 4, y)
    page.evaluate(RAF)
    t0, f0 = time.perf_counter(), page.evaluate("() => window.__frames")
    for k in range(1, PAN_MOVES + 1):
        page.mouse.move(x + 4 + 356 * k / PAN_MOVES, y + 30 * np.sin(k / 6))
    f1, t1 = page.evaluate("() => window.__frames"), time.perf_counter()
    page.mouse.up()
    return (f1 - f0) / (t1 - t0), PAN_MOVES / (t1 - t0)


def _hover(page, box: dict, renderer: str) -> tuple[float | None, int]:
    """(median ms from a mouse move to a new tooltip text, how many of the hovers showed one)."""
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + 5, box["y"] + 5)
    times, prev = [], page.evaluate(TIP[renderer])
    for k in range(HOVERS):
        at = (cx + 23 * (k - HOVERS // 2), cy + 11 * ((k % 3) - 1))
        t0 = time.perf_counter()
        page.mouse.move(*at)
        try:
            page.wait_for_function(f"(prev) => {{ const t = ({TIP[renderer]})(); return t !== '' && t !== prev; }}",
                                   arg=prev, polling="raf", timeout=10_000)
        except Exception:  # noqa: BLE001 (Playwright's TimeoutError: nothing under the pointer, counted as a miss)
            continue
        times.append(1000 * (time.perf_counter() - t0))
        prev = page.evaluate(TIP[renderer])
    return (median(times) if times else None), len(times)


def browser_rows(sizes=SIZES, renderers=RENDERERS) -> list[dict]:
    """One row per (size, renderer): fps while panning, pointer moves/s, hover median ms and hits, payload bytes; on
    the canvas map also a click's lines, a typed token found, and the ids drawn at the first view."""
    from playwright.sync_api import sync_playwright  # here: only this command needs a browser

    exe = chromium_exe()
    rows = []
    env = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    with serve(env, log_dir=ROOT / "artifacts" / "logs", script=SCRIPT) as (url, _pid), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)
        for n in sizes:
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            base = _open(context.new_page(), f"{url}/?renderer=none&n={n}", "none")
            context.close()
            for renderer in renderers:
                context = browser.new_context(viewport={"width": 1200, "height": 900})
                page = context.new_page()
                received = _open(page, f"{url}/?renderer={renderer}&n={n}", renderer)
                target = page.locator(TARGET[renderer]).first
                target.scroll_into_view_if_needed()
                box = target.bounding_box()
                hover_ms, hits = _hover(page, box, renderer)
                ids = drawn_ids(page) if renderer == "canvas" else None  # at the first view, before any move
                click_ms = _click(page, box) if renderer == "canvas" else None
                find_ms = _find(page, f"tok{n - 7:05d}", n - 7) if renderer == "canvas" else None
                fps, moves = _pan(page, box)
                rows.append({"points": n, "renderer": renderer, "pan_fps": fps, "moves_per_s": moves,
                             "hover_ms": hover_ms, "hover_hits": hits, "click_ms": click_ms, "find_ms": find_ms,
                             "ids_drawn": ids, "payload_bytes": received - base})
                context.close()
        browser.close()
    return rows


def run(sizes=SIZES, renderers=RENDERERS) -> None:
    """Print the table."""
    print(f"bench-map-view: headless Chromium ({CHROMIUM_FLAGS[2]}, software GL), {os.cpu_count()} CPUs; the click's "
          f"true 10 nearest in {DIMS} dimensions, {PLANTED_D} at {PLANTED_V:,} points")
    print(f"{'points':>8} {'renderer':<8} {'pan fps':>8} {'moves/s':>8} {'hover ms':>9} {'hits':>5} {'click ms':>9} "
          f"{'find ms':>8} {'ids drawn':>17} {'payload MB':>11}")
    for r in browser_rows(sizes, renderers):
        hover = "-" if r["hover_ms"] is None else f"{r['hover_ms']:.0f}"
        click = "-" if r["click_ms"] is None else f"{r['click_ms']:.0f}"
        find = "-" if r["find_ms"] is None else f"{r['find_ms']:.0f}"
        ids = "-" if r["ids_drawn"] is None else f"{r['ids_drawn']:,} of {r['points']:,}"
        print(f"{r['points']:>8,} {r['renderer']:<8} {r['pan_fps']:>8.1f} {r['moves_per_s']:>8.1f} {hover:>9} "
              f"{r['hover_hits']:>2}/{HOVERS} {click:>9} {find:>8} {ids:>17} {r['payload_bytes'] / 1e6:>11.2f}")


# ---- a saved map: the planted table's, labelled, drawn as the Projection page draws it ----------------------------

SAVED = "ANDREA_VIZ_BENCH_MAP"  # the folder ``ui/bench_map_app.py?renderer=saved`` reads its map from
ZOOM_STEPS = {0: 0, 1: 4, 3: 12}  # zoom level → wheel steps of 120 (×1.197 each): levels 0, 1.04 and 3.11
SHOTS = ROOT / "artifacts" / "screenshots"


def save_payload(payload: dict, folder: Path) -> Path:
    """A canvas map's arguments (``plots.canvas_map.scene_payload``) in ``folder``: each ``bytes`` value a file of
    its own, the rest one JSON file (no pickle)."""
    import json

    folder.mkdir(parents=True, exist_ok=True)
    rest = {}
    for key, value in payload.items():
        if isinstance(value, bytes):
            (folder / f"{key}.bin").write_bytes(value)
        else:
            rest[key] = value
    (folder / "payload.json").write_text(json.dumps(rest))
    return folder


def load_payload(folder: Path) -> dict:
    """``save_payload``'s map back."""
    import json

    payload = json.loads((folder / "payload.json").read_text())
    return {**payload, **{f.stem: f.read_bytes() for f in sorted(folder.glob("*.bin"))}}


def saved_map_views(folder: Path, name: str) -> dict:
    """The saved map in Chromium: its payload's bytes, the ids drawn at the first view, and a screenshot at each
    zoom of ``ZOOM_STEPS`` (over the map's centre), ``artifacts/screenshots/{name}_zoom{k}.png``."""
    from playwright.sync_api import sync_playwright  # here: only this step needs a browser

    env = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""), SAVED: str(folder)}
    out = {"shots": []}
    SHOTS.mkdir(parents=True, exist_ok=True)
    with serve(env, log_dir=ROOT / "artifacts" / "logs", script=SCRIPT) as (url, _pid), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_exe(), args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        base = _open(page, f"{url}/?renderer=none&n=1", "none")
        context.close()
        for level, steps in ZOOM_STEPS.items():
            context = browser.new_context(viewport={"width": 1200, "height": 900})
            page = context.new_page()
            received = _open(page, f"{url}/?renderer=saved", "canvas")
            if level == 0:
                out["payload_bytes"], out["ids_drawn"] = received - base, drawn_ids(page)
            page.frame_locator(CANVAS_FRAME).locator(".label[data-level='0']:not([hidden])").first.wait_for(
                timeout=60_000)
            frame_box = page.locator(CANVAS_FRAME).bounding_box()
            page.mouse.move(frame_box["x"] + frame_box["width"] / 2, frame_box["y"] + frame_box["height"] / 2)
            for _ in range(steps):
                page.mouse.wheel(0, -120)
            page.wait_for_function(f"""() => {{
                const doc = document.querySelector("{CANVAS_FRAME}").contentDocument;
                return Number(doc.body.dataset.zoom) >= {level} - 0.01; }}""", timeout=30_000)
            page.mouse.move(frame_box["x"] + 2, frame_box["y"] + frame_box["height"] - 2)  # no tooltip in the picture
            page.wait_for_timeout(600)  # the points drawn again once the pointer rests (140 ms), before the picture
            path = SHOTS / f"{name}_zoom{level}.png"
            page.locator(CANVAS_FRAME).screenshot(path=str(path))
            out["shots"].append(str(path.relative_to(ROOT)))
            context.close()
        browser.close()
    return out
