"""Pictures of where a model's parameters live."""

from __future__ import annotations

import plotly.graph_objects as go

from ..family import ParamCount
from ..i18n import N_, _, num, series, tr
from .style import BLUE, GREEN, ORANGE, PURPLE, RED, layout, swatch
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


def parts_key(pc: ParamCount) -> str:
    """The treemap's key as a Markdown table: every part with its slice's colour, its parameters and its share of
    the model, so that a slice too small for its label (the position table, 0.8% of ANDREA-120M) is still named."""
    rows = [f"| | {_('part')} | {_('parameters')} | % |", "|:-:|:--|--:|--:|"]
    for name, n in (("token table", pc.token), ("position table", pc.position), ("output table", pc.output),
                    ("attention (wq, wk, wv, wo)", pc.attention), ("MLP (fc1, fc2)", pc.mlp)):
        if n:
            rows.append(f"| {swatch(PART_COLORS[name])} | {tr(PART_LABELS[name])} | {num(n)} | "
                        f"{num(n / pc.total, '.1%')} |")
    return "\n".join(rows)


def params_treemap(pc: ParamCount, title: str) -> go.Figure:
    """Area proportional to parameters: embeddings, output head and the transformer blocks."""
    total = pc.total
    ids = ["all", "embeddings", "blocks"]
    labels = [_("model<br>{n:,}", n=total), _("embedding layer"), _("{n} transformer blocks", n=pc.layers)]
    parents = ["", "all", "all"]
    values = [total, pc.embeddings, pc.blocks]
    colors = ["#ffffff", "#fbe3d6", "#dbe9f6"]
    children = [
        ("token table", "embeddings", pc.token),
        ("position table", "embeddings", pc.position),
        ("output table", "all", pc.output),
        ("attention (wq, wk, wv, wo)", "blocks", pc.attention),
        ("MLP (fc1, fc2)", "blocks", pc.mlp),
    ]
    for name, parent, n in children:
        if n == 0:
            continue
        ids.append(name)
        labels.append(tr(PART_LABELS[name]))
        parents.append(parent)
        values.append(n)
        colors.append(PART_COLORS[name])
    fig = go.Figure(
        go.Treemap(
            ids=ids, labels=labels, parents=parents, values=values, branchvalues="total",
            marker={"colors": colors},
            texttemplate="<b>%{label}</b><br>%{value:,}<br>" + _("%{percentRoot:.1%} of the model"),
            hovertemplate="<b>%{label}</b><br>" + _("%{value:,} parameters<br>%{percentRoot:.2%} of the model")
            + "<extra></extra>",
            textfont={"size": 14},
        )
    )
    layout(fig, title, height=460)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 60, "b": 10})
    parts = [(tr(PART_LABELS[name]), n) for name, _parent, n in children if n]
    said = _("The model's {n:,} parameters as areas: the embedding layer {e:,} ({es:.1%}), {L} transformer blocks {b:,} "
             "({bs:.1%}).", n=total, e=pc.embeddings, es=pc.embeddings / total if total else 0.0, L=pc.layers,
             b=pc.blocks, bs=pc.blocks / total if total else 0.0)
    each = [_("{part}: {n:,} parameters, {share:.1%} of the model", part=name, n=n, share=n / total if total else 0.0)
            for name, n in parts]
    said += " " + _("By part: {parts}.", parts=series(each))
    return with_words(fig, said, {_("part"): [name for name, _n in parts], _("parameters"): [num(n) for _m, n in parts],
                                  "%": [num(n / total if total else 0.0, ".1%") for _m, n in parts]})
