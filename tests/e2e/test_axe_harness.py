"""The accessibility check every page test leans on (conftest.axe_violations) finds what it must: on a page made
here, with no server, an image without a text, an unnamed button and grey-on-white text are found (critical,
critical, serious); a skipped heading level (moderate) and an allowed element are not."""

from __future__ import annotations

from .conftest import axe_violations

PAGE = """<!doctype html><html lang="en"><head><title>axe check</title></head><body><main>
<h1>Title</h1><h4>a skipped heading level: moderate, not counted</h4>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" id="no-alt">
<button id="no-name"></button>
<p id="pale" style="color:#eeeeee;background:#ffffff">pale text</p>
<div class="allowed"><button id="allowed-no-name"></button></div>
</main></body></html>"""


def test_axe_finds_the_serious_and_critical_and_leaves_the_rest(page):
    page.set_content(PAGE)
    found = axe_violations(page, [("button-name", ".allowed")])
    assert sorted((v["rule"], v["impact"], v["target"]) for v in found) == [
        ("button-name", "critical", "#no-name"), ("color-contrast", "serious", "#pale"),
        ("image-alt", "critical", "#no-alt")]
