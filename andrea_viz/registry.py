"""The app's pages, in lesson order: file, title, icon and one line of what each shows.

Written once here; the sidebar menu, the home page's table of contents, each page's title and the
tests all read this list. Titles and blurbs are msgids, translated where they are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .i18n import N_

APP_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class PageInfo:
    path: str  # relative to the entry script
    label: str  # msgid
    icon: str  # a Streamlit Material icon: renders without emoji fonts
    blurb: str  # msgid

    @property
    def url_path(self) -> str:
        """The page's address: '' for the home page, else the file name without its number."""
        if self.path == HOME:
            return ""
        return Path(self.path).stem.split("_", 1)[1]


HOME = "home.py"
PAGES = [
    PageInfo(HOME, N_("Home"), ":material/home:", N_("what this is, the loaded model, neighbours of a word")),
    PageInfo("pages/0_Lesson.py", N_("Lesson"), ":material/school:",
             N_("the lesson step by step, in its order: each claim with its live picture and the model that shows it")),
    PageInfo("pages/1_Lookup_table.py", N_("Lookup table"), ":material/table_view:",
             N_("the (V, d) matrix, one row per token, and why a lookup equals a one-hot product")),
    PageInfo("pages/2_Sizing.py", N_("Sizing"), ":material/straighten:",
             N_("how many parameters an embedding table holds, tied versus untied, where a model's parameters live")),
    PageInfo("pages/3_Dot_products.py", N_("Dot products"), ":material/change_history:",
             N_("u·v = |u||v|cos θ as an angle turns, on real vectors, and a game: predict which words are close")),
    PageInfo("pages/4_Neighbours.py", N_("Neighbours"), ":material/hub:",
             N_("the nearest tokens by cosine, dot or distance, analogies, input versus output table")),
    PageInfo("pages/5_Projection.py", N_("Projection"), ":material/scatter_plot:",
             N_("PCA, t-SNE and UMAP maps of thousands of tokens or the whole table, how much of each neighbourhood "
                "survives, downloads")),
    PageInfo("pages/6_Positions.py", N_("Positions"), ":material/format_list_numbered:",
             N_("x_t = token + position with sliders, learned versus sinusoidal, RoPE in one picture")),
    PageInfo("pages/7_Forward_pass.py", N_("Forward pass"), ":material/arrow_forward:",
             N_("a sentence to ids to the matrix x, order blindness, the compiled kernels and their speed")),
    PageInfo("pages/8_Checkpoint.py", N_("Checkpoint"), ":material/upload_file:",
             N_("bring your own: upload a checkpoint or pick one from a folder, see what it holds, explore it")),
    PageInfo("pages/9_Grow.py", N_("Grow"), ":material/eco:",
             N_("train a small ANDREA here and watch its token table turn from noise into word classes")),
    PageInfo("pages/10_Compare.py", N_("Compare"), ":material/compare_arrows:",
             N_("two checkpoints: how far each token moved, which neighbours stayed, a fine-tune's added rows, and "
                "two vocabularies aligned on their shared tokens")),
    PageInfo("pages/11_Anatomy.py", N_("Anatomy"), ":material/biotech:",
             N_("rows that never trained, dimensions that dominate every cosine, and hubs")),
    PageInfo("pages/12_Class.py", N_("Class"), ":material/groups:",
             N_("a teacher's live view of the class's answers, a misconception grid, follow me; learners join with a code")),
]
BY_FILE = {Path(p.path).name: p for p in PAGES}


def page_of(file: str) -> PageInfo:
    """The registry entry of a page, from its file (``__file__`` of the page script)."""
    return BY_FILE[Path(file).name]


def available_pages() -> list[PageInfo]:
    """Every page, in the sidebar's order."""
    return list(PAGES)
