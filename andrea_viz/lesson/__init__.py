"""The lesson, step by step, in its own order: each step's title (the lesson's section), its text in the
lesson's terms, and which model is on screen and why. The app draws each step's widget
(andrea_viz.ui.lesson); every number a step states is computed there, not written here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import lexicon
from ..builtin import MICRO, MICRO_START, micro_name, start_name
from ..errors import QueryError
from ..family import CONTEXT, FAMILY, LAYER_ORDER, count_shape
from ..i18n import Msg, N_, language
from ..lookup import unchanged_rows

SHAPES = "andrea-120m-init"  # sizes and shapes: ANDREA-120M itself, at step 0
TRAINED = MICRO  # geometry: a trained ANDREA, made in this app
LARGE = "minilm-l6"  # beside it: a large trained table of another family
START = MICRO_START  # the same run as TRAINED, at step 0
# TRAINED and START stand for the run in the learner's language: andrea-micro-nl and its step 0 in Dutch (models_of)


def trained_of(language: str | None) -> str:
    """The trained ANDREA a step shows in ``language``: andrea-micro grown on that language's corpus."""
    return micro_name(lexicon.lexicon_language(language))


def start_of(language: str | None) -> str:
    """The same run as ``trained_of(language)``, at step 0."""
    return start_name(lexicon.lexicon_language(language))


def models_of(step: Step, language: str | None) -> tuple[str, ...]:
    """A step's models on screen in ``language``: TRAINED and START become that language's run."""
    swap = {TRAINED: trained_of(language), START: start_of(language)}
    return tuple(swap.get(m, m) for m in step.models)


STEP_WORDS = ("cat", "dog", "pet", "tuesday", "xylophone")  # the words the steps' texts quote, by English name


def params(lang: str | None = None) -> dict[str, int | str]:
    """What the steps' texts quote: ANDREA-120M's sizes from the family, and the lesson's words and its
    order-blindness sentence in ``lang`` (the current language by default), the words its grown model is shown
    with."""
    lang = lang or language()
    s = FAMILY["ANDREA-120M"]
    return {"V": s.V, "d": s.d, "last": s.d - 1, "T": CONTEXT, **{w: lexicon.word(lang, w) for w in STEP_WORDS},
            "sentence": lexicon.order_sentence(lang), "scrambled": lexicon.order_scrambled(lang)}


def why(model: str) -> Msg:
    """Why a step shows this model."""
    if model == SHAPES:
        return Msg("ANDREA-120M's own shapes (V = {V:,}, d_model = {d}, T = {T:,}), as at step 0 of training: the sizes "
                   "here are the lesson's.", **params())
    if lexicon.language_of(model) is not None:
        return Msg("a trained ANDREA: the same layout, grown in this app on a corpus of word classes, so its geometry "
                   "has something to show.")
    if model in {start_of(lang) for lang in lexicon.LANGUAGES}:
        return Msg("the same run at step 0, before any training step: what each row was before backpropagation.")
    return Msg("a large trained table of another family (BERT), beside the small ANDREA.")


@dataclass(frozen=True)
class Step:
    key: str
    title: str  # msgid: the lesson's section title
    text: str  # msgid: what the lesson says, shortly, in its terms
    models: tuple[str, ...]  # the models on screen, first the main one


STEPS: tuple[Step, ...] = (
    Step("lookup", N_("An Embedding Is a Lookup, Not a Function"), N_(
        "A tokenizer gives a model integer ids. The first thing a transformer does is turn each id into a vector of "
        "d_model floats. The embedding layer is a lookup table of shape (V, d_model), not a function: token id i "
        "selects row i. No arithmetic, no activation function: just an index."), (SHAPES,)),
    Step("floats", N_("Trainable Floats"), N_(
        "Every entry starts as a small random float, drawn from a normal distribution scaled by 1/sqrt(d_model). "
        "Backpropagation updates a row each time its token id appears in a batch. After training, similar tokens "
        "({cat}, {dog}, {pet}) end with similar vectors; unrelated tokens ({cat}, {tuesday}, {xylophone}) lie far "
        "apart."),
         (START, TRAINED)),
    Step("cost", N_("ANDREA-120M Token Embedding Cost"), N_(
        "V × d_model parameters sit in the token embedding table alone: every vocabulary entry gets its d_model floats."),
         (SHAPES,)),
    Step("exercise", N_("Sizing Embedding Tables"), N_(
        "Size the token tables of the other two ANDREA models: V rows of d_model floats each."), (SHAPES,)),
    Step("dot", N_("Dot Products Measure Similarity"), N_(
        "Length: ||v|| = sqrt(v_0² + … + v_{last}²). Dot product: u · v = u_0 × v_0 + … + u_{last} × v_{last} = ||u|| × ||v|| × "
        "cos(theta). Same direction: a large positive dot product; opposite: a large negative one; at a right angle: "
        "zero. The dot product is an unnormalised similarity: trained {cat} and {dog} have a high one, {cat} and {tuesday} end "
        "nearly orthogonal. Attention (activity 5) is built from dot products."), (TRAINED, LARGE)),
    Step("attention", N_("Attention, the Next Lesson, in One Picture"), N_(
        "Attention is built from dot products. Each position t makes a query q_t and a key k_t from its x_t; the score "
        "q_i · k_j says how much position i looks at position j. A causal mask lets a position look only at itself and "
        "earlier positions, and a softmax turns each row of scores into weights that sum to 1."), (TRAINED,)),
    Step("predict", N_("Predict Similarity"), N_(
        "Before you look: which of these pairs are close in the trained table? Place each pair, then reveal the real "
        "cosines."), (TRAINED,)),
    Step("positions", N_("ANDREA Uses Learned Position Embeddings"), N_(
        "A token embedding tells a model which word is at a position, not where it is. Without position information a "
        "transformer treats “{sentence}” and “{scrambled}” identically. Three solutions: "
        "sinusoidal (a fixed formula, never trained), RoPE (rotates queries and keys, no parameters, used by LLaMA and "
        "Qwen), and learned (a separate (T, d_model) table trained like the token table)."), (TRAINED, SHAPES)),
    Step("learned", N_("Learned Versus Sinusoidal"), N_(
        "ANDREA inherits learned positions from microGPT, nanoGPT and GPT-2: no special math in attention, its CUDA "
        "engine (microgpt_cuda.cu) treats both lookups the same way with no sin/cos kernels, and a learned table is "
        "enough for a fixed context of T = {T:,}."), (SHAPES, TRAINED)),
    Step("where", N_("Where Embedding Parameters Live"), N_(
        "The token table and the position table together are ANDREA-120M's embedding layer. The lesson says the rest, "
        "“94%”, lives in the transformer blocks (attention and MLP, activities 5 to 7)."), (SHAPES,)),
    Step("tied", N_("Untied vs Tied Embeddings"), N_(
        "Many transformers (GPT-2 among them) tie the token embedding to the final output projection: one V × d_model "
        "matrix for the input and for the logits, which saves V × d_model parameters. ANDREA is untied: the input "
        "embedding and the output projection are trained as separate matrices."), (SHAPES, TRAINED)),
    Step("flow", N_("A Forward Pass So Far"), N_(
        "At each position t: x_t = token_embedding[token_id_t] + position_embedding[t], two d_model-vectors added "
        "element by element. The model never separates them again. A full context of T ids gives a (T, d_model) matrix "
        "x that flows into transformer block 1."), (TRAINED, SHAPES)),
)
# --- what the steps compute (every number a step states) ---

EXAMPLE_IDS = (256, 1842, 7301)  # the lesson's own example ids, rows of ANDREA-120M's (8,449, 768) table
SENTENCE = lexicon.order_sentence(lexicon.ENGLISH)  # the lesson's sentence, tokenized by andrea-micro (others: lexicon)
SOURCE_TYING = ("Press & Wolf 2017, “Using the Output Embedding to Improve Language Models” (EACL 2017, "
                "arXiv:1608.05859)")  # a citation, the same in every language


def nominal_gap(size: str = "ANDREA-120M") -> dict[str, float]:
    """The nominal size split as the layout counts it: embeddings, the untied output table, the blocks,
    and the part of the name that is no parameter at all. The four shares of the nominal add up to 1."""
    s = FAMILY[size]
    pc = count_shape(s)
    return {"embeddings": pc.embeddings / s.nominal, "output": pc.output / s.nominal, "blocks": pc.blocks / s.nominal,
            "none": 1 - pc.total / s.nominal, "computed": pc.total, "nominal": s.nominal}


def x_matrix(emb, ids) -> np.ndarray:
    """x, the (T, d) matrix that enters block 1: row t is token_table[ids[t]] + position_table[t]."""
    ids = np.asarray(ids, dtype=np.int64)
    if emb.position_table is None:
        raise QueryError("this model has no learned position table (positions: {kind})", kind=emb.position_kind)
    if ids.size > emb.position_table.shape[0]:
        raise QueryError("T = {n:,} positions is larger than the position table ({T:,} rows)", n=int(ids.size),
                         T=int(emb.position_table.shape[0]))
    return emb.token_table[ids] + emb.position_table[: ids.size]


def block_weights(emb, layer: int = 0) -> dict[str, np.ndarray]:
    """One layer's six matrices (torch's (out, in) layout) from an ANDREA .bin in microGPT's layout:
    wte, wpe, lm_head, then per layer attn_wq, attn_wk, attn_wv, attn_wo, mlp_fc1, mlp_fc2."""
    path = Path(emb.provenance.file or "")
    V, d, T, L = emb.vocab_size, emb.d_model, emb.context or 0, emb.card.layers
    if not path.is_file() or L is None or emb.output_table is None:
        raise QueryError("the attention weights are read from an untied ANDREA .bin; {name} has none", name=emb.name)
    n = int(np.fromfile(path, "<i4", count=2)[1])
    if n != 2 * V * d + T * d + 12 * L * d * d or not 0 <= layer < L:
        raise QueryError("{name}'s file does not hold layer {layer} in ANDREA's layout", name=emb.name, layer=layer)
    shapes = {"attn_wq": (d, d), "attn_wk": (d, d), "attn_wv": (d, d), "attn_wo": (d, d), "mlp_fc1": (4 * d, d),
              "mlp_fc2": (d, 4 * d)}
    offset = 8 + 4 * (2 * V * d + T * d + layer * 12 * d * d)
    out = {}
    for name in LAYER_ORDER:
        size = shapes[name][0] * shapes[name][1]
        out[name] = np.fromfile(path, "<f4", count=size, offset=offset).reshape(shapes[name])
        offset += 4 * size
    return out


@dataclass(frozen=True)
class AttentionPreview:
    """The next lesson in one picture: one head of the first layer on a sentence."""

    ids: tuple[int, ...]
    head: int
    heads: int
    scores: np.ndarray  # (T, T): q_i · k_j / √d_head
    mask: np.ndarray  # (T, T) bool: position i may look at j ≤ i
    weights: np.ndarray  # (T, T): softmax over the allowed scores, each row sums to 1


def rms_normalised(x: np.ndarray) -> np.ndarray:
    """ANDREA's RMSNorm without weights, as in andrea_viz.grow.model."""
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-6)


def attention_preview(emb, ids, head: int = 0) -> AttentionPreview:
    """q·k scores, the causal mask and the softmax of one head of layer 0, computed from x as the model does:
    h = RMSNorm(x), q = h Wqᵀ, k = h Wkᵀ, split into heads."""
    heads = int(emb.card.heads or 0)
    if heads < 1 or emb.d_model % heads or not 0 <= head < heads:
        raise QueryError("{name} has no head {head}", name=emb.name, head=head)
    w = block_weights(emb, 0)
    h = rms_normalised(x_matrix(emb, ids).astype(np.float64))
    dh = emb.d_model // heads
    cols = slice(head * dh, (head + 1) * dh)
    q, k = (h @ w["attn_wq"].T.astype(np.float64))[:, cols], (h @ w["attn_wk"].T.astype(np.float64))[:, cols]
    scores = q @ k.T / np.sqrt(dh)
    T = scores.shape[0]
    mask = np.tril(np.ones((T, T), dtype=bool))
    allowed = np.where(mask, scores, -np.inf)
    e = np.exp(allowed - allowed.max(axis=1, keepdims=True))
    return AttentionPreview(tuple(int(i) for i in ids), head, heads, scores, mask, e / e.sum(axis=1, keepdims=True))


RELATED = (("cat", "dog"), ("cat", "pet"))  # the lesson's similar pairs (by English name) …
UNRELATED = (("cat", "tuesday"), ("cat", "xylophone"))  # … and its unrelated ones
NEAR_RIGHT_ANGLE = 0.15  # |cos| at most this: the two directions are nearly at a right angle


@dataclass(frozen=True)
class PairChange:
    """One of the lesson's pairs in one run: its cosine at step 0 and after training, on the token table."""

    a: str
    b: str
    before: float
    after: float
    related: bool

    @property
    def verdict(self) -> Msg:
        """What the pair did, said as it is (the words "far apart" only when the cosine ends near 0 or below)."""
        moved = Msg("moved closer") if self.after > self.before else Msg("moved apart")
        values = {"a": self.a, "b": self.b, "before": self.before, "after": self.after, "moved": moved}
        if self.related:
            return Msg("{a} / {b}: cosine {before:+.3f} → {after:+.3f}, {moved}.", **values)
        if abs(self.after) <= NEAR_RIGHT_ANGLE and self.after > self.before:  # closer, yet still far apart: said so
            return Msg("{a} / {b}: {before:+.3f} → {after:+.3f}, a little closer but still nearly at a right angle: far "
                       "apart, as the lesson says.", **values)
        if abs(self.after) <= NEAR_RIGHT_ANGLE:
            return Msg("{a} / {b}: {before:+.3f} → {after:+.3f}, {moved}: nearly at a right angle, far apart as the "
                       "lesson says.", **values)
        if self.after < -NEAR_RIGHT_ANGLE:
            return Msg("{a} / {b}: {before:+.3f} → {after:+.3f}, {moved}: pointing away from each other.", **values)
        return Msg("{a} / {b}: {before:+.3f} → {after:+.3f}, {moved}: not far apart on this small model.", **values)


def _pair_cos(u: np.ndarray, v: np.ndarray) -> float:
    u, v = u.astype(np.float64), v.astype(np.float64)
    return float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))


def pair_changes(start_emb, final_emb, language: str | None) -> list[PairChange]:
    """The lesson's similar and unrelated pairs in ``language``, each word's own row (one id: the lexicon's words
    are single ids of their language's run) compared at step 0 and after training."""
    out = []
    for pairs, related in ((RELATED, True), (UNRELATED, False)):
        for ea, eb in pairs:
            a, b = lexicon.word(language, ea), lexicon.word(language, eb)
            ia, ib = final_emb.tokenizer.encode(a), final_emb.tokenizer.encode(b)
            if len(ia) != 1 or len(ib) != 1:
                raise QueryError("“{a}” and “{b}” must each be one token of {name}", a=a, b=b, name=final_emb.name)
            out.append(PairChange(a, b, _pair_cos(start_emb.token_table[ia[0]], start_emb.token_table[ib[0]]),
                                  _pair_cos(final_emb.token_table[ia[0]], final_emb.token_table[ib[0]]), related))
    return out


@dataclass(frozen=True)
class RowUpdates:
    """Backpropagation updates a row only when its id is an input: the rows still equal to step 0."""

    unmoved: np.ndarray  # ids whose row is bit-for-bit the step-0 row
    never_input: np.ndarray | None  # ids the run's manifest lists as never an input, when it has them
    V: int


def row_updates(start, final) -> RowUpdates:
    """Compare a run's step-0 table with its final one, and with the ids its manifest says never appeared."""
    import json


    unmoved = unchanged_rows(start.token_table, final.token_table)
    manifest = Path(final.provenance.file or "").parent / "run.json"
    never = None
    if manifest.is_file():
        ids = json.loads(manifest.read_text()).get("unseen_ids")
        never = None if ids is None else np.array(sorted(ids), dtype=np.int64)
    return RowUpdates(unmoved, never, final.vocab_size)
