"""A Hugging Face model folder: config.json, weights (model.safetensors, pytorch_model.bin or
shards with an index), and tokenizer.json or vocab.txt."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import CheckpointError
from ..i18n import Msg
from ..tokenizer import TOKENIZER_FILES
from ..tokenizer.files import GPT2_PAIR
from . import architectures, safetensors_file, torch_file
from .folder import SHARD
from .tables import Found

ROPE_TYPES = {"llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "phi3", "mixtral"}
HEAD_WORDS = ("LMHead", "CausalLM", "ForMaskedLM")
FAMILIES = {"gpt2": "GPT-2", "bert": "BERT", "llama": "Llama"}
INDEX_FILES = ("model.safetensors.index.json", "pytorch_model.bin.index.json")


def read_config(folder: Path) -> dict:
    p = folder / "config.json"
    if not p.is_file():
        return {}
    try:
        cfg = json.loads(p.read_text())
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise CheckpointError("{path} is not valid JSON: {detail}", path=str(p), detail=str(exc)) from exc
    return cfg if isinstance(cfg, dict) else {}


def read(folder: Path, found: Found) -> None:
    """Collect the folder's tensors; hints from config.json (tied, RoPE)."""
    cfg = read_config(folder)
    model_type = cfg.get("model_type", "unknown")
    found.format = Msg("Hugging Face folder ({model_type})", model_type=str(model_type))
    read_weights(folder, found)
    read_step(folder, found)
    apply_config(cfg, found)


def config_beside(path: Path, found: Found, confine: Path | None = None) -> None:
    """A lone weights file (``model.safetensors``, ``pytorch_model.bin``: an upload with its companions, or a file
    picked in a folder) read with the Hugging Face ``config.json`` beside it, as the folder would be: the tables
    transformers' class names, tied or not (``save_pretrained`` leaves a tied head out of the file). A config.json
    that names no model_type, lies outside ``confine``, or whose class takes its token table from a tensor the file
    lacks, is left unread, with a note."""
    p = path.parent / "config.json"
    if not p.is_file() or (confine is not None and confine.resolve() not in p.resolve().parents):
        return
    try:
        cfg = read_config(path.parent)
    except CheckpointError:
        cfg = {}
    if not isinstance(cfg.get("model_type"), str):
        return
    trial = Found(format=found.format, file=found.file, shapes=dict(found.shapes))
    apply_config(cfg, trial)
    rec = trial.recipe
    if rec is not None and architectures.resolve_key(rec.token, rec.shapes.get(rec.token[0]), found.shapes,
                                                     set()) is None:
        found.notes.append(Msg("config.json beside {name} describes a model whose token table ({table}) is not in the "
                               "file; it was left unread", name=path.name, table=rec.token[0]))
        return
    apply_config(cfg, found)
    found.notes.append(Msg("read with the config.json beside {name}", name=path.name))


LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers")  # BERT, GPT-2, DistilBERT / MPT, GPT-Neo / T5


def _count(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def layer_count(cfg: dict) -> int | None:
    """The model's blocks: an encoder-decoder's encoder and decoder layers together (BART: encoder_layers +
    decoder_layers; ProphetNet: num_encoder_layers + num_decoder_layers; T5: num_layers + num_decoder_layers), else the
    first of LAYER_KEYS config.json has."""
    for e, d in (("encoder_layers", "decoder_layers"), ("num_encoder_layers", "num_decoder_layers")):  # BART; ProphetNet
        enc, dec = _count(cfg.get(e)), _count(cfg.get(d))
        if enc is not None and dec is not None:
            return enc + dec
    own = next((_count(cfg[k]) for k in LAYER_KEYS if _count(cfg.get(k)) is not None), None)
    if own is not None and cfg.get("is_encoder_decoder") and _count(cfg.get("num_decoder_layers")) is not None:
        return own + cfg["num_decoder_layers"]
    return own


def apply_config(cfg: dict, found: Found) -> None:
    """What config.json says about the tensors already collected: layers, heads, family, init, the recipe, tying,
    positions."""
    model_type = cfg.get("model_type", "unknown")
    layers = layer_count(cfg)
    if layers is not None:
        found.config["layers"] = layers
    if "num_attention_heads" in cfg or "n_head" in cfg:
        found.config["heads"] = cfg.get("num_attention_heads", cfg.get("n_head"))
    found.config["family"] = FAMILIES.get(model_type, str(model_type))
    if isinstance(cfg.get("initializer_range"), float):  # the init the model's own code used
        found.config["init_std"] = cfg["initializer_range"]
    if cfg:
        found.recipe, why = architectures.recipe(cfg, found.shapes)
        if why is not None:
            found.assumptions.append(why)
        if found.recipe is not None and found.recipe.unstated is not None:
            found.warnings.append(Msg("the input to block 1 cannot be stated for {cls}: {reason}",
                                      cls=found.recipe.model_class, reason=found.recipe.unstated))
    archs = " ".join(cfg.get("architectures") or [])
    tie = cfg.get("tie_word_embeddings", model_type not in ROPE_TYPES)
    found.tied_hint = bool(tie) and any(w in archs for w in HEAD_WORDS)
    found.position_kind_hint = "rope" if model_type in ROPE_TYPES or "rope_theta" in cfg else None
    if cfg:
        found.notes.append(Msg("config.json: model_type = {model_type}, architectures = {archs}, tie_word_embeddings = "
                               "{tie}", model_type=str(model_type), archs=archs or "—",
                               tie=str(cfg.get("tie_word_embeddings", "—"))))


def read_weights(folder: Path, found: Found) -> None:
    """The folder's weights: model.safetensors, pytorch_model.bin, the shards of an index, or a variant."""
    index = next((folder / n for n in INDEX_FILES if (folder / n).is_file()), None)
    variants = sorted(p for p in folder.glob("model.*.safetensors") if not SHARD.match(p.name))  # save_pretrained(variant=)
    variant_index = sorted(folder.glob("model.safetensors.index.*.json")) + sorted(
        folder.glob("pytorch_model.bin.index.*.json"))
    if (folder / "model.safetensors").is_file():
        safetensors_file.read(folder / "model.safetensors", found)
    elif (folder / "pytorch_model.bin").is_file():
        torch_file.read(folder / "pytorch_model.bin", found)
    elif index is not None or variant_index:
        index = index or variant_index[0]
        try:
            shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise CheckpointError("{name} has no weight_map: {detail}", name=index.name, detail=str(exc)) from exc
        for shard in shards:
            p = (folder / str(shard)).resolve()
            if p.parent != folder.resolve() or not p.is_file():
                raise CheckpointError("{name} names a shard '{shard}' that is not a file in the folder", name=index.name,
                                      shard=str(shard))
            (safetensors_file.read if p.suffix == ".safetensors" else torch_file.read)(p, found)
        found.notes.append(Msg("{n} weight shards", n=len(shards)))
    elif variants:
        safetensors_file.read(variants[0], found)
        found.notes.append(Msg("weights from {name} (a variant that save_pretrained(variant=…) writes)",
                               name=variants[0].name))
    else:
        raise CheckpointError("{name}/ has no weights: expected model.safetensors, pytorch_model.bin or a sharded index "
                              "beside config.json", name=folder.name)


CHECKPOINT_DIR = re.compile(r"^checkpoint-(\d+)$")  # what transformers' Trainer writes


def read_step(folder: Path, found: Found) -> None:
    """The training step of a Trainer checkpoint: trainer_state.json's global_step, else the folder's name."""
    state = folder / "trainer_state.json"
    if state.is_file() and state.stat().st_size < 50_000_000:
        try:
            step = json.loads(state.read_text()).get("global_step")
        except (ValueError, UnicodeDecodeError, AttributeError, RecursionError):
            step = None
        if isinstance(step, int) and not isinstance(step, bool):
            found.step = step
            found.notes.append(Msg("trainer_state.json: global_step = {step:,}", step=step))
            return
    m = CHECKPOINT_DIR.match(folder.name)
    if m:
        found.step = int(m.group(1))
        found.assumptions.append(Msg("the training step {step:,} is taken from the folder's name", step=found.step))


def tokenizer_beside(folder: Path, stem: str | None = None) -> Path | list[Path] | None:
    """``<stem>.tokenizer.json`` when a stem is given, else the first of TOKENIZER_FILES in the folder, else GPT-2's
    vocab.json with its merges.txt (a list of the two)."""
    names = ((f"{stem}.tokenizer.json",) if stem else ()) + TOKENIZER_FILES
    one = next((folder / n for n in names if (folder / n).is_file()), None)
    pair = [folder / n for n in GPT2_PAIR]
    return one if one is not None or not all(p.is_file() for p in pair) else pair
