"""Colour-vision simulation, CIEDE2000 and WCAG contrast against published values; then every set of colours the
app draws at once kept apart for normal vision, deuteranopia and protanopia, and the text colours we set readable."""

import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from andrea_viz import colour_vision as cv
from andrea_viz.plots import style

ROOT = Path(__file__).resolve().parents[2]

# Sharma, Wu & Dalal (2005), Table 1: (L*, a*, b*) of each pair and its ΔE00 (pairs 1-4, 7, 12, 13, 15, 17-20,
# 22, 24-30: the hue wrap-arounds, the zero-chroma cases and the large differences)
SHARMA = [
    ((50.0000, 2.6772, -79.7751), (50.0000, 0.0000, -82.7485), 2.0425),
    ((50.0000, 3.1571, -77.2803), (50.0000, 0.0000, -82.7485), 2.8615),
    ((50.0000, 2.8361, -74.0200), (50.0000, 0.0000, -82.7485), 3.4412),
    ((50.0000, -1.3802, -84.2814), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, 0.0000, 0.0000), (50.0000, -1.0000, 2.0000), 2.3669),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0009, -2.4900), 4.8045),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0009), 7.1792),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0011), 7.2195),
    ((50.0000, 2.5000, 0.0000), (73.0000, 25.0000, -18.0000), 27.1492),
    ((50.0000, 2.5000, 0.0000), (61.0000, -5.0000, 29.0000), 22.8977),
    ((50.0000, 2.5000, 0.0000), (56.0000, -27.0000, -3.0000), 31.9030),
    ((50.0000, 2.5000, 0.0000), (58.0000, 24.0000, 15.0000), 19.4535),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.1736, 0.5854), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
    ((61.2901, 3.7196, -5.3901), (61.4292, 2.2480, -4.9620), 1.8731),
    ((35.0831, -44.1164, 3.7933), (35.0232, -40.0716, 1.5901), 1.8645),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((36.4612, 47.8580, 18.3852), (36.2715, 50.5065, 21.2231), 1.4146),
]


@pytest.mark.parametrize("lab1,lab2,expected", SHARMA)
def test_ciede2000_matches_sharma_2005(lab1, lab2, expected):
    assert cv.delta_e2000(lab1, lab2) == pytest.approx(expected, abs=5e-5)
    assert cv.delta_e2000(lab2, lab1) == pytest.approx(expected, abs=5e-5)  # symmetric


def test_machado_matrices_are_the_published_ones():
    # Machado, Oliveira & Fernandes (2009), severity 1.0: the first row of deuteranopia and of protanopia
    np.testing.assert_array_equal(cv.MACHADO["deuteranopia"][0], [0.367322, 0.860646, -0.227968])
    np.testing.assert_array_equal(cv.MACHADO["protanopia"][0], [0.152286, 1.052583, -0.204868])
    for m in cv.MACHADO.values():  # each row sums to 1: white, black and every grey are seen unchanged
        np.testing.assert_allclose(m.sum(axis=1), 1.0, atol=2e-6)
    for kind in ("deuteranopia", "protanopia"):
        np.testing.assert_allclose(cv.simulate("#808080", kind), cv.rgb("#808080"), atol=1e-5)


def test_red_and_green_merge_under_deuteranopia_and_protanopia_only():
    # tab10's red and green, 72 apart for normal vision, are barely told apart by a deuteranope
    assert cv.seen_difference("#d62728", "#2ca02c") > 70
    assert cv.seen_difference("#d62728", "#2ca02c", "deuteranopia") < 5
    # tab10's orange and green merge for a protanope; blue and yellow stay apart for all three
    assert cv.seen_difference("#ff7f0e", "#2ca02c", "protanopia") < 2
    assert min(cv.seen_difference("#0000ff", "#ffff00", k) for k in cv.VISIONS) > 50
    # the simulation works in linear RGB: pure red seen by a protanope is dark (Machado's first row times (1,0,0)
    # is 0.152 linear, 0.43 after sRGB's curve)
    np.testing.assert_allclose(cv.simulate("#ff0000", "protanopia")[0], 1.055 * 0.152286 ** (1 / 2.4) - 0.055,
                               atol=1e-9)


def test_lab_of_known_colours():
    np.testing.assert_allclose(cv.srgb_to_lab(cv.rgb("#ffffff")), [100, 0, 0], atol=1e-3)
    np.testing.assert_allclose(cv.srgb_to_lab(cv.rgb("#ff0000")), [53.2408, 80.0925, 67.2032], atol=1e-3)


def test_wcag_contrast_ratio():
    assert cv.contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert cv.contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    # WebAIM's checker: #767676 on white is the lightest grey that passes AA (4.54), #777777 fails (4.48)
    assert cv.contrast_ratio("#767676") == pytest.approx(4.54, abs=0.005)
    assert cv.contrast_ratio("#777777") == pytest.approx(4.48, abs=0.005)
    assert cv.contrast_ratio("#ffffff", "#777777") == cv.contrast_ratio("#777777", "#ffffff")


def test_bad_colour_is_refused_with_a_sentence():
    with pytest.raises(ValueError, match="expected a colour as #rrggbb, got 'red'"):
        cv.rgb("red")


# every set of colours the app draws at once (beside the white ground)
MAP_GROUND = ("#ffffff", style.OTHER_GREY, style.RED)  # a map: white, the grey of no group, the query's red
SHOWN_TOGETHER = {
    "the maps and class charts' groups": (*MAP_GROUND, *style.PALETTE),
    "the named colours (similarity, positions, sizing, lookup, compare, anatomy, live sum)": ("#ffffff", *style.NAMED),
}


@pytest.mark.parametrize("name", list(SHOWN_TOGETHER))
def test_colours_shown_at_once_stay_apart_for_every_vision(name):
    worst = cv.closest_pairs(SHOWN_TOGETHER[name])
    colours = SHOWN_TOGETHER[name]
    for kind, (d, i, j) in worst.items():
        assert d >= cv.MIN_DELTA_E, f"{name}: {colours[i]} and {colours[j]} are ΔE2000 {d:.1f} apart ({kind})"


def test_the_palette_holds_13_colours_and_the_query_red_is_the_theme_red():
    assert len(style.PALETTE) == 13 == len(set(style.PALETTE))
    assert style.QUERY_RGB == tuple(int(style.RED[k:k + 2], 16) for k in (1, 3, 5))


def test_the_maps_draw_in_the_palette():
    from andrea_viz.plots import canvas_map, deck_map

    assert canvas_map.OTHER == tuple(style.hex_rgb(style.OTHER_GREY))
    assert deck_map.GREY[:3] == style.hex_rgb(style.OTHER_GREY)


def _css_text_colours() -> list[tuple[str, str]]:
    """(where, colour) of each CSS ``color:`` we write (not background-color or accent-color)."""
    found = []
    for p in [*(ROOT / "andrea_viz").rglob("*.css"), *(ROOT / "andrea_viz").rglob("*.py"), *(ROOT / "pages").glob("*.py")]:
        for m in re.finditer(r"(?<![-\w])color:\s*(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})\b", p.read_text()):
            found.append((p.relative_to(ROOT).as_posix(), m.group(1)))
    return found


def _faded(colour: str, opacity: float) -> str:
    """``colour`` drawn at ``opacity`` over white (how Streamlit draws a caption: its container at 0.6)."""
    c = cv.rgb(colour) * 255 * opacity + 255 * (1 - opacity)
    return "#" + "".join(f"{round(v):02x}" for v in c)


def test_faded_is_blended_over_white():
    assert _faded("#000000", 0.6) == "#666666" and _faded("#0e1117", 1.0) == "#0e1117"


def test_text_colours_we_set_reach_4_5_to_1_on_white():
    theme = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["theme"]
    colours = [("theme primaryColor (links, buttons: white text on it)", theme["primaryColor"]),
               ("theme textColor in a caption (60 % opacity)", _faded(theme["textColor"], 0.6)),
               ("theme codeTextColor in a caption (60 % opacity)", _faded(theme["codeTextColor"], 0.6)),
               ("chart text", style.TEXT), *_css_text_colours()]
    assert len(colours) >= 6  # the map frame's and the live sum's CSS were found
    low = [(where, c, round(cv.contrast_ratio(c), 2)) for where, c in colours if cv.contrast_ratio(c) < cv.MIN_TEXT_CONTRAST]
    assert low == []


@pytest.mark.parametrize("colour", style.PALETTE + style.NAMED)
def test_a_text_shade_keeps_the_hue_reads_on_white_and_is_the_lightest_that_does(colour):
    shade = cv.text_shade(colour)
    c, s = cv.rgb(colour), cv.rgb(shade)
    assert cv.contrast_ratio(shade) >= cv.MIN_TEXT_CONTRAST
    step = round((1 - np.max(s) / np.max(c)) * 64)  # steps of 1/64 towards black
    assert np.allclose(s, c * (1 - step / 64), atol=0.5 / 255)  # one factor for all three channels: the hue kept
    if step:  # one step lighter would not read
        lighter = np.round(c * (1 - (step - 1) / 64) * 255).astype(int)
        assert cv.contrast_ratio(tuple(lighter)) < cv.MIN_TEXT_CONTRAST
    assert cv.text_shade("#e69f00") == "#9e6d00"  # the arrows' orange: 2.25 to 1, its words' shade 4.52 to 1


def test_the_map_frame_shows_where_the_focus_is():
    """Focus visible (WCAG 2.4.7): the frame's focusable elements get an outline of 3:1 or more on its white ground."""
    css = re.sub(r"/\*.*?\*/", "", (ROOT / "andrea_viz" / "ui" / "map_frame" / "map.css").read_text(), flags=re.S)
    rule = re.search(r"([^{}]*:focus-visible[^{}]*)\{([^}]*)\}", css)
    assert rule is not None
    selectors, body = rule.group(1), rule.group(2)
    assert {"canvas:focus-visible", "button:focus-visible"} <= {s.strip() for s in selectors.split(",")}
    outline = re.search(r"outline:\s*(\d+)px\s+solid\s+(#[0-9a-fA-F]{6})", body)
    assert outline is not None and int(outline.group(1)) >= 2
    assert cv.contrast_ratio(outline.group(2)) >= 3.0


def test_past_the_palette_a_class_is_told_apart_by_shape_and_by_its_name_where_its_points_are():
    """18 classes (a grown model's) on the class map: the 14th to 18th share the first five colours, so they and
    the first five are drawn in another shape and their names are written at their points' centre, in every frame."""
    from andrea_viz.plots import timeline

    names = [f"class{j:02d}" for j in range(18)]
    groups = [g for g in names for _ in range(2)]
    rng = np.random.default_rng(0)
    coords = rng.standard_normal((2, len(groups), 2))
    fig = timeline.class_map(coords, [0, 600], [f"w{i}" for i in range(len(groups))], groups, np.array([0.5, 0.25]), 600)
    points = [t for t in fig.data if t.mode == "markers"]
    styles = [(t.marker.color, t.marker.symbol) for t in points]
    assert len(points) == 18 and len(set(styles)) == 18  # no two classes drawn alike
    assert [s for s, _ in styles[13:]] == list(style.PALETTE[:5]) and {m for _, m in styles[13:]} == {"square"}
    for frame, k in [(fig.data, 1), *((f.data, i) for i, f in enumerate(fig.frames))]:
        said = {t.text[0]: (t.x[0], t.y[0]) for t in frame if t.mode == "text"}
        shared = [names[j] for j in (0, 1, 2, 3, 4, 13, 14, 15, 16, 17)]
        assert sorted(said) == sorted(f"<b>{g}</b>" for g in shared)
        for g in shared:
            at = coords[k, [i for i, h in enumerate(groups) if h == g]].mean(axis=0)
            assert np.allclose(said[f"<b>{g}</b>"], at)
    few = timeline.class_map(coords[:, :26], [0, 600], [f"w{i}" for i in range(26)], groups[:26], np.array([0.5, 0.25]),
                             600)
    assert not [t for t in few.data if t.mode == "text"]  # 13 classes: every colour its own, no name needed


def test_a_map_never_has_more_word_groups_than_the_palette_has_colours():
    """A map's coloured groups are the word groups, the included words and the query's neighbours (the query and the
    points of no group have colours of their own): fewer than the palette's 13, so no two share a colour."""
    from andrea_viz import lexicon
    from andrea_viz.maps.sample import word_groups

    assert max(len(word_groups(lang)) for lang in lexicon.LANGUAGES) + 2 <= len(style.PALETTE)
