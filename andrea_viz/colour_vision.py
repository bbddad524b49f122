"""How colours look to readers with colour-vision deficiency, how far apart two colours look, and text contrast.

- ``simulate(rgb, kind)``: Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of
  Color Vision Deficiency", at severity 1.0 (protanopia, deuteranopia, tritanopia), applied in linear RGB;
- ``delta_e2000(lab1, lab2)``: CIEDE2000 (Sharma, Wu & Dalal 2005, "The CIEDE2000 color-difference formula:
  implementation notes, supplementary test data, and mathematical observations");
- ``srgb_to_lab``: sRGB (D65) to CIELAB;
- ``contrast_ratio(fg, bg)``: WCAG 2.1's contrast ratio (1 to 21) from relative luminance;
- ``text_shade(colour)``: the colour darkened, hue kept, until text in it reads on white (4.5:1, WCAG's AA);
- ``closest_pairs(colours, ...)``: the smallest ΔE2000 between any two colours of a set, for each vision.

Colours are "#rrggbb" strings or (r, g, b) in 0..255. Numpy only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

# Machado et al. 2009, severity 1.0: linear RGB in, linear RGB out (the authors' published table)
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
VISIONS = ("normal", "deuteranopia", "protanopia")  # the visions every palette shown at once must keep apart
MIN_DELTA_E = 10.0  # ΔE2000 between any two colours shown at once, in each of VISIONS
MIN_TEXT_CONTRAST = 4.5  # WCAG 2.1 AA, normal text

_XYZ_OF_LINEAR = np.array([[0.4124564, 0.3575761, 0.1804375],
                           [0.2126729, 0.7151522, 0.0721750],
                           [0.0193339, 0.1191920, 0.9503041]])
_WHITE_D65 = np.array([0.95047, 1.0, 1.08883])


def rgb(colour) -> np.ndarray:
    """A colour as float (r, g, b) in 0..1: from "#rrggbb", "#rgb" or 0..255 integers."""
    if isinstance(colour, str):
        h = colour.strip().lstrip("#")
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        if len(h) != 6 or any(c not in "0123456789abcdefABCDEF" for c in h):
            raise ValueError(f"expected a colour as #rrggbb, got {colour!r}")
        return np.array([int(h[k:k + 2], 16) for k in (0, 2, 4)], np.float64) / 255.0
    c = np.asarray(colour, np.float64)
    if c.shape != (3,):
        raise ValueError(f"expected a colour as (r, g, b), got {colour!r}")
    return c / 255.0


def to_linear(srgb: np.ndarray) -> np.ndarray:
    """sRGB's transfer function undone (IEC 61966-2-1), values in 0..1."""
    s = np.asarray(srgb, np.float64)
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


def to_srgb(linear: np.ndarray) -> np.ndarray:
    c = np.clip(np.asarray(linear, np.float64), 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)


def simulate(colour, kind: str) -> np.ndarray:
    """The sRGB (0..1) that a reader with ``kind`` ("normal" or a key of ``MACHADO``) sees for ``colour``:
    Machado's matrix applied in linear RGB, clipped to the gamut."""
    c = rgb(colour)
    if kind == "normal":
        return c
    return to_srgb(MACHADO[kind] @ to_linear(c))


def srgb_to_lab(srgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of an sRGB colour in 0..1."""
    xyz = _XYZ_OF_LINEAR @ to_linear(srgb) / _WHITE_D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def delta_e2000(lab1: Sequence[float], lab2: Sequence[float], kl: float = 1.0, kc: float = 1.0,
                kh: float = 1.0) -> float:
    """CIEDE2000 colour difference between two CIELAB colours (Sharma et al. 2005's equations)."""
    L1, a1, b1 = map(float, lab1)
    L2, a2, b2 = map(float, lab2)
    c_bar = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_bar ** 7 / (c_bar ** 7 + 25.0 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = 0.0 if c1p == 0 else np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = 0.0 if c2p == 0 else np.degrees(np.arctan2(b2, a2p)) % 360
    dlp, dcp = L2 - L1, c2p - c1p
    if c1p * c2p == 0:
        dhp = 0.0
    elif abs(h2p - h1p) <= 180:
        dhp = h2p - h1p
    elif h2p - h1p > 180:
        dhp = h2p - h1p - 360
    else:
        dhp = h2p - h1p + 360
    dHp = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dhp / 2))
    lp_bar, cp_bar = (L1 + L2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_bar = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hp_bar = (h1p + h2p + 360) / 2
    else:
        hp_bar = (h1p + h2p - 360) / 2
    t = (1 - 0.17 * np.cos(np.radians(hp_bar - 30)) + 0.24 * np.cos(np.radians(2 * hp_bar))
         + 0.32 * np.cos(np.radians(3 * hp_bar + 6)) - 0.20 * np.cos(np.radians(4 * hp_bar - 63)))
    d_theta = 30 * np.exp(-(((hp_bar - 275) / 25) ** 2))
    rc = 2 * np.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25.0 ** 7))
    sl = 1 + 0.015 * (lp_bar - 50) ** 2 / np.sqrt(20 + (lp_bar - 50) ** 2)
    sc = 1 + 0.045 * cp_bar
    sh = 1 + 0.015 * cp_bar * t
    rt = -np.sin(np.radians(2 * d_theta)) * rc
    dl, dc, dh = dlp / (kl * sl), dcp / (kc * sc), dHp / (kh * sh)
    return float(np.sqrt(dl ** 2 + dc ** 2 + dh ** 2 + rt * dc * dh))


def seen_difference(c1, c2, kind: str = "normal") -> float:
    """ΔE2000 between two colours as a reader with ``kind`` sees them."""
    return delta_e2000(srgb_to_lab(simulate(c1, kind)), srgb_to_lab(simulate(c2, kind)))


def closest_pairs(colours: Iterable, visions: Sequence[str] = VISIONS) -> dict[str, tuple[float, int, int]]:
    """For each vision: (the smallest ΔE2000 between two of ``colours``, the indices of that pair)."""
    cs = list(colours)
    out = {}
    for kind in visions:
        labs = [srgb_to_lab(simulate(c, kind)) for c in cs]
        worst = (float("inf"), -1, -1)
        for i in range(len(cs)):
            for j in range(i + 1, len(cs)):
                d = delta_e2000(labs[i], labs[j])
                if d < worst[0]:
                    worst = (d, i, j)
        out[kind] = worst
    return out


def relative_luminance(colour) -> float:
    """WCAG 2.1's relative luminance (0 black … 1 white)."""
    r, g, b = (np.where((c := rgb(colour)) <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4))
    return float(0.2126 * r + 0.7152 * g + 0.0722 * b)


def contrast_ratio(fg, bg="#ffffff") -> float:
    """WCAG 2.1's contrast ratio of two colours, (L_light + 0.05) / (L_dark + 0.05): 1 to 21."""
    lo, hi = sorted((relative_luminance(fg), relative_luminance(bg)))
    return (hi + 0.05) / (lo + 0.05)


def text_shade(colour, ratio: float = MIN_TEXT_CONTRAST) -> str:
    """``colour`` as "#rrggbb", scaled towards black (its hue kept) by the least step of 1/64 that gives text in it
    at least ``ratio`` to 1 on white: a group's colour for its words (the orange #e69f00 reads at 2.0:1)."""
    c = rgb(colour)
    for k in range(65):
        shade = np.round(c * (1 - k / 64) * 255).astype(int)
        if contrast_ratio(tuple(shade)) >= ratio:
            return "#" + "".join(f"{v:02x}" for v in shade)
    raise AssertionError("unreachable: black reads at 21:1")
