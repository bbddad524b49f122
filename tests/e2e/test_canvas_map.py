"""The Projection page's canvas map in Chromium: a hovered point's tooltip says its token, a click draws lines to
exactly its true 10 nearest (a slow numpy reference here) without drawing the points again, and the labels of
smaller clusters appear as one zooms in."""

import numpy as np

from andrea_viz.maps.clusters import cluster_ids, map_labels
from andrea_viz.plots.canvas_map import LEVEL_SIZES, label_level
from andrea_viz.maps.project import project_model

from .conftest import exceptions, hovered_text, map_point, open_page, screenshot, wait_idle

FRAME = "iframe[title='andrea_viz.ui.map_view.canvas_map']"
FIT = 0.92  # the frame's first view: the map's box in 92 % of the canvas, centred (map_frame/map.js fitView)


def _screen(box: dict, coords: np.ndarray, k: int) -> tuple[float, float]:
    """Where point k sits on the page in the frame's first view."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    return map_point(box, coords, k, FIT * min(box["width"] / float(hi[0] - lo[0]), box["height"] / float(hi[1] - lo[1])))


def _true_nearest_ids(table: np.ndarray, ids: np.ndarray, k: int, n: int = 10) -> list[int]:
    """The slow reference: every cosine against point k, itself left out, the n largest, ties to the lower id."""
    X = table[ids].astype(np.float64)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    cos = [float(X[j] @ X[k]) if j != k else -np.inf for j in range(len(ids))]
    order = sorted(range(len(ids)), key=lambda j: (-cos[j], j))[:n]
    return sorted(int(ids[j]) for j in order)


def test_canvas_map_hover_click_and_labels_by_zoom(page, app_url, load_model):
    micro = load_model("andrea-micro")
    r = project_model(micro, "pca", n=micro.token_table.shape[0], include=("cat",), seed=0)  # the page's default map: all rows
    open_page(page, f"{app_url}/Projection?model=andrea-micro&renderer=canvas&labels=1")
    page.locator(FRAME).wait_for(timeout=60_000)
    frame = page.frame_locator(FRAME)
    body = frame.locator("body[data-ready]")
    body.wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    canvas = frame.locator("canvas#map")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    rasters = int(body.get_attribute("data-rasters"))

    # the labels: on the whole map only level-0 ones (the 8 largest clusters) are written
    labels = frame.locator(".label")
    assert labels.count() > 8  # andrea-micro has about 20 clusters: levels 0 and 1
    shown = frame.locator(".label:not([hidden])")
    assert shown.count() >= 1
    assert {shown.nth(j).get_attribute("data-level") for j in range(shown.count())} == {"0"}

    # hover: the tooltip holds dog's token and id
    dog = r.position_of("dog")
    at = _screen(box, r.projection.coords, dog)
    assert hovered_text(page, at, frame.locator("#tip", has_text="dog #")).startswith(f"dog #{int(r.sample.ids[dog])}\n")

    # click: lines to exactly the true 10 nearest, the point raster kept
    page.mouse.click(*at)
    frame.locator(f"body[data-lines-from='{int(r.sample.ids[dog])}']").wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    drawn = sorted(int(i) for i in body.get_attribute("data-lines").split(","))
    assert drawn == _true_nearest_ids(micro.token_table, r.sample.ids, dog)
    assert int(body.get_attribute("data-rasters")) == rasters  # the lines came without drawing the points again
    screenshot(page, "projection_canvas_dog")

    # zoom in about 4 times with the wheel over the 9th largest cluster's label (level 1): it appears
    found = cluster_ids(micro, r.sample.ids)
    x, y, ninth = map_labels(found, r.projection.coords, top=LEVEL_SIZES[0] + 1)[-1]
    assert label_level(LEVEL_SIZES[0]) == 1
    near = frame.locator(".label[data-level='1']", has_text=ninth.label("en"))
    assert near.count() == 1 and near.is_hidden()
    where = r.position_of(f"#{ninth.medoid_ids[0]}")
    canvas.scroll_into_view_if_needed()  # the rerun after the click moved the page
    box = canvas.bounding_box()
    page.mouse.move(*_screen(box, r.projection.coords, where))
    for _ in range(8):
        page.mouse.wheel(0, -120)
    page.wait_for_function(f"""() => {{
        const doc = document.querySelector("{FRAME}").contentDocument;
        return Number(doc.body.dataset.zoom) >= 1 && doc.querySelector(".label[data-level='1']:not([hidden])") !== null;
    }}""", timeout=30_000)
    assert near.is_visible()
    assert exceptions(page) == []


def test_a_click_on_the_whole_minilm_map_sends_its_lines_and_not_the_map_again(page, app_url):
    """The map's message (0.8 MB at 30,522 points) comes once; a click's rerun brings only the lines (the map goes
    as a reference to the message the browser holds), so a click does not grow with the table."""
    frames: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda p: frames.append(len(p))))
    open_page(page, f"{app_url}/Projection?method=pca&n=all&renderer=canvas")
    frame = page.frame_locator(FRAME)
    frame.locator("body[data-ready]").wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    assert max(frames) > 500_000  # the whole table's points came
    canvas = frame.locator("canvas#map")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*centre)
    body = frame.locator("body[data-hovered]")
    body.wait_for(state="attached", timeout=10_000)
    hovered = body.get_attribute("data-hovered")
    frames.clear()
    page.mouse.click(*centre)
    frame.locator(f"body[data-lines-from='{hovered}']").wait_for(state="attached", timeout=60_000)
    assert len(frame.locator("body").get_attribute("data-lines").split(",")) == 10
    wait_idle(page)
    assert frames and max(frames) < 50_000, sorted(frames)[-3:]
