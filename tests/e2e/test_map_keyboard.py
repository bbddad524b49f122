"""The canvas map by keyboard alone, in each of the app's four languages: from the page's start, find dog's three
nearest neighbours in at most 15 key presses (Shift+Tab onto the map, type "dog", Enter draws its lines, Page Down
three times), each step's announcement read from Chromium's accessibility tree (the frame's polite live region), in
the reader's language, and each compared with a sentence built here from a slow reference: every cosine of the
sample against dog for the nearest, the page's own projection for the trust and the word group. An arrow key moves to
the nearest point within 45 degrees of its direction (a plain loop over every point here)."""

import numpy as np
import pytest

from andrea_viz.i18n import render, set_language
from andrea_viz.maps.project import project_model
from andrea_viz.maps.sample import group_label

from .conftest import SHOTS, exceptions, open_page, wait_idle

FRAME = "iframe[title='andrea_viz.ui.map_view.canvas_map']"
MAX_PRESSES = 15  # the budget for the whole task
TABS_AT_MOST = 8  # Shift+Tab presses tried before the map must have the focus


def _ranked_nearest(table: np.ndarray, ids: np.ndarray, k: int, n: int = 10) -> list[int]:
    """Positions in the sample of point k's n nearest by cosine, nearest first (ties to the lower position): every
    cosine computed one by one."""
    X = table[ids].astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    cos = [float(X[j] @ X[k]) if j != k else -np.inf for j in range(len(ids))]
    return sorted(range(len(ids)), key=lambda j: (-cos[j], j))[:n]


def _towards(xy: np.ndarray, k: int, dx: int, dy: int) -> int:
    """The nearest point to k within 45 degrees of the screen direction (dx, dy), y down; ties to the lower
    position: the angle taken with arccos, one point at a time."""
    best, best_d = -1, np.inf
    for j in range(len(xy)):
        px, py = float(xy[j, 0]) - float(xy[k, 0]), -(float(xy[j, 1]) - float(xy[k, 1]))
        d = np.hypot(px, py)
        if j == k or d == 0:
            continue
        angle = np.degrees(np.arccos(np.clip((px * dx + py * dy) / d, -1, 1)))
        if angle <= 45 + 1e-9 and d < best_d:
            best, best_d = j, d
    return best


def _said(cdp, frame_id: str) -> list[str]:
    """The text of every live region of the frame, as Chromium's accessibility tree holds it."""
    nodes = cdp.send("Accessibility.getFullAXTree", {"frameId": frame_id})["nodes"]
    by_id = {n["nodeId"]: n for n in nodes}

    def text(n) -> str:
        if n.get("role", {}).get("value") in ("StaticText", "text"):
            return n.get("name", {}).get("value", "")
        return "".join(text(by_id[c]) for c in n.get("childIds", []) if c in by_id)

    live = [n for n in nodes if any(p["name"] == "live" and p["value"]["value"] == "polite"
                                    for p in n.get("properties", []))]
    return [text(n) for n in live if n.get("role", {}).get("value") == "status"]


def _frame_id(cdp) -> str:
    def walk(tree):
        yield tree["frame"]
        for child in tree.get("childFrames", []):
            yield from walk(child)
    frames = [f for f in walk(cdp.send("Page.getFrameTree")["frameTree"]) if "map_view.canvas_map/" in f["url"]]
    assert len(frames) == 1, [f["url"] for f in frames]
    return frames[0]["id"]


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_dogs_three_nearest_by_keyboard_alone(page, app_url, load_model, lang):
    minilm = load_model("minilm-l6")
    r = project_model(minilm, "pca", n=5000, include=("cat",), seed=0)  # the map the address below asks for
    tokens, ids, xy = r.tokens, r.sample.ids, r.projection.coords

    def point(k: int) -> str:  # the sentence of one point, as the page's catalogue says it
        set_language(lang)
        return render("{token}, id {id}, {kept} of its 10 nearest kept here, region: {region}",
                      {"token": tokens[k], "id": str(int(ids[k])), "kept": str(int(round(10 * r.trust[k]))),
                       "region": group_label(r.sample.groups[k])}, lang)

    open_page(page, f"{app_url}/Projection?model=minilm-l6&method=pca&renderer=canvas&lang={lang}")
    page.locator(FRAME).wait_for(timeout=60_000)
    frame = page.frame_locator(FRAME)
    frame.locator("body[data-ready]").wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    cdp = page.context.new_cdp_session(page)
    frame_id = _frame_id(cdp)
    say = frame.locator("#say")
    presses = 0

    def press(key: str) -> None:
        nonlocal presses
        presses += 1
        page.keyboard.press(key)

    def heard(sentence: str) -> None:  # the live region says it, and the accessibility tree holds it
        from playwright.sync_api import expect

        expect(say).to_have_text(sentence, timeout=60_000)
        assert _said(cdp, frame_id) == [sentence]

    canvas = frame.locator("canvas#map")
    on_map = "() => document.activeElement?.contentDocument?.activeElement?.id === 'map'"
    while not page.evaluate(on_map):  # from the page's start, backwards past the downloads onto the map
        assert presses < TABS_AT_MOST, "Shift+Tab did not reach the map"
        press("Shift+Tab")
    assert canvas.get_attribute("role") == "application"
    set_language(lang)
    assert canvas.get_attribute("aria-label") == render(
        "Map of {n:,} tokens. Arrow keys move to the nearest point in that direction, Enter draws lines to its true 10 "
        "nearest, Page Down and Page Up walk them, typing a word jumps to its token.", {"n": len(ids)}, lang)
    assert canvas.evaluate("c => getComputedStyle(c).outlineStyle") == "solid"  # the focus is visible

    dog = r.position_of("dog")
    for key in "dog":
        press(key)
    heard(point(dog))
    press("Enter")
    heard(render("Lines drawn from {token} to its {count} true nearest; Page Down walks them.",
                 {"token": "dog", "count": "10"}, lang))
    nearest = _ranked_nearest(minilm.token_table, ids, dog)
    for rank, j in enumerate(nearest[:3], start=1):
        press("PageDown")
        heard(render("nearest {rank} of {count} to {origin}: {point}",
                     {"rank": str(rank), "count": "10", "origin": "dog", "point": point(j)}, lang))
    assert presses <= MAX_PRESSES, presses
    body = frame.locator("body")
    assert body.get_attribute("data-lines-from") == str(int(ids[dog]))
    assert body.get_attribute("data-selected") == str(int(ids[nearest[2]]))
    if lang == "en":
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator(FRAME).screenshot(path=str(SHOTS / "projection_canvas_keyboard.png"))

    press("PageUp")  # back along the walk: the second nearest
    heard(render("nearest {rank} of {count} to {origin}: {point}",
                 {"rank": "2", "count": "10", "origin": "dog", "point": point(nearest[1])}, lang))
    press("PageDown")
    heard(render("nearest {rank} of {count} to {origin}: {point}",
                 {"rank": "3", "count": "10", "origin": "dog", "point": point(nearest[2])}, lang))

    # an arrow: the nearest point within 45 degrees to the right of the third neighbour
    right = _towards(xy, nearest[2], 1, 0)
    press("ArrowRight")
    heard(point(right))
    assert body.get_attribute("data-selected") == str(int(ids[right]))
    press("PageDown")  # off the walk: the map says to press Enter first
    heard(render("Press Enter first: it draws the lines from {token} to its true 10 nearest.",
                 {"token": tokens[right]}, lang))
    assert exceptions(page) == []
