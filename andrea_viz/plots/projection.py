"""Trained vectors projected to 2-D or 3-D."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..i18n import _, num, sentences
from ..maps.clusters import MAP_LABELS
from ..maps.layout import Projection
from ..maps.methods import METHODS
from ..maps.sample import group_label, Sample
from ..maps.scene import Scene, build_scene
from ..safe_text import plot, plot_array
from .style import WORD_PX, apart, entry_colours, kept_apart, layout, plotly_separators, words_on_top
from .words import MAX_ROWS, plain, with_words

WEBGL_FROM = 1000  # points in one trace above which the map is drawn with WebGL
QUERY_STAR_PX = 14  # the query's star on a plotly map, a mark the other words' labels keep clear of


def projection_scatter(proj: Projection, sample: Sample, tokens: list[str], trust: np.ndarray, title: str,
                       colour_by_trust: bool = False, lines_from: int | None = None,
                       lines_to: np.ndarray | None = None, labels: list | None = None,
                       shade: tuple | None = None) -> go.Figure:
    """``scene_scatter`` of the scene these make (``maps.scene.build_scene``). ``lines_from``/``lines_to``: positions
    in the sample of a chosen point and its true nearest neighbours, joined by lines. ``labels``: (x, y, cluster)
    from ``clusters.map_labels``. ``shade``: (values in [0, 1] with 1 good, each point's score, the colour bar's
    title, the words at its two ends or None) colours every point by a score of the table instead
    (``map_colours``)."""
    values, scores, scale, ends = (None, None, None, None) if shade is None else shade
    return scene_scatter(build_scene(proj, sample, tokens, trust, colour_by_trust=colour_by_trust, shade=values,
                                     scores=scores, scale=scale, ends=ends, labels=labels, lines_from=lines_from,
                                     lines_to=lines_to), title)


LINES_RANK = 1_001  # the lines' place in the legend: after the groups (plotly's default rank is 1,000)


def scene_scatter(scene: Scene, title: str) -> go.Figure:
    """One trace per palette entry ('other' small and grey, WebGL past 1,000 points; word groups with their words;
    the query as a large star), or every point coloured by its trust or a score; the lines from the chosen point to
    its true nearest; the largest regions' labels written on a 2-D map (``MAP_LABELS``, those that fit apart)."""
    dims = scene.dims
    coords = scene.coords
    axis = METHODS[scene.method].axes(dims)
    fig = go.Figure()
    kept = _("neighbours kept")
    unscored = _("not in the scored sample")

    shares = np.array([unscored if np.isnan(t) else num(float(t), ".0%") for t in scene.trust])
    words = plot_array(scene.tokens)

    def hover(mask: np.ndarray, label: str) -> np.ndarray:
        # one string per point, and the ids as a numeric array: numpy arrays, not lists of lists, so that the
        # figure is cheap to copy when Streamlit draws it again
        head = np.char.add(np.char.add(np.char.add("<b>", words[mask]), "</b> #"), scene.ids[mask].astype(str))
        return np.char.add(np.char.add(head, f"<br>{label}<br>{kept}: " if label else f"<br>{kept}: "), shares[mask])

    def add(cls_2d, mask: np.ndarray, **kw) -> None:
        c = coords[mask]
        if dims == 3:
            fig.add_trace(go.Scatter3d(x=c[:, 0], y=c[:, 1], z=c[:, 2], **kw))
        else:
            cls = go.Scattergl if cls_2d == "auto" and mask.sum() > WEBGL_FROM else go.Scatter
            fig.add_trace(cls(x=c[:, 0], y=c[:, 1], **kw))

    if scene.by_score:
        m = np.ones(len(scene), bool)
        scale = kept if scene.scale is None else scene.scale
        text = hover(m, "")
        if scene.scores is not None:  # "<br>score: 0.123", the decimal mark of the reader's language
            marks = np.char.replace(np.char.mod("%.3f", scene.scores), ".", plotly_separators()[0])
            text = np.char.add(np.char.add(text, f"<br>{plot(scale)}: "), marks)
        ends = scene.ends
        add("auto", m, mode="markers", name=scale if scene.scale is not None else _("trust"), hovertext=text,
            customdata=scene.ids,
            marker={"size": 5, "color": np.nan_to_num(scene.values, nan=-0.1), "cmin": 0, "cmax": 1,
                    "colorscale": "RdYlGn", "colorbar": {"title": {"text": scale}, **({} if ends is None else {
                        "tickvals": [0, 1], "ticktext": [plot(ends[0]), plot(ends[1])]})}},
            hovertemplate="%{hovertext}<extra></extra>")
    else:
        colours = entry_colours(scene.slots)
        query = len(colours) - 1
        drawn = words  # each word beside its point, the query's first: on a 2-D map only those that fit apart
        if dims == 2:
            marked = np.flatnonzero(scene.entry != 0)
            marked = marked[np.argsort(scene.entry[marked] != query, kind="stable")]
            stars = tuple((coords[i, 0], coords[i, 1], QUERY_STAR_PX) for i in np.flatnonzero(scene.entry == query))
            keep = kept_apart([(coords[i, 0], coords[i, 1], scene.tokens[i]) for i in marked], coords, font=WORD_PX,
                              avoid=stars)  # a neighbour's word under the query's star could not be read
            drawn = np.where(np.isin(np.arange(len(words)), marked[keep]), words, "")
        sizes = np.full(len(scene), 8)  # each point's marker size, and its word's font size
        sizes[scene.entry == 0], sizes[scene.entry == query] = 4, QUERY_STAR_PX
        fonts = np.where(scene.entry == query, WORD_PX + 2, WORD_PX)
        for j, colour in enumerate(colours):
            m = scene.entry == j
            if not m.any():
                continue
            other, q = j == 0, j == query
            marker = {"size": int(sizes[m][0]), "opacity": 0.35 if other else 0.95, "color": colour,
                      "symbol": "diamond" if q and dims == 3 else "star" if q else "circle",
                      "line": {"width": 1, "color": "black"} if q else {"width": 0}}
            label = scene.name(j, escape=plot)
            words_here = dims == 3 and not other  # a 2-D map writes every word in one trace over all the markers
            add("auto" if other else "svg", m, name=label, text=drawn[m] if words_here else None,
                hovertext=hover(m, label), customdata=scene.ids[m], hovertemplate="%{hovertext}<extra></extra>",
                marker=marker, mode="markers+text" if words_here else "markers", textposition="top center",
                textfont={"size": WORD_PX + 2 if q else WORD_PX})
        if dims == 2:
            at = np.flatnonzero(drawn != "")
            fig.add_trace(words_on_top(coords[at, 0], coords[at, 1], drawn[at], sizes[at], fonts[at]))
    if scene.has_lines:
        a = coords[scene.lines_from]
        xs, ys, zs = [], [], []
        for j in scene.lines_to:
            b = coords[j]
            xs += [float(a[0]), float(b[0]), None]
            ys += [float(a[1]), float(b[1]), None]
            if dims == 3:
                zs += [float(a[2]), float(b[2]), None]
        name = _("true 10 nearest of “{token}”", token=plot(scene.tokens[scene.lines_from]))
        line = {"color": "black", "width": 1.5}
        fig.add_trace(go.Scatter3d(x=xs, y=ys, z=zs, mode="lines", line=line, name=name, legendrank=LINES_RANK)
                      if dims == 3 else go.Scatter(x=xs, y=ys, mode="lines", line=line, name=name, hoverinfo="skip",
                                                   legendrank=LINES_RANK))
        fig.data = (fig.data[-1], *fig.data[:-1])  # drawn first, under the points and their words; last in the legend
    if dims == 3:
        layout(fig, title, height=700)
        fig.update_layout(scene={"xaxis_title": axis[0], "yaxis_title": axis[1], "zaxis_title": axis[2]})
    else:
        layout(fig, title, x=axis[0], y=axis[1], height=700)
    if scene.by_score:  # the colour bar takes the right side: the legend goes under the map
        fig.update_layout(legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom",
                                  "itemsizing": "constant"}, margin={"b": 90})
    else:
        fig.update_layout(legend={"title": {"text": _("group")}, "itemsizing": "constant"})
    if scene.labels and dims == 2:
        shown = [(lab.x, lab.y, lab.text) for lab in scene.labels[:MAP_LABELS]]
        fig.update_layout(annotations=[
            {"x": x, "y": y, "text": plot(text), "showarrow": False, "font": {"size": 11, "color": "#222"},
             "bgcolor": "rgba(255,255,255,0.55)", "borderpad": 1, "yshift": 10, "captureevents": False}
            for x, y, text in apart(shown, coords)])
    return with_words(fig, *map_words(scene, title))


def map_words(scene: Scene, title: str) -> tuple[str, dict[str, list]]:
    """A map in words: how many tokens, the mean share of their 10 nearest kept, each word group's size, and the
    lines; its table: the chosen token's true nearest (else the points of the word groups), each with its id, group
    and share kept."""
    groups = np.array(scene.groups)
    trust, tokens = scene.trust, scene.tokens
    scored = trust[~np.isnan(trust)]
    said = [_("{title}: {n:,} tokens in {dims} dimensions; on average {kept} of each point's 10 nearest neighbours "
              "are kept here.", title=plain(title), n=len(tokens), dims=scene.dims,
              kept=num(float(scored.mean()) if scored.size else 0.0, ".0%"))]
    for g in sorted(set(groups) - {"other"}):
        said.append(_("{name}: {n:,} points.", name=group_label(g), n=int((groups == g).sum())))
    if scene.has_lines:
        said.append(_("Lines join {token} to its true {n} nearest; the nearest is {first}.",
                      token=tokens[scene.lines_from], n=len(scene.lines_to), first=tokens[int(scene.lines_to[0])]))
        rows = [int(j) for j in scene.lines_to]
    else:
        rows = [int(j) for j in np.flatnonzero(groups != "other")]
    rows = rows[:MAX_ROWS]
    kept = [_("not in the scored sample") if np.isnan(trust[j]) else num(float(trust[j]), ".0%") for j in rows]
    return sentences(said), {_("token"): [tokens[j] for j in rows], "id": [str(int(scene.ids[j])) for j in rows],
                            _("group"): [group_label(str(groups[j])) for j in rows], _("neighbours kept"): kept}


def clicked_id(points: list) -> int | None:
    """The token id of the first point chosen on a map drawn by ``projection_scatter`` (its customdata), from
    the selection Streamlit gives back; None when nothing with an id was chosen."""
    if not points or "customdata" not in points[0]:
        return None
    cd = points[0]["customdata"]
    return int(cd[0] if isinstance(cd, list) else cd)


def deck_clicked_id(objects: dict) -> int | None:
    """The token id of the point chosen on a map drawn by ``deck_map.deck_map`` (its record's ``i``), from the
    selection Streamlit gives back (objects per layer id); None when no point was chosen."""
    chosen = objects.get("marked") or objects.get("points") or []
    return int(chosen[0]["i"]) if chosen and "i" in chosen[0] else None
