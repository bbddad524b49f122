"""PEFT adapter folders (``adapter_config.json`` + ``adapter_model.safetensors``): the base model's tables with the
adapter applied, as ``PeftModel.merge_and_unload()`` would leave them.

An adapter holds no model of its own: its base is found beside it (the folder it was saved in, or a sibling named
by ``base_model_name_or_path``), or in the checkpoint folder under that name. Its tensors are keyed by PEFT's module
names, ``base_model.model.<module>...``; with that prefix stripped they name the base's own tensors:

- ``<module>.weight``: a ``modules_to_save`` copy, which replaces the base's table;
- ``<module>.lora_embedding_A`` (r, V) and ``<module>.lora_embedding_B`` (d, r): a LoRA on an embedding, merged as
  ``W + (B·A)ᵀ·scale`` (PEFT's ``Embedding.get_delta_weight``);
- ``<module>.lora_A.weight`` (r, in) and ``<module>.lora_B.weight`` (out, r): a LoRA on a linear layer (an output
  head), merged as ``W + B·A·scale``;
- ``<module>.base_layer.weight``: the embedding as it was when the adapter was saved (``save_embedding_layers``),
  which PEFT loads over the base's before merging;
- ``<module>.token_adapter.trainable_tokens_delta`` (n, d): the new rows of ``trainable_token_indices``, copied
  over those ids (PEFT's ``TrainableTokensLayer`` uses ``index_copy``).

``scale`` is ``lora_alpha / r``, or ``lora_alpha / √r`` with ``use_rslora`` (``alpha_pattern`` and ``rank_pattern``
name per-module values).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import CheckpointError
from ..i18n import Msg
from . import hf_folder, safetensors_file, torch_file
from .tables import Choice, Found, choose_tables

CONFIG = "adapter_config.json"
WEIGHTS = ("adapter_model.safetensors", "adapter_model.bin")
PREFIX = "base_model.model."
SHOWN_IDS = 20  # ids a note lists before "…"
BLOCK_ROWS = 8192  # rows merged or compared at once


def is_adapter_folder(folder: Path) -> bool:
    return folder.is_dir() and (folder / CONFIG).is_file() and any((folder / w).is_file() for w in WEIGHTS)


@dataclass
class Edit:
    """What an adapter does to one tensor of its base: ``kind`` is modules_to_save, lora, trainable_tokens."""

    key: str  # the base's tensor
    kind: str
    replace: str | None = None  # the adapter's key holding the whole new table (modules_to_save, base_layer)
    lora: tuple[str, str, float, bool] | None = None  # (A key, B key, scale, embedding layout)
    tokens: tuple[str, list[int]] | None = None  # (delta key, ids)


@dataclass
class Adapter:
    folder: Path
    config: dict
    tensors: Found  # the adapter's own tensors, keys with PEFT's prefix stripped
    edits: dict[str, Edit] = field(default_factory=dict)  # base key -> edit
    base_readers: dict = field(default_factory=dict)  # base key -> the base's own reader, before the adapter

    @property
    def peft_type(self) -> str:
        return str(self.config.get("peft_type", "?"))


def read_adapter_config(folder: Path) -> dict:
    try:
        cfg = json.loads((folder / CONFIG).read_text())
    except (ValueError, UnicodeDecodeError, RecursionError, OSError) as exc:
        raise CheckpointError("{path} is not valid JSON: {detail}", path=CONFIG, detail=str(exc)[:200]) from exc
    if not isinstance(cfg, dict):
        raise CheckpointError("{path} is not valid JSON: {detail}", path=CONFIG, detail="not an object")
    return cfg


def open_adapter(folder: Path) -> Adapter:
    """The adapter's config and tensors (nothing read but headers)."""
    cfg = read_adapter_config(folder)
    raw = Found(format=Msg("unknown"), file=str(folder))
    weights = next(folder / w for w in WEIGHTS if (folder / w).is_file())
    (safetensors_file.read if weights.suffix == ".safetensors" else torch_file.read)(weights, raw)
    tensors = Found(format=raw.format, file=str(folder))
    for k in raw.shapes:
        name = k[len(PREFIX):] if k.startswith(PREFIX) else k
        tensors.add(name, raw.shapes[k], raw.dtypes[k], raw.readers[k])
    return Adapter(folder, cfg, tensors)


def _pattern(patterns: dict, module: str):
    """PEFT's ``get_pattern_key``: the pattern that names ``module`` (its whole name or a dotted tail)."""
    for key in patterns or {}:
        if re.match(rf"(.*\.)?({key})$", module):
            return patterns[key]
    return None


def _scale(cfg: dict, module: str, r: int) -> float:
    alpha = _pattern(cfg.get("alpha_pattern") or {}, module)
    alpha = float(cfg.get("lora_alpha", 8) if alpha is None else alpha)
    return alpha / math.sqrt(r) if cfg.get("use_rslora") else alpha / r


def _token_ids(cfg: dict, module: str) -> list[int] | None:
    spec = cfg.get("trainable_token_indices")
    if isinstance(spec, dict):
        spec = _pattern(spec, module)
    return [int(i) for i in spec] if isinstance(spec, list) else None


def _resolve(module: str, base_keys: set[str]) -> str | None:
    """The base's tensor ``<module>.weight``, or the one whose name ends with it (or that it ends with) at a dot."""
    want = module + ".weight"
    if want in base_keys:
        return want
    hits = [k for k in base_keys if k.endswith("." + want) or want.endswith("." + k)]
    return hits[0] if len(hits) == 1 else None


def plan(adapter: Adapter, base_keys: set[str]) -> dict[str, Edit]:
    """Which base tensors the adapter changes, and how."""
    keys, cfg = adapter.tensors.shapes, adapter.config
    if cfg.get("use_dora"):
        raise CheckpointError("{name} is a DoRA adapter (use_dora): only LoRA, modules_to_save and trainable tokens are "
                              "merged here", name=adapter.folder.name)
    edits: dict[str, Edit] = {}

    def edit(module: str, kind: str) -> Edit | None:
        base = _resolve(module, base_keys)
        if base is None:
            return None
        return edits.setdefault(base, Edit(base, kind))

    for k in keys:
        if k.endswith(".lora_embedding_A") or k.endswith(".lora_A.weight"):
            emb = k.endswith(".lora_embedding_A")
            module = k[: -len(".lora_embedding_A" if emb else ".lora_A.weight")]
            b = module + (".lora_embedding_B" if emb else ".lora_B.weight")
            e = edit(module, "lora")
            if e is not None and b in keys:
                e.lora = (k, b, _scale(cfg, module, int(keys[k][0])), emb)
                if module + ".base_layer.weight" in keys:
                    e.replace = module + ".base_layer.weight"
        elif k.endswith(".token_adapter.trainable_tokens_delta"):
            module = k[: -len(".token_adapter.trainable_tokens_delta")]
            ids = _token_ids(cfg, module.rsplit(".", 1)[-1]) or _token_ids(cfg, module)
            e = edit(module, "trainable_tokens")
            if e is not None and ids is not None:
                e.tokens = (k, ids)
        elif k.endswith(".weight") and ".lora_" not in k and not k.endswith(".base_layer.weight"):
            module = k[: -len(".weight")]
            e = edit(module, "modules_to_save")
            if e is not None:
                e.replace = k
    return {k: e for k, e in edits.items() if e.replace or e.lora or e.tokens}


def merged(adapter: Adapter, e: Edit, base: np.ndarray) -> np.ndarray:
    """The tensor ``e.key`` after the adapter: float32, as ``merge_and_unload()`` leaves it."""
    read = adapter.tensors.readers
    w = np.array(read[e.replace](), np.float32) if e.replace else np.array(base, np.float32)
    if w.shape != tuple(base.shape):
        raise CheckpointError("the adapter's {key} has shape {shape}, but the base's {base} has {want}: expected an "
                              "adapter trained on this base", key=e.replace, shape=str(list(w.shape)), base=e.key,
                              want=str(list(base.shape)))
    if e.lora:
        a, b = np.asarray(read[e.lora[0]](), np.float32), np.asarray(read[e.lora[1]](), np.float32)
        shape = (a.shape[1], b.shape[0]) if e.lora[3] else (b.shape[0], a.shape[1])
        if shape != w.shape or a.shape[0] != b.shape[1]:
            raise CheckpointError("the adapter's LoRA on {key} makes a change of shape {shape}, but the table is {want}: "
                                  "expected an adapter trained on this base", key=e.key, shape=str(list(shape)),
                                  want=str(list(w.shape)))
        scale = np.float32(e.lora[2])
        for i in range(0, w.shape[0], BLOCK_ROWS):  # (B·A)ᵀ a block of rows at a time: never a second (V, d) array
            rows = slice(i, i + BLOCK_ROWS)
            w[rows] += ((a[:, rows].T @ b.T) if e.lora[3] else (b[rows] @ a)) * scale
    if e.tokens:
        rows, ids = np.asarray(read[e.tokens[0]](), np.float32), e.tokens[1]
        if rows.shape != (len(ids), w.shape[1]) or (ids and not 0 <= min(ids) <= max(ids) < w.shape[0]):
            raise CheckpointError("the adapter's trainable tokens {ids} do not fit the table {key} of shape {want}",
                                  ids=", ".join(map(str, ids[:SHOWN_IDS])), key=e.key, want=str(list(w.shape)))
        w[ids] = rows
    return w


def changed_rows(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """The ids of the rows the adapter changed (any value differs from the base's), a block of rows at a time."""
    if after.ndim != 2:
        return np.array([], int)
    return np.concatenate([i + np.flatnonzero((np.asarray(before[i:i + BLOCK_ROWS], np.float32) !=
                                               after[i:i + BLOCK_ROWS]).any(axis=1))
                           for i in range(0, after.shape[0], BLOCK_ROWS)] or [np.array([], int)])


def ids_text(ids: np.ndarray) -> str:
    shown = ", ".join(f"#{i}" for i in ids[:SHOWN_IDS])
    return shown + (", …" if len(ids) > SHOWN_IDS else "") if len(ids) else "—"


def change_note(adapter: Adapter, e: Edit, rows: np.ndarray, total: int) -> Msg:
    if e.lora:
        return Msg("the adapter {name} changes {table} by a LoRA merged as base + B·A × {scale:.4g}: {n:,} of {V:,} rows "
                   "changed ({ids})", name=adapter.folder.name, table=e.key, scale=e.lora[2], n=len(rows), V=total,
                   ids=ids_text(rows))
    return Msg("the adapter {name} changes {table} ({kind}): {n:,} of {V:,} rows changed ({ids})",
               name=adapter.folder.name, table=e.key, kind=e.kind, n=len(rows), V=total, ids=ids_text(rows))


def apply(adapter: Adapter, found: Found) -> None:
    """The base's tensors in ``found`` read through the adapter: each one it changes is merged when read, with a note
    saying which rows changed."""
    adapter.edits = plan(adapter, set(found.shapes))
    for key, e in adapter.edits.items():
        base_read = adapter.base_readers[key] = found.readers[key]

        def read(e=e, base_read=base_read) -> np.ndarray:
            base = base_read()
            out = merged(adapter, e, base)
            rows = changed_rows(base, out)
            found.notes.append(change_note(adapter, e, rows, out.shape[0]))
            return out

        found.readers[key] = read
        found.dtypes[key] = "float32"


def untie(adapter: Adapter, found: Found, choice: Choice) -> Choice:
    """A tied model whose token table a ``modules_to_save`` copy replaces: PEFT swaps the input module only, so the
    output head keeps the base's table and the merged model is untied (merge_and_unload says so and sets
    tie_word_embeddings = False), unless the adapter asked for ``ensure_weight_tying``."""
    e = adapter.edits.get(choice.token)
    tied = found.recipe.tied if found.recipe is not None else bool(found.tied_hint) and choice.output is None
    if e is None or e.kind != "modules_to_save" or not tied or adapter.config.get("ensure_weight_tying"):
        return choice
    key = f"{choice.token} (base)"
    found.add(key, found.shapes[choice.token], found.dtypes[choice.token], adapter.base_readers[choice.token])
    if found.recipe is not None:
        found.recipe = replace(found.recipe, tied=False)
    found.tied_hint = False
    return replace(choice, output=key, output_why=Msg(
        "the base's {name}: the adapter's modules_to_save copy replaces the input table only, and the output head keeps "
        "the base's table, so the merged model is untied", name=choice.token))


def note_untouched(adapter: Adapter, found: Found, tables: list[str | None]) -> None:
    """When the adapter changes none of the tables shown, the card says so, and what it does change."""
    if not any(t in adapter.edits for t in tables if t):
        changed = sorted(adapter.edits) or sorted(adapter.tensors.shapes)
        found.notes.append(Msg("the adapter {name} leaves the embedding tables as the base has them; it changes {n:,} "
                               "other tensors ({keys})", name=adapter.folder.name, n=len(changed),
                               keys=", ".join(changed[:4]) + (", …" if len(changed) > 4 else "")))


def find_base(folder: Path, config: dict, confine: Path | None) -> Path:
    """The base model folder of an adapter: the folder it was saved in, else ``base_model_name_or_path`` beside it or
    in the checkpoint folder (``confine``), as a whole name or its last part."""
    named = config.get("base_model_name_or_path")
    named = named if isinstance(named, str) and named and "\x00" not in named else None
    roots = [folder.parent] + ([confine] if confine is not None else [])
    candidates = [folder.parent]
    relative = named is not None and not Path(named).is_absolute() and ".." not in Path(named).parts
    if named is not None and Path(named).name not in ("", ".", ".."):  # an absolute path: where it was, not here
        for root in roots:
            candidates += ([root / named] if relative else []) + [root / Path(named).name]
    for c in candidates:
        if confine is not None and not (c.resolve() == confine.resolve() or confine.resolve() in c.resolve().parents):
            continue
        if c.is_dir() and (c / "config.json").is_file() and not is_adapter_folder(c) and c.resolve() != folder.resolve():
            return c
    raise CheckpointError("{name} is a PEFT adapter ({kind}) for the base model '{base}', which was not found: expected "
                          "the base model's folder (config.json and weights) as the adapter's parent folder, beside it, "
                          "or in the checkpoint folder under that name", name=folder.name,
                          kind=str(config.get("peft_type", "?")),
                          base=(named if relative else Path(named).name) if named else "?")


def describe_changes(folder: Path, base: Path) -> dict:
    """What the adapter in ``folder`` changes in its base model folder ``base``, JSON-ready: per tensor its kind
    (``modules_to_save``, ``lora``, ``trainable_tokens``), its role (``token``, ``position``, ``output`` or null) and,
    for the embedding tables, the ids of the rows it changed."""
    adapter = open_adapter(folder)
    found = Found(format=Msg("unknown"), file=str(base))
    hf_folder.read(base, found)
    choice = choose_tables(found)
    roles = {k: r for k, r in ((choice.position, "position"), (choice.output, "output"), (choice.token, "token")) if k}
    changes = []
    for key, e in sorted(plan(adapter, set(found.shapes)).items()):
        entry = {"tensor": key, "kind": e.kind, "role": roles.get(key), "scale": e.lora[2] if e.lora else None,
                 "rows": None}
        if key in roles:
            before = np.asarray(found.readers[key]())
            entry["rows"] = changed_rows(before, merged(adapter, e, before)).tolist()
        changes.append(entry)
    return {"folder": folder.name, "peft_type": adapter.peft_type, "modules_to_save": adapter.config.get("modules_to_save"),
            "trainable_token_indices": adapter.config.get("trainable_token_indices"), "changes": changes}
