"""Pictures of where a model's parameters live."""

from __future__ import annotations

import plotly.graph_objects as go

from ..family import ParamCount
from ..i18n import N_, _, num, series, tr
from .style import BLUE, GREEN, ORANGE, PURPLE, RED, layout, swatch, text_width
from .words import with_words

PART_LABELS = {"token table": N_("token table"), "position table": N_("position table"), "output table": N_("output table"),
               "attention (wq, wk, wv, wo)": N_("attention (wq, wk, wv, wo)"), "MLP (fc1, fc2)": N_("MLP (fc1, fc2)")}
PART_COLORS = {
    "token table": RED,
    "position table": ORANGE,
    "output table": PURPLE,
    "attention (wq, wk, wv, wo)": BLUE,
    "MLP (fc1, fc2)": GREEN,
}
MIN_TILE_PX = 12  # px: a tile's text that would have to shrink below this is hidden (the key and the words name it)


PARTS = {"token table": "embeddings", "position table": "embeddings", "output table": "all",  # each part's group
         "attention (wq, wk, wv, wo)": "blocks", "MLP (fc1, fc2)": "blocks"}


def _counts(pc: ParamCount) -> dict[str, int]:
    """Each part's parameters, in the key's and the treemap's order."""
    return dict(zip(PARTS, (pc.token, pc.position, pc.output, pc.attention, pc.mlp), strict=True))


def _groups(pc: ParamCount) -> list[tuple[str, str, int]]:
    """The treemap's groups: each one's id, its name (in the reader's language) and its parameters."""
    return [("embeddings", _("embedding layer"), pc.embeddings),
            ("blocks", _("{n} transformer blocks", n=pc.layers), pc.blocks)]


def _nowrap(text: str) -> str:
    return f'<span style="white-space:nowrap">{text}</span>'


def parts_key(pc: ParamCount) -> str:
    """The treemap's key as a Markdown table: every part with its slice's colour, its parameters and its share of
    the model, so that a slice too small for its label (the position table, 0.8% of ANDREA-120M) is still named, and
    after each group's parts a subtotal row naming the group (the embedding layer, the transformer blocks), which
    the picture does not label (a header band over a group would take its parts' area). Names stay on one line."""
    # a share of the whole the chart's title states, not of the nominal size the lesson quotes beside it
    heads = (_("part"), _("parameters"), _("% of the model"))
    rows = ["| | " + " | ".join(heads) + " |", "|:-:|:--|--:|--:|"]
    last = {group: name for name, group in PARTS.items()}  # each group's subtotal comes after its last part
    groups = {last[group]: (name, n) for group, name, n in _groups(pc)}
    for name, n in _counts(pc).items():
        if n:
            rows.append(f"| {swatch(PART_COLORS[name])} | {_nowrap(tr(PART_LABELS[name]))} | {num(n)} | "
                        f"{num(n / pc.total, '.1%')} |")
        if name in groups:
            group, g = groups[name]
            rows.append(f"| | **{_nowrap('= ' + group)}** | **{num(g)}** | **{num(g / pc.total, '.1%')}** |")
    return "\n".join(rows)


LINE_CHARS = 16  # a part's name wider than this many characters (a Chinese one two) is drawn on two lines in its tile


def _two_lines(label: str) -> str:
    """A part's name for its tile: a long one over its parenthesis ("attention<br>(wq, wk, wv, wo)"), so that it
    fits a narrow tile at a readable size."""
    for opening in (" (", "（"):
        if text_width(label, 1) > LINE_CHARS and opening in label:
            head, tail = label.split(opening, 1)
            return f"{head}<br>{opening.strip()}{tail}"
    return label


def params_treemap(pc: ParamCount, title: str) -> go.Figure:
    """Area proportional to parameters: embeddings, output head and the transformer blocks. No padding at all (no
    header band over a group, no gap between tiles: white lines part them), so that equal counts get equal areas (a
    header over the embedding layer made its token table ~30% smaller than the output table of the same count); the
    groups are named in the hover, the words and the key (``parts_key``). Only the parts carry text, and text that
    would have to shrink below 12 px is hidden rather than drawn microscopic (presenter mode: 18 px)."""
    total = pc.total
    ids = ["all", "embeddings", "blocks"]
    labels = [_("model<br>{n:,}", n=total), *(name for _id, name, _n in _groups(pc))]
    parents = ["", "all", "all"]
    values = [total, pc.embeddings, pc.blocks]
    colors = ["#ffffff", "#fbe3d6", "#dbe9f6"]
    texts = ["", "", ""]
    children = [(name, PARTS[name], n) for name, n in _counts(pc).items()]
    part_text = "<b>%{label}</b><br>%{value:,}<br>" + _("%{percentRoot:.1%} of the model")
    for name, parent, n in children:
        if n == 0:
            continue
        ids.append(name)
        labels.append(_two_lines(tr(PART_LABELS[name])))
        parents.append(parent)
        values.append(n)
        colors.append(PART_COLORS[name])
        texts.append(part_text)
    fig = go.Figure(
        go.Treemap(
            ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
            marker={"colors": colors, "pad": {"t": 0, "l": 0, "r": 0, "b": 0}, "line": {"color": "#ffffff", "width": 2}},
            tiling={"pad": 0}, texttemplate=texts,
            hovertemplate="<b>%{label}</b><br>" + _("%{value:,} parameters<br>%{percentRoot:.2%} of the model")
            + "<extra></extra>",
            textfont={"size": 14},
        )
    )
    layout(fig, title, height=460)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 60, "b": 10}, uniformtext={"minsize": MIN_TILE_PX, "mode": "hide"})
    parts = [(tr(PART_LABELS[name]), n) for name, _parent, n in children if n]
    wholes = [(name, n) for _id, name, n in _groups(pc)]
    if pc.output:
        wholes.insert(1, (tr(PART_LABELS["output table"]), pc.output))
    said = _("The model's {n:,} parameters as areas: {groups}.", n=total, groups=series(
        _("{part} {n:,} ({share:.1%})", part=name, n=n, share=n / total if total else 0.0) for name, n in wholes))
    each = [_("{part}: {n:,} parameters, {share:.1%} of the model", part=name, n=n, share=n / total if total else 0.0)
            for name, n in parts]
    said += " " + _("By part: {parts}.", parts=series(each))
    return with_words(fig, said, {_("part"): [name for name, _n in parts], _("parameters"): [num(n) for _m, n in parts],
                                  "%": [num(n / total if total else 0.0, ".1%") for _m, n in parts]})
