"""Where a Hugging Face model keeps its first layer, asked of ``transformers`` itself.

``config.json`` is read with transformers' own config classes and the model class is built on the
meta device (no weights allocated). Its input and output embedding modules, and the modules around
them that shape what block 1 receives (position table, token-type table, LayerNorm, scale,
projections), give parameter names; ``resolve`` then finds each one among the file's own keys
(exact, then by suffix, then by shape), because a file's keys can differ from the module's names
(GPT-NeoX's ``lm_head.weight`` is ``embed_out.weight`` on disk). Nothing from the file is executed:
no remote code, no pickles; only the JSON config is given to transformers.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..i18n import N_, Msg

ALIBI_TYPES = ("bloom", "mpt")  # families whose attention always uses ALiBi
OWN_NORMS = ("layernorm_embedding", "word_embeddings_layernorm")  # BART, BLOOM: a norm right after the lookup
EMBEDDINGS_NORMS = ("LayerNorm", "norm")  # inside a BERT-style *Embeddings module
POSITION_NAMES = ("position_embeddings", "wpe", "embed_positions", "position_embedding", "positions_embed")
SCALE_NAMES = ("embed_scale", "embedding_multiplier", "embedding_scale")  # a float on the lookup's owner (Marian, Granite)
NORM_FIRST = ("nanochat",)  # the model's own norm applied once before the layers too (NanoChatModel.forward)
PROJECT_OUT_NAMES = ("embedding_hidden_mapping_in", "embeddings_project")  # ALBERT; ELECTRA, ConvBERT


@dataclass(frozen=True)
class Norm:
    weight: str | None  # None: a norm without weights (NanoChat's RMSNorm, like ANDREA's)
    bias: str | None
    eps: float
    rms: bool = False
    affine_only: bool = False  # MobileBERT's NoNorm: x·weight + bias, nothing normalised


@dataclass(frozen=True)
class Linear:
    weight: str  # (out, in)
    bias: str | None


@dataclass(frozen=True)
class Recipe:
    """What transformers' model class says about the first layer; names are the module's parameter names."""

    model_type: str
    model_class: str
    token: tuple[str, ...]  # every name of the input embedding's weight (tied aliases too)
    output: tuple[str, ...]  # the output projection's names; () when the class has none
    tied: bool
    position: str | None = None  # a learned position table
    position_offset: int = 0  # rows before position 0 (RoBERTa, OPT, BART: 2)
    decoder_position: str | None = None  # an encoder-decoder's second table (BART)
    position_kind: str = "none"
    sinusoid: tuple | None = None  # (style, rows, d, first): fixed sin/cos rows computed, not read (see sinusoid_rows)
    position_reason: Msg = field(default_factory=lambda: Msg("no position table and no position scheme in config.json"))
    token_type: str | None = None  # row 0 of it is added (BERT family)
    norm: Norm | None = None
    scale: float | None = None  # the lookup is multiplied by it (Gemma: √d)
    project_in: Linear | None = None  # applied to the token rows before positions are added (OPT)
    project_out: Linear | None = None  # applied after the norm (ALBERT's embedding_hidden_mapping_in)
    trigram: bool = False  # MobileBERT's trigram_input: [tok[t+1], tok[t], tok[t-1]] before project_in
    unstated: Msg | None = None  # why the block-1 input of this class cannot be stated from these steps (UNSTATED)
    saved: dict = field(default_factory=dict)  # module name -> the name save_pretrained writes, where they differ
    shared: bool = False  # one table for encoder and decoder (T5, BART)
    total_params: int = 0  # 0: not known from the class (a template's recipe); the file's own count is used
    shapes: dict = field(default_factory=dict)  # name -> shape of every parameter named above

    @property
    def extra_names(self) -> list[str]:
        names = [self.token_type]
        if self.norm:
            names += [self.norm.weight, self.norm.bias]
        for lin in (self.project_in, self.project_out):
            if lin:
                names += [lin.weight, lin.bias]
        return [n for n in names if n]


# Classes whose forward does, between the lookup and block 1, something the steps of a BlockInput do not say (found by
# tests/unit/test_block1_truth.py, which compares every class transformers builds with its own hidden_states[0]): for
# them the app states no formula and computes no x, and the card says why.
UNSTATED = {
    "layoutlm": N_("LayoutLM adds four more rows for each token's bounding box (x, y, width, height)"),
    "tapas": N_("TAPAS adds seven token-type rows per token (segment, column, row, rank …)"),
    "pegasus_x": N_("PEGASUS-X pads the sequence to its block size and adds global tokens before block 1"),
    **dict.fromkeys(("bigbird_pegasus", "prophetnet", "mamba", "falcon_mamba", "muse_glimmer_text"), N_(
        "its forward computes the input to block 1 in a way the app's steps do not reproduce (checked on a tiny model "
        "of the class)")),
}


def _names_of(model, param) -> tuple[str, ...]:
    return tuple(n for n, p in model.named_parameters(remove_duplicate=False) if p is param)


def _owner(name: str) -> str:
    """The module path holding a parameter's module: 'bert.embeddings.word_embeddings.weight' -> 'bert.embeddings'."""
    return name.rsplit(".", 2)[0] if name.count(".") >= 2 else ""


def _child(modules: dict, owner: str, name: str):
    return modules.get(f"{owner}.{name}" if owner else name)


def _rope_reason(cfg) -> Msg | None:
    """RoPE named by the config: rope_theta (top level, or nested in rope_parameters), rotary_dim, rotary_pct; the
    reason quotes the config's own names and values."""
    params = getattr(cfg, "rope_parameters", None)
    params = params if isinstance(params, dict) else {}
    found = {}
    for key in ("rope_theta", "rotary_emb_base", "rotary_dim", "rotary_pct", "partial_rotary_factor"):
        value, name = getattr(cfg, key, None), key
        if value is None and params.get(key) is not None:
            value, name = params[key], f"rope_parameters.{key}"
        if isinstance(value, int | float) and not (key in ("rotary_pct", "partial_rotary_factor") and float(value) == 1.0):
            found[name] = value
    if not found:
        return None
    what = ", ".join(f"{k} = {float(v):g}" for k, v in found.items())
    return Msg("RoPE: queries and keys are rotated inside attention, nothing is added to x (config.json: {what})",
               what=what)


def _position(cfg, model, modules: dict, owners: list[str], kinds: list[str]) -> dict:
    """The position table and kind, with the reason the card gives."""
    import torch

    for owner in owners:
        for name in POSITION_NAMES:
            mod = _child(modules, owner, name)
            if mod is not None and "Sinusoidal" in type(mod).__name__:
                return _sinusoidal(cfg, mod, f"{owner}.{name}" if owner else name)
            if isinstance(mod, torch.nn.Embedding):
                offset = int(getattr(mod, "offset", 0) or 0)
                own = modules.get(owner)
                if not offset and hasattr(own, "padding_idx") and "Roberta" in type(own).__name__ + type(model).__name__:
                    offset = int(own.padding_idx) + 1  # RoBERTa numbers positions from padding_idx + 1
                elif not offset and isinstance(getattr(own, "position_ids", None), torch.Tensor):
                    offset = _first_position_id(own, cfg)  # MRA, YOSO, Nyströmformer: arange(T) + 2
                if not offset and getattr(own, "padding_idx", None) is not None and (hasattr(
                        own, "create_position_ids_from_input_ids") or hasattr(own, "create_position_ids_from_inputs_embeds")):
                    offset = int(own.padding_idx) + 1
                out = {"position": f"{owner}.{name}.weight" if owner else f"{name}.weight", "position_offset": offset,
                       "position_kind": "learned"}
                T = mod.weight.shape[0] - offset
                out["position_reason"] = (Msg("learned: {name}, rows {first} to {last} hold positions 0 to {T1} (an offset "
                                              "of {offset} rows, as {cls} numbers them)", name=out["position"],
                                              first=offset, last=mod.weight.shape[0] - 1, T1=T - 1, offset=offset,
                                              cls=type(mod).__name__ if getattr(mod, "offset", 0) else type(own).__name__)
                                          if offset else Msg("learned: {name}, one row per position 0 to {T1}",
                                                             name=out["position"], T1=T - 1))
                return out
    ctrl = next((modules[o] for o in owners if isinstance(getattr(modules.get(o), "pos_encoding", None), torch.Tensor)),
                None)
    if ctrl is not None and cfg.model_type == "ctrl":  # CTRL's fixed table is a buffer of CTRLModel
        rows, d = ctrl.pos_encoding.shape
        return {"position_kind": "sinusoidal", "sinusoid": ("halves", int(rows), int(d), 0), "position_reason": Msg(
            "sinusoidal: {name}, {rows:,} fixed rows of sines then cosines, computed from the formula (not trained, "
            "not stored in the file); position t is row {first} + t", name="pos_encoding", rows=int(rows), first=0)}
    attn = getattr(cfg, "attn_config", None)
    alibi = bool(getattr(cfg, "alibi", False)) or cfg.model_type in ALIBI_TYPES or bool(
        getattr(attn, "alibi", False) if not isinstance(attn, dict) else attn.get("alibi"))
    if alibi:
        return {"position_kind": "alibi", "position_reason": Msg(
            "ALiBi: each attention score gets a penalty that grows with the distance between query and key; nothing is "
            "added to x ({model_type})", model_type=cfg.model_type)}
    if any("relative_attention_bias" in n for n in modules):
        buckets = getattr(cfg, "relative_attention_num_buckets", None)
        return {"position_kind": "relative", "position_reason": Msg(
            "relative: learned biases for {buckets} buckets of query-key distance, in layer 0's attention and shared "
            "by the layers after it; nothing is added to x", buckets=buckets if buckets is not None else "?")}
    if getattr(cfg, "relative_attention", False) and getattr(cfg, "model_type", "").startswith("deberta"):
        return {"position_kind": "relative", "position_reason": Msg(
            "relative: DeBERTa's disentangled attention scores each query-key pair with learned embeddings of their "
            "distance ({buckets} buckets, pos_att_type = {types}); nothing is added to x",
            buckets=getattr(cfg, "position_buckets", None) or getattr(cfg, "max_relative_positions", "?"),
            types=", ".join(getattr(cfg, "pos_att_type", None) or []) or "—")}
    rope = _rope_reason(cfg)
    if rope is not None or any("Rotary" in k for k in kinds):
        return {"position_kind": "rope", "position_reason": rope or Msg(
            "RoPE: the model class {cls} holds a rotary embedding; queries and keys are rotated inside attention",
            cls=type(model).__name__)}
    return {}


def _first_position_id(own, cfg) -> int:
    """The first entry of an embedding module's position_ids buffer (the row position 0 reads), from the module built
    on the CPU with a copy of the config shrunk to a few token and position rows; 0 when it cannot be built so."""
    import copy

    import torch

    small = copy.deepcopy(cfg)
    for key, value in (("vocab_size", 8), ("pad_token_id", 0), ("max_position_embeddings", 4)):  # small, never large
        if getattr(small, key, None) is not None:
            setattr(small, key, value)
    try:
        with torch.device("cpu"):
            built = type(own)(small)
        ids = getattr(built, "position_ids", None)
        return int(ids.reshape(-1)[0]) if isinstance(ids, torch.Tensor) and ids.numel() else 0
    except Exception:  # an embedding module whose constructor takes more than the config
        return 0


def _sinusoidal(cfg, mod, name: str) -> dict:
    """A fixed sin/cos table: Marian's and Pegasus's (an Embedding of sines then cosines, position t at row t) or
    fairseq's (XGLM's rows from 2, M2M100's and NLLB's from padding_idx + 1)."""
    import torch

    weight = mod.weight if isinstance(mod, torch.nn.Embedding) else getattr(mod, "weights", None)
    if not isinstance(weight, torch.Tensor) or weight.ndim != 2:  # computed inside its forward (PEGASUS-X)
        return {"position_kind": "sinusoidal", "position_reason": Msg(
            "sinusoidal: {name} computes its sines and cosines inside the model's forward; nothing is stored", name=name)}
    rows, d = (int(n) for n in weight.shape)
    if isinstance(mod, torch.nn.Embedding):
        style, first = "halves", 0
    elif getattr(mod, "padding_idx", None) is not None and hasattr(mod, "create_position_ids_from_input_ids"):
        style, first = "fairseq", int(mod.padding_idx) + 1
    else:
        style, first = "fairseq", int(getattr(mod, "offset", 0) or 0)
    return {"position_kind": "sinusoidal", "sinusoid": (style, rows, d, first), "position_reason": Msg(
        "sinusoidal: {name}, {rows:,} fixed rows of sines then cosines, computed from the formula (not trained, "
        "not stored in the file); position t is row {first} + t", name=name, rows=rows, first=first)}


def sinusoid_rows(sinusoid: tuple) -> np.ndarray:
    """The rows position 0, 1, … read from a fixed sin/cos table (``Recipe.sinusoid``), float32.

    halves (Marian, Pegasus, CTRL): angle(p, j) = p / 10000^(2⌊j/2⌋/d); the first half of the columns are the sines of
    the even j, the second half the cosines of the odd j.
    fairseq (XGLM, M2M100, NLLB): f_k = exp(-k·ln(10000)/(d/2 - 1)), k < d/2; sines of p·f_k, then cosines.
    """
    style, rows, d, first = sinusoid
    p = np.arange(rows, dtype=np.float64)[:, None]
    if style == "halves":
        j = np.arange(d)
        angle = p / np.power(10000.0, 2 * (j // 2) / d)
        table = np.concatenate([np.sin(angle[:, 0::2]), np.cos(angle[:, 1::2])], axis=1)
    else:
        half = d // 2
        f = np.exp(np.arange(half, dtype=np.float32) * np.float32(-np.log(10000.0) / (half - 1)))  # as fairseq: float32
        angle = p.astype(np.float32) * f[None, :]  # float32 throughout, as the model's own buffer is made
        table = np.concatenate([np.sin(angle), np.cos(angle)] + ([np.zeros((rows, 1), np.float32)] if d % 2 else []),
                               axis=1)
    return np.ascontiguousarray(table[first:], np.float32)


def _norm_names(mod, name: str) -> Norm:
    bias = getattr(mod, "bias", None)
    eps = getattr(mod, "eps", getattr(mod, "variance_epsilon", 1e-5))
    return Norm(f"{name}.weight" if getattr(mod, "weight", None) is not None else None, f"{name}.bias" if bias is not None else None, float(eps), "RMS" in type(mod).__name__,
                type(mod).__name__ == "NoNorm")


def _linear_names(mod, name: str) -> Linear:
    return Linear(f"{name}.weight", f"{name}.bias" if getattr(mod, "bias", None) is not None else None)


def _model_class(cfg, keys: frozenset[str]):
    import transformers

    for arch in getattr(cfg, "architectures", None) or []:
        cls = getattr(transformers, str(arch), None)
        if isinstance(cls, type) and issubclass(cls, transformers.PreTrainedModel):  # a model class, nothing else
            return cls
    if any(k.endswith(("lm_head.weight", "embed_out.weight")) for k in keys):
        for auto in (transformers.AutoModelForCausalLM, transformers.AutoModelForSeq2SeqLM):
            try:
                return auto._model_mapping[type(cfg)]
            except KeyError:
                continue
    return transformers.AutoModel._model_mapping[type(cfg)]


@lru_cache(maxsize=64)
def _recipe(config_json: str, keys: frozenset[str]) -> Recipe:
    import torch
    import transformers

    raw = json.loads(config_json)
    model_type = raw.pop("model_type")
    cfg = transformers.AutoConfig.for_model(model_type, **raw)
    cls = _model_class(cfg, keys)
    with torch.device("meta"):
        model = cls(cfg)
    ie, oe = model.get_input_embeddings(), model.get_output_embeddings()
    token = _names_of(model, ie.weight)
    tied = oe is not None and oe.weight is ie.weight
    output = () if oe is None else _names_of(model, oe.weight)
    modules = dict(model.named_modules())
    kinds = [type(m).__name__ for m in modules.values()]
    owners = [_owner(n) for n in token]
    owners = sorted(dict.fromkeys(owners), key=lambda o: ("decoder" in o, o.count(".") == 0))  # encoder first
    found: dict = {}
    found.update(_position(cfg, model, modules, owners, kinds))
    if found.get("position"):
        dec = found["position"].replace("encoder", "decoder")
        if dec != found["position"] and dec.rsplit(".", 1)[0] in modules:
            found["decoder_position"] = dec
    for name, mod in modules.items():
        leaf = name.rsplit(".", 1)[-1]
        if leaf == "token_type_embeddings" and "token_type" not in found:
            found["token_type"] = f"{name}.weight"
        if leaf in PROJECT_OUT_NAMES and "project_out" not in found:
            found["project_out"] = _linear_names(mod, name)
    for owner in owners:
        own = modules.get(owner)
        for leaf in OWN_NORMS + (EMBEDDINGS_NORMS if type(own).__name__.endswith("Embeddings") else ()):
            mod = _child(modules, owner, leaf)
            if mod is not None and "norm" not in found:
                found["norm"] = _norm_names(mod, f"{owner}.{leaf}" if owner else leaf)
        proj = _child(modules, owner, "projection") if type(own).__name__.endswith("Embeddings") else None
        if proj is not None and "project_out" not in found and isinstance(getattr(proj, "weight", None), torch.Tensor):
            found["project_out"] = _linear_names(proj, f"{owner}.projection")  # FNet: after the LayerNorm
        if model_type in NORM_FIRST and _child(modules, owner, "norm") is not None and "norm" not in found:
            found["norm"] = _norm_names(_child(modules, owner, "norm"), f"{owner}.norm" if owner else "norm")
        proj = _child(modules, owner, "project_in")
        if proj is not None and "project_in" not in found:
            found["project_in"] = _linear_names(proj, f"{owner}.project_in")
        trans = _child(modules, owner, "embedding_transformation")  # MobileBERT: applied when its forward says so
        if trans is not None and "project_in" not in found and (getattr(own, "trigram_input", False) or getattr(
                own, "embedding_size", None) != getattr(own, "hidden_size", None)):
            found["project_in"] = _linear_names(trans, f"{owner}.embedding_transformation")
            found["trigram"] = bool(getattr(own, "trigram_input", False))
    scale = getattr(ie, "scalar_embed_scale", getattr(ie, "embed_scale", None))
    for owner in owners:  # a factor the model's forward applies after the lookup (Marian's encoder √d, Granite's ×12)
        own = modules.get(owner)
        for name in SCALE_NAMES:
            value = getattr(own, name, None)
            if not isinstance(scale, int | float) and isinstance(value, int | float) and not isinstance(value, bool):
                scale = value
    if cfg.model_type == "ctrl":  # CTRLModel.forward: inputs_embeds *= np.sqrt(self.d_model_size)
        scale = float(np.sqrt(cfg.n_embd))
    if isinstance(scale, int | float) and float(scale) != 1.0:
        found["scale"] = float(scale)
    if model_type in UNSTATED:
        found["unstated"] = Msg(UNSTATED[model_type])
    rec = Recipe(model_type=model_type, model_class=cls.__name__, token=token, output=output, tied=tied,
                 shared=any(".encoder." in f".{n}" for n in token) and any(".decoder." in f".{n}" for n in token), **found,
                 total_params=sum(p.numel() for p in model.parameters()))
    params = dict(model.named_parameters(remove_duplicate=False))
    wanted = [*rec.token, *rec.output, rec.position, rec.decoder_position, *rec.extra_names]
    saved = {n: _saved_name(model_type, n) for n in wanted if n}
    return Recipe(**{**rec.__dict__, "shapes": {n: tuple(params[n].shape) for n in wanted if n in params},
                     "saved": {n: s for n, s in saved.items() if s != n}})


def _saved_name(model_type: str, name: str) -> str:
    """The key save_pretrained writes for a parameter: transformers' checkpoint renames for the type, undone (NomicBERT
    and Jina v3 save embeddings.LayerNorm as emb_ln). Only plain-name renames; a regular expression is left alone."""
    import re

    try:
        from transformers.conversion_mapping import get_checkpoint_conversion_mapping
        renames = get_checkpoint_conversion_mapping(model_type) or []
    except Exception:  # an older transformers without conversion mappings
        return name
    for rename in renames:
        pairs = zip(getattr(rename, "source_patterns", None) or [], getattr(rename, "target_patterns", None) or [],
                    strict=False)
        for src, tgt in pairs:
            if type(rename).__name__ == "WeightRenaming" and all(re.fullmatch(r"[\w.]+", p or "") for p in (src, tgt)) \
                    and re.search(rf"(^|\.){re.escape(tgt)}(\.|$)", name):
                name = re.sub(rf"(^|\.){re.escape(tgt)}(\.|$)", lambda m, s=src: f"{m.group(1)}{s}{m.group(2)}", name)
    return name


# Decoder-only classes whose first layer transformers builds the same way whatever the sizes: the token table
# model.embed_tokens, the output lm_head (tied when config.json says so), RoPE and nothing around the lookup. Their
# recipe is written here from config.json alone, without importing transformers (4-5 s and ~150 MB per process);
# tests/unit/test_big_tables.py checks it against the class transformers builds, tied and untied.
ROPE_DECODERS = {"LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "Qwen2ForCausalLM": "qwen2"}
TOKEN_NAME, HEAD_NAME = "model.embed_tokens.weight", "lm_head.weight"


def template_recipe(cfg: dict) -> Recipe | None:
    """The recipe of a config whose class is one of ROPE_DECODERS, or None (ask transformers)."""
    from types import SimpleNamespace

    archs = cfg.get("architectures")
    V, d = cfg.get("vocab_size"), cfg.get("hidden_size")
    if not (isinstance(archs, list) and len(archs) == 1 and ROPE_DECODERS.get(archs[0]) == cfg.get("model_type")
            and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in (V, d))):
        return None
    tied = bool(cfg.get("tie_word_embeddings", False))
    names = (TOKEN_NAME, HEAD_NAME) if tied else (TOKEN_NAME,)
    reason = _rope_reason(SimpleNamespace(**{k: v for k, v in cfg.items() if isinstance(k, str)})) or Msg(
        "RoPE: the model class {cls} holds a rotary embedding; queries and keys are rotated inside attention",
        cls=archs[0])
    return Recipe(model_type=cfg["model_type"], model_class=archs[0], token=names, output=names if tied else (HEAD_NAME,),
                  tied=tied, position_kind="rope", position_reason=reason,
                  shapes={n: (V, d) for n in (TOKEN_NAME, HEAD_NAME)})


MAX_LAYERS = 1_000  # the deepest config whose model class is built (the largest real models have about 130 layers)
KNOWN_FILE = Path(__file__).with_name("known_recipes.json")  # generated: python -m andrea_viz.checkpoints.architectures


def digest(cfg: dict, keys) -> str:
    """The key of a config and a file's tensor names in the table of known recipes."""
    text = json.dumps(cfg, sort_keys=True) + "\n" + "\n".join(sorted(keys))
    return hashlib.sha256(text.encode()).hexdigest()


def recipe_to_json(rec: Recipe) -> dict:
    out = asdict(rec)
    out["position_reason"] = {"msgid": rec.position_reason.msgid, "params": rec.position_reason.params}
    out["shapes"] = {k: list(v) for k, v in rec.shapes.items()}
    if rec.unstated is not None:
        out["unstated"] = {"msgid": rec.unstated.msgid, "params": rec.unstated.params}
    return out


def recipe_from_json(d: dict) -> Recipe:
    d = dict(d)
    msgid, params = d["position_reason"]["msgid"], d["position_reason"]["params"]  # a msgid written in this module
    d["position_reason"] = Msg(msgid, **params)
    d["token"], d["output"] = tuple(d["token"]), tuple(d["output"])
    d["shapes"] = {k: tuple(v) for k, v in d["shapes"].items()}
    d["norm"] = Norm(**d["norm"]) if d["norm"] else None
    d["project_in"] = Linear(**d["project_in"]) if d["project_in"] else None
    d["project_out"] = Linear(**d["project_out"]) if d["project_out"] else None
    d["sinusoid"] = tuple(d["sinusoid"]) if d.get("sinusoid") else None
    d["saved"] = dict(d.get("saved") or {})
    if d.get("unstated"):
        why_id, why_params = d["unstated"]["msgid"], d["unstated"]["params"]  # a msgid of UNSTATED
        d["unstated"] = Msg(why_id, **why_params)
    return Recipe(**d)


@lru_cache(maxsize=1)
def known() -> dict[str, dict]:
    """The generated table: digest -> {"config", "keys", "recipe"} for configs people open often (the built-in
    MiniLM), so that opening them needs no transformers import; checked against transformers in the tests."""
    return json.loads(KNOWN_FILE.read_text()) if KNOWN_FILE.is_file() else {}


def recipe(cfg: dict, keys) -> tuple[Recipe | None, Msg | None]:
    """transformers' view of this config (from the generated table when it holds this config and key set, else
    built by transformers and cached per process), or None and the reason it has none."""
    model_type = cfg.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        return None, Msg("config.json names no model_type; tables found by their names")
    entry = known().get(digest(cfg, keys))
    if entry is not None:
        return recipe_from_json(entry["recipe"]), None
    quick = template_recipe(cfg)
    if quick is not None:
        return quick, None
    deep = [k for k, v in cfg.items() if "layer" in k and isinstance(v, int) and not isinstance(v, bool)
            and v > MAX_LAYERS]
    if deep:  # building that many modules, even on the meta device, takes minutes and gigabytes
        return None, Msg("config.json declares {key} = {n:,}, more than the {limit:,} layers a model class is built "
                         "for here; tables found by their names", key=deep[0], n=cfg[deep[0]], limit=MAX_LAYERS)
    try:
        import transformers

        if model_type not in transformers.CONFIG_MAPPING:
            return None, Msg("config.json names the architecture '{model_type}', which transformers {version} does not "
                             "know; tables found by their names", model_type=model_type,
                             version=transformers.__version__)
        return _recipe(json.dumps(cfg, sort_keys=True), frozenset(keys)), None
    except Exception as exc:  # a config transformers refuses: the name rules still read the file
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        return None, Msg("transformers could not build the model class from config.json ({detail}); tables found by "
                         "their names", detail=first)


def resolve_key(names, shape: tuple[int, ...] | None, shapes: dict[str, tuple[int, ...]], taken: set[str]) -> str | None:
    """The file's key for a parameter known by ``names``: an exact name, then a shared suffix (a prefix added or
    dropped on save), then the only untaken 2-D tensor of its shape."""
    names = [n for n in names if n]
    keys = [k for k in shapes if k not in taken]
    for n in names:
        if n in shapes and n not in taken:
            return n
    for n in names:
        hits = [k for k in keys if k.endswith("." + n) or n.endswith("." + k)]
        if len(hits) == 1:
            return hits[0]
    if shape is not None and names:
        leaf = names[0].rsplit(".", 1)[-1]
        hits = [k for k in keys if tuple(shapes[k]) == tuple(shape) and k.endswith(leaf)]
        if len(hits) == 1:
            return hits[0]
    return None



def generate_known(folders: list[Path]) -> dict[str, dict]:
    """Table entries for model folders (config.json and the safetensors' keys), from transformers itself."""
    from safetensors import safe_open

    out = {}
    for folder in folders:
        cfg = json.loads((folder / "config.json").read_text())
        keys = set()
        for f in sorted(folder.glob("*.safetensors")):
            with safe_open(str(f), framework="np") as g:
                keys |= set(g.keys())
        rec = _recipe(json.dumps(cfg, sort_keys=True), frozenset(keys))
        out[digest(cfg, keys)] = {"config": cfg, "keys": sorted(keys), "recipe": recipe_to_json(rec)}
    return out


if __name__ == "__main__":  # python -m andrea_viz.checkpoints.architectures FOLDER ...: rewrite the table
    table = generate_known([Path(a) for a in sys.argv[1:]])
    KNOWN_FILE.write_text(json.dumps(table, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{KNOWN_FILE}: {len(table)} configurations")
