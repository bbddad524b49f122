"""The lesson, step by step, in its own order: each step's title (the lesson's section), its text in the
lesson's terms, and which model is on screen and why. The app draws each step's widget
(andrea_viz.ui.lesson); every number a step states is computed there, not written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .builtin import MICRO
from .family import CONTEXT, FAMILY
from .i18n import Msg, N_

SHAPES = "andrea-120m-init"  # sizes and shapes: ANDREA-120M itself, at step 0
TRAINED = MICRO  # geometry: a trained ANDREA, made in this app
LARGE = "minilm-l6"  # beside it: a large trained table of another family

def params() -> dict[str, int]:
    """The numbers the steps' texts quote, from the family: ANDREA-120M's sizes."""
    s = FAMILY["ANDREA-120M"]
    return {"V": s.V, "d": s.d, "last": s.d - 1, "T": CONTEXT}


def why(model: str) -> Msg:
    """Why a step shows this model."""
    if model == SHAPES:
        return Msg("ANDREA-120M's own shapes (V = {V:,}, d_model = {d}, T = {T:,}), as at step 0 of training: the sizes "
                   "here are the lesson's.", **params())
    if model == TRAINED:
        return Msg("a trained ANDREA: the same layout, grown in this app on a corpus of word classes, so its geometry "
                   "has something to show.")
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
        "(cat, dog, pet) end with similar vectors; unrelated tokens (cat, Tuesday, xylophone) lie far apart."),
         (SHAPES, TRAINED)),
    Step("cost", N_("ANDREA-120M Token Embedding Cost"), N_(
        "V × d_model parameters sit in the token embedding table alone: every vocabulary entry gets its d_model floats."),
         (SHAPES,)),
    Step("exercise", N_("Sizing Embedding Tables"), N_(
        "Size the token tables of the other two ANDREA models: V rows of d_model floats each."), (SHAPES,)),
    Step("dot", N_("Dot Products Measure Similarity"), N_(
        "Length: ||v|| = sqrt(v_0² + … + v_{last}²). Dot product: u · v = u_0 × v_0 + … + u_{last} × v_{last} = ||u|| × ||v|| × "
        "cos(theta). Same direction: a large positive dot product; opposite: a large negative one; at a right angle: "
        "zero. The dot product is an unnormalised similarity: trained cat and dog have a high one, cat and Tuesday end "
        "nearly orthogonal. Attention (activity 5) is built from dot products."), (TRAINED, LARGE)),
    Step("predict", N_("Predict Similarity"), N_(
        "Before you look: which of these pairs are close in the trained table? Place each pair, then reveal the real "
        "cosines."), (TRAINED,)),
    Step("positions", N_("ANDREA Uses Learned Position Embeddings"), N_(
        "A token embedding tells a model which word is at a position, not where it is. Without position information a "
        "transformer treats “the cat sat on a mat” and “mat a on sat cat the” identically. Three solutions: "
        "sinusoidal (a fixed formula, never trained), RoPE (rotates queries and keys, no parameters, used by LLaMA and "
        "Qwen), and learned (a separate (T, d_model) table trained like the token table)."), (TRAINED,)),
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
        "x that flows into transformer block 1."), (SHAPES, TRAINED)),
)
