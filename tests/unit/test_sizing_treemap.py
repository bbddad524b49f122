"""The parameter treemap and its key: areas that are the parameters (no header band or gap taking a part's area),
every part and group named, and its words' shares adding up to the whole model."""

import re

import pytest

from andrea_viz import i18n
from andrea_viz.family import FAMILY, count_params, count_shape
from andrea_viz.plots.sizing import params_treemap, parts_key
from andrea_viz.plots.style import for_projector
from andrea_viz.plots.words import words_of

PC = count_shape(FAMILY["ANDREA-120M"])


@pytest.fixture
def language():
    yield i18n.set_language
    i18n.set_language("en")


@pytest.mark.parametrize("fig", [params_treemap(PC, "t"), for_projector(params_treemap(PC, "t"), height=248)])
def test_no_padding_takes_area_from_a_part(fig):
    """Plotly squarifies each node's rectangle by value; only a padding (a group's header band, the gap between
    tiles) takes area from the parts: with none, the token table and the output table (6,488,832 each) get one area."""
    t = fig.data[0]
    assert (t.marker.pad.t, t.marker.pad.l, t.marker.pad.r, t.marker.pad.b) == (0, 0, 0, 0)
    assert t.tiling.pad == 0
    assert t.branchvalues == "total"
    values = dict(zip(t.ids, t.values, strict=True))
    for parent in set(t.parents) - {""}:  # each group's rectangle is exactly its parts'
        assert values[parent] == sum(v for v, p in zip(t.values, t.parents, strict=True) if p == parent)
    assert values["token table"] == values["output table"] == 6_488_832


def test_only_the_parts_carry_text_and_none_is_drawn_microscopic():
    t = params_treemap(PC, "t").data[0]
    texts = dict(zip(t.ids, t.texttemplate, strict=True))
    assert texts["all"] == texts["embeddings"] == texts["blocks"] == ""  # the groups are named in the key
    assert all("%{label}" in texts[p] for p in ("token table", "output table", "MLP (fc1, fc2)"))
    lay = params_treemap(PC, "t").layout.uniformtext
    assert (lay.mode, lay.minsize) == ("hide", 12)


@pytest.mark.parametrize("lang", ["en", "nl", "pt-BR", "zh-TW"])
def test_a_long_parts_name_takes_two_lines_in_its_tile(language, lang):
    language(lang)
    t = params_treemap(PC, "t").data[0]
    labels = dict(zip(t.ids, t.labels, strict=True))
    assert "<br>" in labels["attention (wq, wk, wv, wo)"]
    assert "<br>" not in labels["MLP (fc1, fc2)"] and "<br>" not in labels["token table"]


def key_rows(key: str) -> list[list[str]]:
    return [[re.sub(r"<[^>]+>|\*\*", "", c).strip() for c in r.strip("|").split("|")] for r in key.splitlines()[2:]]


def test_the_key_names_each_group_as_a_subtotal_after_its_parts():
    rows = key_rows(parts_key(PC))
    names = [r[1] for r in rows]
    assert names == ["token table", "position table", "= embedding layer", "output table",
                     "attention (wq, wk, wv, wo)", "MLP (fc1, fc2)", "= 12 transformer blocks"]
    assert rows[2][2:] == ["7,275,264", "7.4%"] and rows[6][2:] == ["84,934,656", "86.1%"]
    assert sum(i18n.read_number(r[2], "en") for r in rows if not r[1].startswith("=")) == PC.total


@pytest.mark.parametrize("lang, head", [("en", "% of the model"), ("nl", "% van het model"), ("pt-BR", "% do modelo"),
                                        ("zh-TW", "占比")])  # "占模型 %" wrapped its "%" alone
def test_the_keys_share_says_its_whole_and_names_stay_on_one_line(language, lang, head):
    language(lang)
    key = parts_key(PC)
    assert key.splitlines()[0].rstrip(" |").endswith(head)
    for row in key.splitlines()[2:]:  # every name in a span that does not wrap ("注意力（wq、wk、wv、" broke)
        name = row.split("|")[2]
        assert '<span style="white-space:nowrap">' in name, row


@pytest.mark.parametrize("pc", [PC, count_params(8_449, 768, 1024, 12, tied=True), count_params(500, 64, 0, 2)])
def test_the_words_first_sentence_lists_every_part_of_the_whole(pc):
    said = words_of(params_treemap(pc, "t")).summary
    first = said.split(" By part: ")[0]
    counts = [int(n.replace(",", "")) for n in re.findall(r" ([\d,]{3,}) \(", first)]
    shares = [float(s) for s in re.findall(r"\((\d+\.\d)%\)", first)]
    assert sum(counts) == pc.total, first  # the embedding layer, the output table (untied) and the blocks
    assert len(shares) == (3 if pc.output else 2)
    assert abs(sum(shares) - 100) <= 0.05 * len(shares) + 1e-9, first  # 100% up to each share's rounding
