"""The fine-tune audit: what a tuned checkpoint changed in its base's token table and tokenizer.

``audit_checkpoints(base, tuned)`` compares two sources that ``andrea_viz.load`` opens (the tuned one a fine-tune of
the base: same width d) and answers, id by id: rows added (and how each was initialised), removed, renamed (the same
id holding another string), reserved rows reused, padding rows (no token), tokenizer ids without a row, and the tie
state of the tuned folder by its config and by its bytes, with what three loaders would make of it.

Init methods of an added row, checked in this order against the base table B (V × d), its mean μ and covariance Σ:

- ``zeros``: the row is 0;
- ``copy``: equal to a row of B;
- ``mean``: equal to μ (transformers' ``mean_resizing=True`` when Σ is not positive definite, or any bf16 sample);
- ``mvn``: a sample of N(μ, 10⁻⁹·Σ), transformers' ``mean_resizing=True`` (PR #33325): Σ_j (r_j − μ_j)² /
  (10⁻⁹·Σ_jj), divided by d, is near 1 (its expectation is exactly 1; only Σ's diagonal is needed, so no d × d
  matrix is formed), where any other init is 10⁵ or more times that;
- ``description_mean``: equal to the mean of the rows of its own string's pieces in the base tokenizer;
- ``normal``: N(0, σ) with σ the model's ``initializer_range`` (``mean_resizing=False`` runs ``_init_weights``): the
  row's mean is near 0 and its squared norm near d·σ²;
- ``unknown`` otherwise.

``moved``: with a step-0 snapshot of the tuned model (``init=``), whether the row differs from it; without one, false
when the tuned row still equals an exact init guess (zeros, copy, mean, mvn, description_mean), null otherwise.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

import ml_dtypes
import numpy as np

from .checkpoints import load_path
from .checkpoints.adapters import describe_changes, ids_text, is_adapter_folder
from .checkpoints.hf_folder import INDEX_FILES, read_config, tokenizer_beside
from .errors import CheckpointError
from .file_pages import release_pages
from .i18n import Msg
from .loading import load
from .neighbours import select_k
from .model import Embeddings, block_rows, f32, is_narrow, row_blocks
from .tokenizer import HFTokenizer, IdTokenizer, Tokenizer

AUDIT_KEYS = ("added_rows", "added_output_rows", "removed_rows", "renamed_rows", "reserved_reused", "padding_rows",
              "ids_without_row", "tie")
INIT_METHODS = ("zeros", "mean", "mvn", "copy", "description_mean", "normal", "unknown")
RESERVED = re.compile(r"^(\[unused\d+\]|<unused\d+>|<\|reserved_special_token_\d+\|>)$")
HEAD_NAMES = ("lm_head.weight", "embed_out.weight", "output.weight")  # a causal LM's separate output projection
MVN_EPSILON = 1e-9  # transformers' _init_added_embeddings_weights_with_mean samples N(μ, 1e-9·Σ)
MVN_BAND = (0.05, 10.0)  # squared Mahalanobis distance / d of such a sample (χ²(d)/d ≈ 1); below: the mean itself


@dataclass(frozen=True)
class AuditSide:
    """One checkpoint as the audit sees it: the loaded model, its config.json (may be empty) and the output head as
    stored in its file (None when the file holds none)."""

    emb: Embeddings
    config: dict
    stored_head: np.ndarray | None
    tokenizer: Tokenizer | None  # the folder's own, even when it holds more ids than the table (load() refuses it)

    @property
    def has_tokenizer(self) -> bool:
        return self.tokenizer is not None


def _head_from_file(folder: Path) -> np.ndarray | None:
    """The separate output head a Hugging Face folder's safetensors hold, as float32, else None."""
    files = [folder / "model.safetensors"] if (folder / "model.safetensors").is_file() else []
    index = folder / INDEX_FILES[0]
    if not files and index.is_file():
        try:
            wmap = json.loads(index.read_text())["weight_map"]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CheckpointError("{name} has no weight_map: {detail}", name=index.name, detail=str(exc)) from exc
        files = [folder / str(wmap[k]) for k in wmap if str(k).endswith(HEAD_NAMES)][:1]
    from safetensors import safe_open  # heavy import kept to the folders that need it

    for p in files:
        with safe_open(str(p), framework="pt") as f:
            name = next((k for k in f.keys() if k.endswith(HEAD_NAMES)), None)
            if name is not None:
                return f.get_tensor(name).float().numpy()
    return None


def open_audit_side(source: str | Path, base: Path | None = None) -> AuditSide:
    """One side of the audit; ``base``: for a PEFT adapter folder, its base model's folder (whose config it keeps)."""
    path = Path(source)
    emb = load(source) if base is None else load_path(path, base=base)
    folder = path if path.is_dir() and base is None else base if base is not None else None
    config = read_config(folder) if folder is not None else {}
    if base is not None and (emb.tied or emb.output_table is not None):  # the merged model, as merge_and_unload leaves
        config = {**config, "tie_word_embeddings": emb.tied}  # it (untied by a modules_to_save copy of a tied table)
    if base is not None:
        head = None if emb.output_table is None else f32(emb.output_table)
    elif folder is not None and ((folder / "model.safetensors").is_file() or (folder / INDEX_FILES[0]).is_file()):
        head = _head_from_file(folder)  # as stored: load() follows the config and may hide a differing head
    else:
        head = None if emb.output_table is None else f32(emb.output_table)
    claimed = config.get("vocab_size")
    if isinstance(claimed, int) and not isinstance(claimed, bool) and claimed > emb.vocab_size:
        raise CheckpointError("{name}: config.json says vocab_size = {claimed:,} but the token table has only {rows:,} "
                              "rows; expected a table with one row per token the config claims", name=str(source),
                              claimed=claimed, rows=emb.vocab_size)
    tok = None if isinstance(emb.tokenizer, IdTokenizer) else emb.tokenizer
    beside = tokenizer_beside(folder) if folder is not None and tok is None else None
    if isinstance(beside, Path) and beside.name == "tokenizer.json":
        tok = HFTokenizer(beside)  # longer than the table: kept here, so that its ids without a row can be listed
    return AuditSide(emb=emb, config=config, stored_head=head, tokenizer=tok)


# --- init methods ----------------------------------------------------------------------------------------------------

def wide(a: np.ndarray) -> np.ndarray:
    """``a`` as float32, exactly; bfloat16 by its bits (the 16 high bits of a float32), many times faster than a cast
    through ml_dtypes, which matters on a pass over a 128,256 × 4,096 table."""
    if a.dtype == np.dtype(ml_dtypes.bfloat16):
        return (np.ascontiguousarray(a).view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return f32(a)


def blocks(table: np.ndarray, cols: int | None = None):
    """(first row, float32 block) over the table's rows, a block at a time; ``cols``: only the first columns, cut
    before widening. A mapped file's pages are let go once their block is widened (``file_pages.release_pages``)."""
    step = block_rows(table.shape[1])
    for i in range(0, table.shape[0], step):
        rows = table[i:i + step] if cols is None else table[i:i + step, :cols]
        block = wide(rows)
        release_pages(rows)
        yield i, block


@dataclass
class TableStats:
    """What the init checks need of a base table, computed once in blocks of rows (never a widened copy of it)."""

    table: np.ndarray  # (V, d) as stored
    mean: np.ndarray  # (d,) float64
    variance: np.ndarray  # (d,) float64: Σ's diagonal, divided by V as transformers divides
    scale: float  # the median row norm / √d: a typical coordinate's size
    median_norm: float
    init_std: float | None
    narrow: bool  # stored in bf16 / fp16: exact checks allow that rounding


def table_stats(table: np.ndarray, init_std: float | None) -> TableStats:
    narrow = table.dtype != np.float32 and table.dtype != np.float64
    V, d = table.shape
    total, squares, norms = np.zeros(d), np.zeros(d), []
    for _, b in blocks(table):
        b = b.astype(np.float64)
        total += b.sum(axis=0)
        squares += np.einsum("ij,ij->j", b, b)
        norms.append(np.sqrt(np.einsum("ij,ij->i", b, b)))
    mean = total / max(V, 1)
    variance = np.maximum(squares / max(V, 1) - mean ** 2, 0.0)
    norms = np.concatenate(norms) if norms else np.zeros(0)
    median_norm = float(np.median(norms)) if norms.size else 0.0
    return TableStats(table=table, mean=mean, variance=variance, scale=median_norm / np.sqrt(max(d, 1)),
                      median_norm=median_norm, init_std=init_std, narrow=narrow)


PROBE_DIMS = 64  # coordinates a copy's source is first looked for on (a copy is equal on every one of them)
PROBE_CANDIDATES = 4  # base rows nearest on those coordinates checked on all of them


def nearest_rows(rows: np.ndarray, table: np.ndarray) -> np.ndarray:
    """(n,) the id of each row's nearest table row (squared distance |t|² − 2 t·r + |r|², in blocks of rows)."""
    r = np.asarray(rows, np.float64)
    best, where = np.full(r.shape[0], np.inf), np.zeros(r.shape[0], np.int64)
    start = 0
    for b in row_blocks(table):
        b = b.astype(np.float64)
        d2 = np.einsum("ij,ij->i", b, b)[:, None] - 2 * b @ r.T  # (block, n); |r|² is the same for every t
        j = np.argmin(d2, axis=0)
        better = d2[j, np.arange(r.shape[0])] < best
        best[better], where[better] = d2[j, np.arange(r.shape[0])][better], j[better] + start
        start += b.shape[0]
    return where


def copy_sources(rows: np.ndarray, s: TableStats) -> np.ndarray:
    """(n,) for each row the base row it is a copy of, else the base row nearest to it on the first ``PROBE_DIMS``
    coordinates (which ``classify_init`` then finds unequal). Same answer as ``nearest_rows`` whenever a copy exists,
    at PROBE_DIMS / d of its cost: a 128,256 × 4,096 table is searched for 1,000 rows in a second, not a minute."""
    r = np.asarray(rows, np.float64)
    if r.shape[1] <= PROBE_DIMS:
        return nearest_rows(r, s.table)
    q = r[:, :PROBE_DIMS].astype(np.float32)
    c = min(PROBE_CANDIDATES, s.table.shape[0])
    far = np.finfo(np.float32).max  # a place not yet filled: finite, so the kit's selection may pass over it
    cand_d, cand_i = np.full((r.shape[0], c), far, np.float32), np.zeros((r.shape[0], c), np.int64)
    for start, p in blocks(s.table, PROBE_DIMS):
        d2 = np.einsum("ij,ij->i", p, p)[None, :] - 2 * q @ p.T  # (n, block)
        loc, near = select_k(-d2, c)  # the block's best c (the kit's selection), merged with the best so far
        d = np.concatenate([cand_d, -near], axis=1)
        i = np.concatenate([cand_i, loc + start], axis=1)
        keep, _best = select_k(-d, c)
        cand_d, cand_i = np.take_along_axis(d, keep, 1), np.take_along_axis(i, keep, 1)
    out = np.empty(r.shape[0], np.int64)
    for n in range(r.shape[0]):
        order = cand_i[n][np.argsort(cand_d[n], kind="stable")]
        equal = []
        for j in order:
            row = s.table[j]
            if _close(r[n], np.asarray(row, np.float64), s):
                equal.append(int(j))
            release_pages(row)  # rows read at random map large stretches of a file each: let go of them at once
        out[n] = min(equal) if equal else int(order[0])
    return out


def _close(a: np.ndarray, b: np.ndarray, s: TableStats) -> bool:
    return rows_equal(a, b, s.narrow, s.scale)


def rows_equal(a: np.ndarray, b: np.ndarray, narrow: bool, scale: float) -> bool:
    """Equal up to the rounding of the stored dtype (bf16/fp16: 2⁻⁷ relative, and 2⁻⁸ of a typical coordinate for
    coordinates near 0, where a sum computed in bf16 is off by more than its own rounding) or of float32 arithmetic."""
    return bool(np.allclose(a, b, rtol=2.0 ** -7 if narrow else 1e-5,
                            atol=(2.0 ** -8 if narrow else 1e-6) * scale + 1e-12))


def classify_init(row: np.ndarray, s: TableStats, pieces: list[int] | None = None,
                  nearest: int | None = None) -> tuple[str, Msg]:
    """(method, evidence) for one added row; ``pieces``: the base tokenizer's ids of the new token's own string
    (for ``description_mean``); ``nearest``: the base row nearest to it, when already found for many rows at once."""
    r = np.asarray(row, np.float64)
    if not np.any(r):
        return "zeros", Msg("every value is 0")
    if s.table.shape[0]:
        j = int(nearest_rows(r[None], s.table)[0]) if nearest is None else nearest
        if _close(r, np.asarray(s.table[j], np.float64), s):
            return "copy", Msg("equal to base row #{id}", id=j)
    if _close(r, s.mean, s):
        return "mean", Msg("equal to the base table's mean row")
    if np.all(s.variance > 0):
        m2 = float(np.sum((r - s.mean) ** 2 / (MVN_EPSILON * s.variance))) / r.size
        if MVN_BAND[0] <= m2 <= MVN_BAND[1]:
            return "mvn", Msg("a sample of N(mean, 10⁻⁹·Σ): squared Mahalanobis distance / d = {m:.2f} (about 1 expected)",
                              m=m2)
    if pieces:
        desc = np.asarray(s.table[pieces], np.float64).mean(axis=0)
        if _close(r, desc, s):
            return "description_mean", Msg("equal to the mean of base rows {ids}", ids=", ".join(f"#{i}" for i in pieces))
    if s.init_std:
        d = r.size
        ratio = float(r @ r) / (d * s.init_std ** 2)
        spread = 4 * np.sqrt(2 / d)
        if 1 - spread <= ratio <= 1 + spread and abs(float(r.mean())) <= 4 * s.init_std / np.sqrt(d):
            return "normal", Msg("like N(0, {std:.4f}): squared norm / (d·σ²) = {ratio:.2f}", std=s.init_std, ratio=ratio)
    return "unknown", Msg("none of zeros, copy, mean, N(mean, 10⁻⁹·Σ), description mean or N(0, σ) fits")


EXACT_INITS = {"zeros", "copy", "mean", "mvn", "description_mean"}


def _init_std(side: AuditSide) -> float | None:
    v = side.config.get("initializer_range", side.emb.card.init_std)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and v > 0 else None


def _token(side: AuditSide, i: int) -> str | None:
    if side.tokenizer is None or i >= side.tokenizer.vocab_size:
        return None
    t = side.tokenizer.token(i)
    return None if t == f"#{i}" else t


def _pieces(base: AuditSide, text: str | None) -> list[int] | None:
    if text is None or not base.has_tokenizer:
        return None
    try:
        ids = [i for i in base.tokenizer.encode(text) if i < base.emb.vocab_size]
    except Exception:  # noqa: BLE001 (a tokenizer that cannot encode a string: no description, not an error)
        return None
    return ids or None


def _added(base_table: np.ndarray, tuned_table: np.ndarray, tuned: AuditSide, base: AuditSide,
           start: np.ndarray | None, init_std: float | None, stats: TableStats | None = None) -> list[dict]:
    """One entry per row of ``tuned_table`` past the base's rows; ``start``: the same table at step 0, if known;
    ``stats``: the base table's, when already computed."""
    s = replace(stats) if stats is not None else table_stats(base_table, init_std)
    s.narrow = s.narrow or is_narrow(tuned_table)  # a row stored in bf16 holds its init only up to bf16's rounding
    rows = []
    first = base_table.shape[0]
    seen_all = np.asarray((start if start is not None else tuned_table)[first:], np.float64)
    nearest = copy_sources(seen_all, s) if seen_all.size and first else None
    for i in range(first, tuned_table.shape[0]):
        token = _token(tuned, i)
        seen = seen_all[i - first]
        method, why = classify_init(seen, s, _pieces(base, token), None if nearest is None else int(nearest[i - first]))
        if start is not None:
            moved = not _close(np.asarray(tuned_table[i], np.float64), seen, s)
        else:
            moved = False if method in EXACT_INITS else None
        norm = float(np.linalg.norm(np.asarray(tuned_table[i], np.float64)))
        rows.append({"id": i, "token": token, "init": method, "moved": moved, "evidence": why,
                     "norm_ratio": round(norm / s.median_norm, 4) if s.median_norm else None})
    return rows


# --- tie state -------------------------------------------------------------------------------------------------------

def loader_verdicts(config_tied: bool, bytes_tied: bool, head_in_file: bool) -> dict[str, str]:
    """What each loader does with a folder whose config says ``config_tied`` and whose file holds ``bytes_tied``.

    transformers (src/transformers/modeling_utils.py, ``PreTrainedModel.tie_weights`` with ``_tied_weights_keys``):
    4.x pointed the output embedding at the input embedding whenever config.tie_word_embeddings was true, silently
    replacing a different lm_head; 5.x (installed here, checked in tests/unit/test_audit.py) finds both tensors
    present with different values, does NOT tie them and warns ("warns"); an untied config over a file with no
    lm_head gets a newly initialised head and a MISSING line in its load report ("warns").
    vLLM (vllm/model_executor/models/llama.py: ``if config.tie_word_embeddings: self.lm_head =
    self.lm_head.tie_weights(self.model.embed_tokens)`` and ``skip_prefixes=["lm_head."]`` in ``load_weights``): a
    tied config skips the file's lm_head ("drops_head"); an untied config over a file without lm_head is reconciled
    by vllm/model_executor/model_loader/weight_tying.py, which ties the head it could not load ("reties").
    llama.cpp (convert_hf_to_gguf.py writes the tensors the file holds, lm_head.weight as output.weight, without
    reading tie_word_embeddings for Llama-style models; src/llama-model.cpp loads output.weight as
    TENSOR_NOT_REQUIRED and falls back to token_embd, TENSOR_DUPLICATED): a separate head is kept whatever the config
    says ("keeps"), a missing one is re-tied ("reties").
    """
    if config_tied == bytes_tied or (not config_tied and head_in_file):
        return {"transformers": "keeps", "vllm": "keeps", "llama_cpp": "keeps"}
    if config_tied:  # the file holds a head that differs from the token table
        return {"transformers": "warns", "vllm": "drops_head", "llama_cpp": "keeps"}
    return {"transformers": "warns", "vllm": "reties", "llama_cpp": "reties"}  # untied config, no head in the file


def tie_state(side: AuditSide) -> dict[str, str]:
    table = side.emb.token_table
    head = side.stored_head
    bytes_tied = head is None or (head.shape == table.shape and all(
        np.array_equal(head[i:i + b.shape[0]], b) for i, b in blocks(table)))
    if "tie_word_embeddings" in side.config:
        config_tied = bool(side.config["tie_word_embeddings"])
    elif side.config:
        config_tied = True  # transformers' PretrainedConfig default
    else:
        config_tied = bytes_tied  # no config: the file is all there is
    return {"config": "tied" if config_tied else "untied", "bytes": "tied" if bytes_tied else "untied",
            **loader_verdicts(config_tied, bytes_tied, head is not None)}


# --- the audit -------------------------------------------------------------------------------------------------------

def _common_check(base: AuditSide, tuned: AuditSide) -> None:
    b, t = base.emb, tuned.emb
    if b.d_model != t.d_model:
        raise CheckpointError("a fine-tune keeps its base's width d, but the base has d = {a:,} and the tuned model "
                              "d = {b:,}: expected two checkpoints of one model", a=b.d_model, b=t.d_model)
    n = min(b.vocab_size, t.vocab_size)
    if base.has_tokenizer and tuned.has_tokenizer:
        shared = [i for i in range(n) if _token(base, i) is not None and _token(base, i) == _token(tuned, i)]
        if not shared:
            raise CheckpointError("expected a fine-tune of the base, but no id holds the same token in both tokenizers "
                                  "(the first {n:,} ids compared): the two share nothing to audit", n=n)
        return
    cos = _paired(b.token_table[:n], t.token_table[:n], _cosines)
    if n == 0 or float(np.median(cos)) < 0.2:
        raise CheckpointError("expected a fine-tune of the base, but its rows and the tuned rows at the same ids are "
                              "unrelated (median cosine {c:.2f}): the two share nothing to audit",
                              c=float(np.median(cos)) if n else 0.0)


def _cosines(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", x, y) / np.maximum(np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1), 1e-30)


def _distances(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.linalg.norm(x - y, axis=1)


def _paired(a: np.ndarray, b: np.ndarray, fn) -> np.ndarray:
    """``fn(a rows, b rows)`` per row of two tables of equal shape, in float32 blocks of rows (never a widened copy
    of a whole table)."""
    n = int(min(a.shape[0], b.shape[0]))
    if not n:
        return np.zeros(0)
    step, out = block_rows(a.shape[1]), []
    for i in range(0, n, step):
        x, y = a[i:i + step], b[i:i + step]
        out.append(fn(wide(x), wide(y)))
        release_pages(x)
        release_pages(y)
    return np.concatenate(out).astype(np.float64)


def audit_sides(base: AuditSide, tuned: AuditSide, start: AuditSide | None = None, merged: bool = False) -> dict:
    """The audit as a JSON-ready dict with exactly AUDIT_KEYS; ``start``: the tuned model at step 0 (after the
    resize, before training), which makes ``moved`` knowable for every added row; ``merged``: the tuned side is the base
    with an adapter merged, related to it by construction (however far the adapter moved its rows)."""
    if not merged:
        _common_check(base, tuned)
    b, t = base.emb, tuned.emb
    if start is not None and start.emb.token_table.shape != t.token_table.shape:
        raise CheckpointError("the step-0 snapshot must have the tuned table's shape: expected {want}, got {got}",
                              want=str(list(t.token_table.shape)), got=str(list(start.emb.token_table.shape)))
    init_std = _init_std(base)
    stats = table_stats(b.token_table, init_std)  # one pass over the base table, shared
    added = _added(b.token_table, t.token_table, tuned, base, None if start is None else start.emb.token_table,
                   init_std, stats)
    added_out: list[dict] = []
    tie = tie_state(tuned)
    if tie["bytes"] == "untied" and base.stored_head is not None and tuned.stored_head.shape[0] > \
            base.stored_head.shape[0]:
        s0 = None if start is None or start.stored_head is None else start.stored_head
        added_out = _added(base.stored_head, tuned.stored_head, tuned, base, s0, init_std)
    n = min(b.vocab_size, t.vocab_size)
    removed = [{"id": i, "token": _token(base, i)} for i in range(n, b.vocab_size)]
    renamed, reserved = [], []
    narrow = b.token_table.dtype != np.float32 or t.token_table.dtype != np.float32
    scale = stats.scale
    drift = _paired(b.token_table[:n], t.token_table[:n], _distances)
    is_reserved = np.array([_token(base, i) is not None and bool(RESERVED.match(_token(base, i))) for i in range(n)],
                           bool)
    # a reserved row whose string is unchanged counts as reused when it moved like a trained row, not like the rest
    # of the table: more than twice the other rows' median drift (under a frozen table, any move at all; in a fully
    # trained tied model every row moves through the output softmax, so plain movement says nothing)
    typical = float(np.median(drift[~is_reserved])) if (~is_reserved).any() else 0.0
    for i in range(n):
        old, new = _token(base, i), _token(tuned, i)
        if is_reserved[i]:
            moved = not rows_equal(np.asarray(t.token_table[i], np.float64), np.asarray(b.token_table[i], np.float64),
                                   narrow, scale)
            if (new is not None and new != old) or (moved and drift[i] > 2 * typical):  # no tokenizer: rows only
                reserved.append({"id": i, "base_token": old, "token": new, "moved": moved})
            continue
        if old is not None and new is not None and old != new:
            renamed.append({"id": i, "base_token": old, "token": new})
    padding = []
    if tuned.has_tokenizer:
        padding = [{"id": i, "added": i >= b.vocab_size} for i in range(t.vocab_size) if _token(tuned, i) is None]
    without = []
    if tuned.has_tokenizer and tuned.tokenizer.vocab_size > t.vocab_size:
        tok = tuned.tokenizer
        without = [{"id": i, "token": tok.token(i)} for i in range(t.vocab_size, tok.vocab_size)]
    return {"added_rows": added, "added_output_rows": added_out, "removed_rows": removed, "renamed_rows": renamed,
            "reserved_reused": reserved, "padding_rows": padding, "ids_without_row": without, "tie": tie}


def audit_checkpoints(base: str | Path, tuned: str | Path, init: str | Path | None = None) -> dict:
    """Open both (and the tuned model's step-0 snapshot, if given) and audit them. A PEFT adapter folder as the tuned
    side is read over the base given, and the result holds ``adapter``: which tensors it changes, and which rows."""
    if Path(tuned).is_dir() and is_adapter_folder(Path(tuned)):
        if not Path(base).is_dir():
            raise CheckpointError("{tuned} is a PEFT adapter: expected its base model's folder (config.json and weights) "
                                  "as the base, got '{base}'", tuned=Path(tuned).name, base=str(base))
        result = audit_sides(open_audit_side(base), open_audit_side(tuned, base=Path(base)),
                             None if init is None else open_audit_side(init), merged=True)
        result["adapter"] = describe_changes(Path(tuned), Path(base))
        return result
    return audit_sides(open_audit_side(base), open_audit_side(tuned), None if init is None else open_audit_side(init))


def audit_report(result: dict) -> list[Msg]:
    """The audit as sentences, one per line, for the shell."""
    lines = _adapter_report(result["adapter"]) if result.get("adapter") else []
    lines.append(Msg("rows added: {n:,}", n=len(result["added_rows"])))
    for r in result["added_rows"]:
        lines.append(Msg("  #{id} {token}: init {init}, moved {moved}, norm {ratio:.2f} × the median; {why}", id=r["id"],
                         token=repr(r["token"]) if r["token"] is not None else "—", init=r["init"],
                         moved=_yes_no(r["moved"]), ratio=r["norm_ratio"] or 0.0,
                         why=r["evidence"]))
    if result["added_output_rows"]:
        lines.append(Msg("output rows added: {n:,}", n=len(result["added_output_rows"])))
        for r in result["added_output_rows"]:
            lines.append(Msg("  #{id}: init {init}, moved {moved}", id=r["id"], init=r["init"], moved=_yes_no(r["moved"])))
    lines.append(Msg("rows removed: {n:,}", n=len(result["removed_rows"])))
    lines.append(Msg("rows renamed: {n:,}", n=len(result["renamed_rows"])))
    for r in result["renamed_rows"]:
        lines.append(Msg("  #{id}: {old} → {new}", id=r["id"], old=repr(r["base_token"]), new=repr(r["token"])))
    lines.append(Msg("reserved rows reused: {n:,}", n=len(result["reserved_reused"])))
    for r in result["reserved_reused"]:
        lines.append(Msg("  #{id}: {old} → {new}, moved {moved}", id=r["id"], old=repr(r["base_token"]),
                         new=repr(r["token"]), moved=_yes_no(r["moved"])))
    lines.append(Msg("rows with no token (padding): {n:,}", n=len(result["padding_rows"])))
    lines.append(Msg("tokenizer ids without a row: {n:,}", n=len(result["ids_without_row"])))
    tie = result["tie"]
    lines.append(Msg("tie state: config {config}, bytes {bytes}; transformers {tf}, vLLM {vllm}, llama.cpp {cpp}",
                     config=tie["config"], bytes=tie["bytes"], tf=tie["transformers"], vllm=tie["vllm"],
                     cpp=tie["llama_cpp"]))
    return lines


def _adapter_report(adapter: dict) -> list[Msg]:
    tables = [c for c in adapter["changes"] if c["role"]]
    others = [c["tensor"] for c in adapter["changes"] if not c["role"]]
    lines = [Msg("adapter {name} ({kind}): it changes {n:,} embedding tables and {m:,} other tensors",
                 name=adapter["folder"], kind=adapter["peft_type"], n=len(tables), m=len(others))]
    for c in tables:
        lines.append(Msg("  {tensor} ({kind}): {n:,} rows changed ({ids})", tensor=c["tensor"], kind=c["kind"],
                         n=len(c["rows"]), ids=ids_text(np.asarray(c["rows"], int))))
    if others:
        lines.append(Msg("  other tensors changed: {keys}", keys=", ".join(others[:6]) + (", …" if len(others) > 6 else "")))
    return lines


def _yes_no(v: bool | None) -> Msg:
    return Msg("unknown") if v is None else Msg("yes") if v else Msg("no")
