"""A map's points as files: the TensorFlow Embedding Projector's two TSVs, and a CSV of the coordinates."""

from __future__ import annotations

import io

import numpy as np


def projector_tsv(vectors: np.ndarray, tokens: list[str], ids: np.ndarray, groups: tuple[str, ...]) -> tuple[str, str]:
    """The TensorFlow Embedding Projector's two files: vectors.tsv (no header, one row per
    vector) and metadata.tsv (a header, then token, id, group)."""
    buf = io.StringIO()
    np.savetxt(buf, vectors, delimiter="\t", fmt="%.6g")
    return buf.getvalue(), projector_metadata(tokens, ids, groups)


def projector_metadata(tokens: list[str], ids: np.ndarray, groups: tuple[str, ...]) -> str:
    """metadata.tsv: a header, then token, id, group (tabs and newlines in tokens become spaces)."""

    def clean(s: str) -> str:
        return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")

    return "token\tid\tgroup\n" + "".join(f"{clean(t)}\t{i}\t{g}\n" for t, i, g in zip(tokens, ids, groups, strict=True))


def coordinates_csv(coords: np.ndarray, tokens: list[str], ids: np.ndarray, groups: tuple[str, ...],
                    sep: str = ",", trust: np.ndarray | None = None, columns: dict[str, list] | None = None) -> str:
    """id, token, group, the coordinates, (when given) each point's trust: the share of its 10 nearest
    neighbours kept in the map, empty where it was not scored, then any further ``columns`` (name → one
    value per point)."""
    import csv

    more = columns or {}
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=sep, lineterminator="\n")
    w.writerow(["id", "token", "group", *[f"x{j + 1}" for j in range(coords.shape[1])],
                *(["trust"] if trust is not None else []), *more])
    for k, (i, t, g, c) in enumerate(zip(ids, tokens, groups, coords, strict=True)):
        extra = [] if trust is None else ["" if np.isnan(trust[k]) else f"{trust[k]:.2f}"]
        w.writerow([int(i), t, g, *[f"{v:.6g}" for v in c], *extra, *(values[k] for values in more.values())])
    return buf.getvalue()
