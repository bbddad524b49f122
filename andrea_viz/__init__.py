"""ANDREA Embedding Explorer: the library under the app.

>>> import andrea_viz
>>> emb = andrea_viz.load("minilm-l6")
>>> emb.token_table.shape
(30522, 384)
"""

from .builtin import BUILTINS, DEFAULT_MODEL
from .errors import CheckpointError, QueryError
from .forward_pass import forward
from .loading import load
from .model import Embeddings, Provenance

__all__ = ["BUILTINS", "DEFAULT_MODEL", "CheckpointError", "Embeddings", "Provenance", "QueryError", "forward", "load"]
__version__ = "0.1.0"

