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
from ..family import BYTE_TOKENS, CONTEXT, LAYERS_OF_WIDTH, count_params, init_std, segment_count, vocab_size
from ..i18n import Msg
from .tables import Found

HEADER = 8  # int32 step, int32 n_params
CONFIG_NAMES = {"V": ("V", "vocab_size", "n_vocab"), "d": ("d", "d_model", "n_embd", "hidden_size"),
                "T": ("T", "block_size", "context", "n_ctx", "max_seq_len"), "L": ("L", "n_layer", "layers", "n_layers")}
CONFIG_MAX_BYTES = 1_000_000


def header(head: bytes) -> tuple[int, int] | None:
    if len(head) < HEADER:
        return None
    step, n = (int(x) for x in np.frombuffer(head[:HEADER], "<i4"))
    return step, n


def file_sizes(n: int) -> tuple[int, int]:
    """The two sizes an ANDREA .bin with n parameters can have: with Adam m and v, and weights only."""
    return HEADER + 12 * n, HEADER + 4 * n


def looks_like(head: bytes, size: int) -> bool:
    """The exact size rule: 8 + 12·n (with Adam state) or 8 + 4·n (weights only)."""
    h = header(head)
    return h is not None and h[0] >= 0 and h[1] > 0 and size in file_sizes(h[1])


def looks_damaged(head: bytes, size: int) -> bool:
    """An ANDREA header whose file is cut short or padded (a broken download): worth the size message."""
    h = header(head)
    if h is None or h[0] < 0 or h[1] <= 0 or (size - HEADER) % 4:
        return False
    return 2 * h[1] <= size - HEADER <= 24 * h[1]


def _segments_power_of_two(V: int) -> bool:
    s = segment_count(V)  # the family's V is 256 bytes + 2,048 / 4,096 / 8,192 / 16,384 segments + 1 BOS
    return s > 0 and s & (s - 1) == 0


def solve_sizes(n_params: int) -> tuple[tuple[int, int, int, int] | None, list[tuple[int, int, int, int]]]:
    """Solve 2·V·d + T·d + 12·L·d² = n_params over the family's widths.

    Returns (the choice, every candidate). A count can fit more than one width (ANDREA-120M's also fits
    d = 384, L = 6 with V = 114,178); the family's V is 256 + 2^k segments + 1, which decides.
    """
    fits = []
    for d, L in LAYERS_OF_WIDTH.items():
        rest = n_params - count_params(0, d, CONTEXT, L).total
        if rest > 0 and rest % (2 * d) == 0 and rest // (2 * d) >= vocab_size(0):
            fits.append((rest // (2 * d), d, CONTEXT, L))
    family = [f for f in fits if _segments_power_of_two(f[0])]
    if len(family) == 1:
        return family[0], fits
    if len(fits) == 1:
        return fits[0], fits
    return None, fits


def read_sizes(path: Path, found: Found) -> dict | None:
    """V, d, T, L from ``<stem>.json`` or ``config.json`` beside the file, when one holds all four."""
    for cand in (path.with_suffix(".json"), path.parent / "config.json"):
        if cand.is_file() and cand.stat().st_size < CONFIG_MAX_BYTES:
            try:
                raw = json.loads(cand.read_text())
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                raise CheckpointError("the sidecar config {name} is not valid JSON: {detail}", name=cand.name,
                                      detail=str(exc)) from exc
            if not isinstance(raw, dict):
                continue
            sizes = {}
            for key, names in CONFIG_NAMES.items():
                for nm in names:
                    if isinstance(raw.get(nm), int) and not isinstance(raw[nm], bool) and raw[nm] > 0:
                        sizes[key] = raw[nm]
                        break
            if len(sizes) == 4:
                found.notes.append(Msg("sizes from the sidecar config {name}: V = {V:,}, d = {d}, T = {T:,}, L = {L}",
                                       name=cand.name, **sizes))
                if isinstance(raw.get("n_head"), int) or isinstance(raw.get("heads"), int):
                    found.config["heads"] = raw.get("n_head", raw.get("heads"))
                sizes["tied"] = raw.get("tied") is True  # grown with grow --tied: lm_head is a copy of wte
                return sizes
    return None


def _fits_text(fits: list[tuple[int, int, int, int]]) -> str:
    return "; ".join(f"V = {f[0]:,}, d = {f[1]}, L = {f[3]}" for f in fits)


def _sizes(path: Path, n: int, found: Found) -> tuple[int, int, int, int, bool]:
    """V, d, T, L, and whether the config says the head is tied (a copy of the token table in the file)."""
    sizes = read_sizes(path, found)
    if sizes is not None:
        V, d, T, L = sizes["V"], sizes["d"], sizes["T"], sizes["L"]
        want = count_params(V, d, T, L).total
        if want != n:
            raise CheckpointError("{name}: the config's sizes give 2·V·d + T·d + 12·L·d² = {want:,} parameters, but the "
                                  "file holds {n:,}", name=path.name, want=want, n=n)
        return V, d, T, L, sizes["tied"]
    solved, fits = solve_sizes(n)
    if solved is None:
        widths = ", ".join(f"{d} ({L} layers)" for d, L in LAYERS_OF_WIDTH.items())
        if fits:
            raise CheckpointError("{name}: n_params = {n:,} fits the ANDREA layout 2·V·d + T·d + 12·L·d² with T = {T:,} "
                                  "in more than one way ({fits}); put a config JSON beside it with V, d_model, T, L",
                                  name=path.name, n=n, T=CONTEXT, fits=_fits_text(fits))
        raise CheckpointError("{name}: n_params = {n:,} does not fit the ANDREA layout 2·V·d + T·d + 12·L·d² with T = "
                              "{T:,} and d = {widths}; put a config JSON beside it with V, d_model, T, L",
                              name=path.name, n=n, T=CONTEXT, widths=widths)
    V, d, T, L = solved
    found.assumptions.append(Msg("no config beside the file: V = {V:,}, d = {d}, T = {T:,}, L = {L} solved from n_params "
                                 "= {n:,} with the ANDREA layout 2·V·d + T·d + 12·L·d²", V=V, d=d, T=T, L=L, n=n))
    others = [f for f in fits if f != solved]
    if others:
        found.assumptions.append(Msg("the count also fits {fits}; V = {V:,} was taken because it is {bytes} bytes + "
                                     "{segments:,} segments + BOS, as in the family", fits=_fits_text(others), V=V,
                                     bytes=BYTE_TOKENS, segments=segment_count(V)))
    return V, d, T, L, False


def read(path: Path, found: Found) -> None:
    size = path.stat().st_size
    with open(path, "rb") as f:
        step, n = header(f.read(HEADER)) or (0, 0)
    with_adam, weights_only = file_sizes(n)
    if n <= 0 or size not in (with_adam, weights_only):
        raise CheckpointError("{name}: an ANDREA .bin with n_params = {n:,} must be {a:,} bytes (weights + Adam m and v) "
                              "or {b:,} (weights only); it is {size:,}", name=path.name, n=n, a=with_adam,
                              b=weights_only, size=size)
    found.step = step
    found.notes.append(Msg("training step {step:,}; {n:,} parameters; the Adam m and v that follow are not read", step=step,
                           n=n) if size == with_adam else Msg("training step {step:,}; {n:,} parameters", step=step, n=n))
    V, d, T, L, tied = _sizes(path, n, found)
    found.assumptions.append(Msg("weights in microGPT's order: wte (V, d), wpe (T, d), lm_head (V, d), then the blocks"))
    if tied:
        found.notes.append(Msg("the config says tied: the file's lm_head is a copy of wte, one table of {n:,} parameters "
                               "counted once", n=V * d))
    found.config.update({"layers": L, "family": "ANDREA", "init_std": init_std(d),
                         "total_params": n - V * d if tied else n})
    offsets = {"wte": (0, (V, d)), "wpe": (V * d, (T, d)), "lm_head": (V * d + T * d, (V, d))}
    for name, (start, shape) in offsets.items():
        found.add(name, shape, "float32",
                  lambda s=start, sh=shape: np.memmap(path, "<f4", "r", offset=HEADER + 4 * s, shape=sh))
