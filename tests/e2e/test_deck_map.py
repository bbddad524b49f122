"""The Projection page's deck.gl map in Chromium: a hovered point says its token, a clicked one gets its lines."""

import numpy as np

from andrea_viz.projection import project_model

from .conftest import exceptions, hovered_text, map_point, open_page, screenshot, wait_idle


def _screen(box: dict, coords: np.ndarray, k: int) -> tuple[float, float]:
    """Where point k of the map sits on the page: the deck's first view is centred on the map's box at zoom
    log2(600 / its larger side) (plots.deck_map)."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    return map_point(box, coords, k, 600 / float(max(hi - lo)))


def test_deck_map_hover_says_the_token_and_a_click_draws_its_true_nearest(page, app_url, load_model):
    micro = load_model("andrea-micro")
    r = project_model(micro, "pca", n=555, include=("cat",), seed=0)  # the page's default map of andrea-micro
    open_page(page, f"{app_url}/Projection?model=andrea-micro&renderer=deck")
    canvas = page.locator("[data-testid='stDeckGlJsonChart'] canvas").first
    canvas.wait_for(timeout=60_000)
    wait_idle(page)
    canvas.scroll_into_view_if_needed()
    dog = r.position_of("dog")
    canvas_box = canvas.bounding_box()  # in the viewport, now that it is scrolled into it
    at = _screen(canvas_box, r.projection.coords, dog)
    assert hovered_text(page, at, page.locator(".deck-tooltip", has_text="dog #")).startswith(f"dog #{int(r.sample.ids[dog])}")
    page.mouse.click(*at)
    field = page.locator("[data-testid='stTextInput'] input").nth(1)  # "Draw lines to the true 10 nearest of"
    page.wait_for_function("() => [...document.querySelectorAll('[data-testid=stTextInput] input')]"
                           ".some(i => i.value === 'dog')", timeout=60_000)
    wait_idle(page)
    assert field.input_value() == "dog" or page.locator("[data-testid='stTextInput'] input[value='dog']").count() == 1
    assert exceptions(page) == []
    screenshot(page, "projection_deck_dog")
