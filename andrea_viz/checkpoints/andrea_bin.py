"""ANDREA's own checkpoint: ``int32 step, int32 n_params``, then n_params float32 weights, then
(optionally) Adam m and v of the same size. Only the embedding slices are read, through np.memmap.

Inside the weights block the order is microGPT's: wte (V, d), wpe (T, d), lm_head (V, d), then the
blocks. V, d, T, L come from a sidecar JSON config when there is one; otherwise they are solved from
n_params with the family layout ``2·V·d + T·d + 12·L·d²`` and T = 1,024, and the assumption is stated.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from .tables import Found

HEADER = 8
FAMILY = {384: 6, 768: 12, 1536: 16}  # d_model -> layers in the ANDREA family
FAMILY_T = 1024
CONFIG_NAMES = {"V": ("V", "vocab_size", "n_vocab"), "d": ("d", "d_model", "n_embd", "hidden_size"),
                "T": ("T", "block_size", "context", "n_ctx", "max_seq_len"), "L": ("L", "n_layer", "layers", "n_layers")}


def looks_like(head: bytes, size: int) -> bool:
    if len(head) < 8:
        return False
    step, n = np.frombuffer(head[:8], "<i4")
    return step >= 0 and n > 0 and size in (HEADER + 12 * int(n), HEADER + 4 * int(n))


def _segments_power_of_two(V: int) -> bool:
    s = V - 257  # V = 256 bytes + segments + 1 BOS, with 2,048 / 4,096 / 8,192 / 16,384 segments
    return s > 0 and s & (s - 1) == 0


def solve_sizes(n_params: int) -> tuple[tuple[int, int, int, int] | None, list[tuple[int, int, int, int]]]:
    """Solve 2·V·d + T·d + 12·L·d² = n_params over the family's widths.

    Returns (the choice, every candidate). A count can fit more than one width (ANDREA-120M's also fits
    d = 384, L = 6 with V = 114,178); the family's V is 256 + 2^k segments + 1, which decides.
    """
    fits = []
    for d, L in FAMILY.items():
        rest = n_params - FAMILY_T * d - 12 * L * d * d
        if rest > 0 and rest % (2 * d) == 0 and rest // (2 * d) >= 257:
            fits.append((rest // (2 * d), d, FAMILY_T, L))
    family = [f for f in fits if _segments_power_of_two(f[0])]
    if len(family) == 1:
        return family[0], fits
    if len(fits) == 1:
        return fits[0], fits
    return None, fits


def read_config(path: Path, found: Found) -> dict | None:
    for cand in (path.with_suffix(".json"), path.parent / "config.json"):
        if cand.is_file() and cand.stat().st_size < 1_000_000:
            try:
                raw = json.loads(cand.read_text())
            except (ValueError, UnicodeDecodeError) as exc:
                raise CheckpointError(f"the sidecar config {cand.name} is not valid JSON: {exc}") from exc
            if not isinstance(raw, dict):
                continue
            sizes = {}
            for key, names in CONFIG_NAMES.items():
                for nm in names:
                    if isinstance(raw.get(nm), int) and raw[nm] > 0:
                        sizes[key] = raw[nm]
                        break
            if len(sizes) == 4:
                found.notes.append(f"sizes from the sidecar config {cand.name}: V = {sizes['V']:,}, "
                                   f"d = {sizes['d']}, T = {sizes['T']}, L = {sizes['L']}")
                return sizes
    return None


def read(path: Path, found: Found) -> None:
    size = path.stat().st_size
    step, n = (int(x) for x in np.fromfile(path, "<i4", count=2))
    if n <= 0 or size not in (HEADER + 12 * n, HEADER + 4 * n):
        raise CheckpointError(
            f"{path.name}: an ANDREA .bin with n_params = {n:,} must be {HEADER + 12 * n:,} bytes (weights + Adam m "
            f"and v) or {HEADER + 4 * n:,} (weights only); it is {size:,}"
        )
    found.notes.append(f"training step {step:,}; {n:,} parameters"
                       + ("; the Adam m and v that follow are not read" if size == HEADER + 12 * n else ""))
    sizes = read_config(path, found)
    if sizes is None:
        solved, fits = solve_sizes(n)
        if solved is None:
            options = "; ".join(f"V = {f[0]:,}, d = {f[1]}, L = {f[3]}" for f in fits)
            raise CheckpointError(
                f"{path.name}: n_params = {n:,} does not fit the ANDREA layout 2·V·d + T·d + 12·L·d² with T = 1,024 "
                "and d = 384 (6 layers), 768 (12) or 1,536 (16)" + (f" in one way only (it fits {options})" if fits
                else "") + "; put a config JSON beside it with V, d_model, T, L"
            )
        V, d, T, L = solved
        found.assumptions.append(
            f"no config beside the file: V = {V:,}, d = {d}, T = {T:,}, L = {L} solved from n_params = {n:,} "
            "with the ANDREA layout 2·V·d + T·d + 12·L·d²"
        )
        others = [f for f in fits if f != solved]
        if others:
            found.assumptions.append(
                "the count also fits " + "; ".join(f"V = {f[0]:,}, d = {f[1]}, L = {f[3]}" for f in others)
                + f"; V = {V:,} was taken because it is 256 bytes + {V - 257:,} segments + BOS, as in the family")
    else:
        V, d, T, L = sizes["V"], sizes["d"], sizes["T"], sizes["L"]
        if 2 * V * d + T * d + 12 * L * d * d != n:
            raise CheckpointError(
                f"{path.name}: the config's sizes give 2·V·d + T·d + 12·L·d² = {2 * V * d + T * d + 12 * L * d * d:,} "
                f"parameters, but the file holds {n:,}"
            )
    found.assumptions.append("weights in microGPT's order: wte (V, d), wpe (T, d), lm_head (V, d), then the blocks")
    found.config.update({"layers": L})
    offsets = {"wte": (0, (V, d)), "wpe": (V * d, (T, d)), "lm_head": (V * d + T * d, (V, d))}
    for name, (start, shape) in offsets.items():
        found.add(name, shape, "float32",
                  lambda s=start, sh=shape: np.memmap(path, "<f4", "r", offset=HEADER + 4 * s, shape=sh))
