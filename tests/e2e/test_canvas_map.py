"""The Projection page's canvas map in Chromium: a hovered point's tooltip says its token, a click draws lines to
exactly its true 10 nearest (a slow numpy reference here) without drawing the points again, and as one zooms in
the labels of a zoom level's groups give way to those of the next (``clusters.zoom_labels``)."""

import numpy as np

from andrea_viz.bench.map_view import drawn_ids
from andrea_viz.maps.clusters import cluster_ids, zoom_labels
from andrea_viz.maps.regions import ZOOM_LABELS
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
    r = project_model(micro, "pca", n=micro.token_table.shape[0], include=("cat",), seed=0)  # the map the address below asks for: all rows
    open_page(page, f"{app_url}/Projection?model=andrea-micro&method=pca&renderer=canvas&labels=1")
    page.locator(FRAME).wait_for(timeout=60_000)
    frame = page.frame_locator(FRAME)
    body = frame.locator("body[data-ready]")
    body.wait_for(state="attached", timeout=60_000)
    wait_idle(page)
    canvas = frame.locator("canvas#map")
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    # every point is drawn at the first view: each drawn id written to its own pixel of a 512 × 512 target, read back
    assert drawn_ids(page) == np.unique(r.sample.ids).size == micro.token_table.shape[0]
    rasters = int(body.get_attribute("data-rasters"))

    # the labels: every group of every zoom level once; on the whole map only the first level's (8 groups) are written
    found = cluster_ids(micro, r.sample.ids)
    zoom = zoom_labels(found, r.projection.coords)
    labels = frame.locator(".label")
    assert labels.count() == len(zoom) > ZOOM_LABELS[0]  # andrea-micro has about 20 clusters: levels 0 and 1 differ
    shown = frame.locator(".label:not([hidden])")
    assert 1 <= shown.count() <= ZOOM_LABELS[0]
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

    # zoom in 2 times (4 wheel steps, zoom level 1.04) over the largest label written on the whole map whose group
    # splits at level 1: nothing covers it there (every other label moves away from it), yet it gives way to its
    # parts' labels; a level-1 label is written, and only labels offered at level 1 are
    assert frame.locator(".label[data-level='1']:not([hidden])").count() == 0
    def written(z):
        return frame.locator(".label[data-level='0'][data-until='1']", has_text=z[2].label("en"))
    parent = next(z for z in zoom if z[3] == 0 and z[4] == 1 and written(z).is_visible())
    where = r.position_of(f"#{parent[2].medoid_ids[0]}")
    canvas.scroll_into_view_if_needed()  # the rerun after the click moved the page
    box = canvas.bounding_box()
    page.mouse.move(*_screen(box, r.projection.coords, where))
    for _ in range(4):
        page.mouse.wheel(0, -120)
    page.wait_for_function(f"""() => {{
        const doc = document.querySelector("{FRAME}").contentDocument;
        return Number(doc.body.dataset.zoom) >= 1 && doc.querySelector(".label[data-level='1']:not([hidden])") !== null;
    }}""", timeout=30_000)
    assert float(frame.locator("body").get_attribute("data-zoom")) < 2
    assert written(parent).is_hidden()
    visible = frame.locator(".label:not([hidden])")  # only labels offered at this zoom: reached and not yet split
    offered = [(visible.nth(j).get_attribute("data-level"), visible.nth(j).get_attribute("data-until"))
               for j in range(visible.count())]
    assert offered and all(int(lv) <= 1 and (u is None or int(u) > 1) for lv, u in offered), offered
    # drag the map so that a written label's group sits 5 px from the canvas's left edge: the label moves inward,
    # written whole, rather than cut in half by the edge
    label = visible.first
    text, at, edge = label.text_content(), label.bounding_box(), frame.locator("canvas#map").bounding_box()
    dx = at["x"] + at["width"] / 2 - (edge["x"] + 5)
    start = (edge["x"] + edge["width"] / 2, edge["y"] + edge["height"] / 2)
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(start[0] - dx, start[1], steps=8)
    page.mouse.up()
    moved = frame.locator(".label:not([hidden])", has_text=text)
    moved.wait_for(timeout=10_000)
    got = moved.bounding_box()
    assert got["x"] >= edge["x"] - 1 and got["x"] + got["width"] <= edge["x"] + edge["width"] + 1, (got, edge)
    assert got["x"] < at["x"]  # it did move with the map
    screenshot(page, "projection_canvas_zoom_level_1")
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
