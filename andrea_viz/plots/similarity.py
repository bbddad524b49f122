"""Pictures of dot products and cosines: arrows in the plane, the turning animation, real vectors."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ..lesson.angles import PlanePair, plane_pair
from ..geometry import resolve
from ..i18n import _, num
from ..lesson.quiz import Pair
from ..safe_text import plot
from .style import BLUE, GREEN, GREY, ORANGE, RED, layout, play_controls
from .words import with_words


def _arrow(vec: np.ndarray, color: str, name: str, xaxis: str = "x", yaxis: str = "y") -> go.Scatter:
    return go.Scatter(x=[0, vec[0]], y=[0, vec[1]], mode="lines+markers", name=name, xaxis=xaxis, yaxis=yaxis,
                      line={"color": color, "width": 4},
                      marker={"symbol": ["circle", "arrow"], "size": [6, 18], "angleref": "previous", "color": color},
                      hovertemplate=f"{name} = (%{{x:.2f}}, %{{y:.2f}})<extra></extra>")


def _square_axes(lim: float, x: str = "xaxis", y: str = "yaxis", scale_to: str = "x", domain=(0, 1)) -> dict:
    return {x: {"range": [-lim, lim], "zeroline": True, "zerolinecolor": "#bbb", "title": {"text": "x"},
                "domain": list(domain)},
            y: {"range": [-lim, lim], "zeroline": True, "zerolinecolor": "#bbb", "title": {"text": "y"},
                "scaleanchor": scale_to, "scaleratio": 1}}


ARROWS_PRESENT = 420  # px: presenter mode's arrows, with their collapsed words (the step's main picture)
TIP = 0.16  # a labelled arrow's name sits this far past its tip and to its side, in the arrows' units


def _side(vec: np.ndarray, turn: float) -> np.ndarray:
    """The unit vector of ``vec`` turned by ``turn`` radians (counter-clockwise), or along x for a zero vector."""
    n = float(np.linalg.norm(vec))
    a = (np.arctan2(vec[1], vec[0]) if n else 0.0) + turn
    return np.array([np.cos(a), np.sin(a)])


def _name_at(vec: np.ndarray, turn: float) -> np.ndarray:
    """Where an arrow's name is written: past its tip and to the side ``turn`` gives."""
    return vec + TIP * _side(vec, 0.0) + TIP * _side(vec, turn)


def _swept_box(p: PlanePair) -> tuple[tuple[float, float], tuple[float, float]]:
    """The x and y ranges that hold the origin, u, and v at every angle from 0° to 180° with both names: the same
    box whatever the slider says (the picture does not jump as θ turns), and no wider than the half circle v sweeps
    (a box of ±|v| in y left a third of the projected picture empty below the arrows)."""
    a = np.arctan2(p.u[1], p.u[0]) if p.norm_u else 0.0
    turns = a + np.linspace(0, np.pi, 91)
    arc = p.norm_v * np.stack([np.cos(turns), np.sin(turns)], axis=1)
    points = np.vstack([[0.0, 0.0], p.u, _name_at(p.u, -np.pi / 2), arc, [_name_at(v, np.pi / 2) for v in arc]])
    pad = TIP * max(p.norm_u, p.norm_v, 0.5)
    lo, hi = points.min(axis=0) - pad, points.max(axis=0) + pad
    return (float(lo[0]), float(hi[0])), (float(lo[1]), float(hi[1]))


def arrows(p: PlanePair, labelled: bool = False) -> go.Figure:
    """u and v as arrows from the origin, with the shadow of v on u (|v| cos θ). ``labelled``: for a projector, each
    named where it is drawn (u and v at their tips, pushed apart to either side so that at 0° they do not meet; the
    shadow along its line) instead of in a legend as wide as the plot, and the axes without their titles "x" and "y":
    the picture gets the room."""
    unit_u = p.u / p.norm_u if p.norm_u else p.u
    shadow = unit_u * p.norm_v * p.cos
    data = [go.Scatter(x=[0, shadow[0]], y=[0, shadow[1]], mode="lines", line={"color": GREEN, "width": 8}, opacity=0.35,
                       name=_("shadow of v on u: |v| cos θ"), hoverinfo="skip"),
            go.Scatter(x=[shadow[0], p.v[0]], y=[shadow[1], p.v[1]], mode="lines", line={"color": GREY, "dash": "dot"},
                       showlegend=False, hoverinfo="skip"),
            _arrow(p.u, BLUE, "u"), _arrow(p.v, ORANGE, "v")]
    lim = 1.15 * max(p.norm_u, p.norm_v, 0.5)
    if not labelled:
        fig = go.Figure(data, go.Layout(legend={"orientation": "h", "y": -0.22, "yanchor": "top"}, **_square_axes(lim)))
    else:
        axes = _square_axes(1.0)
        for axis, (lo, hi) in zip(axes.values(), _swept_box(p), strict=True):
            axis["title"], axis["range"] = None, [lo, hi]
        notes = []
        for vec, name, colour, turn in ((p.u, "u", BLUE, -np.pi / 2), (p.v, "v", ORANGE, np.pi / 2)):
            at = _name_at(vec, turn)
            notes.append({"x": float(at[0]), "y": float(at[1]), "text": f"<b>{name}</b>", "showarrow": False,
                          "font": {"color": colour, "size": 22}})
        if abs(p.cos) > 0.2:  # a shadow long enough to be named beside it (at 90° it is a point)
            at = shadow / 2 + TIP * _side(unit_u, -np.pi / 2)
            notes.append({"x": float(at[0]), "y": float(at[1]), "text": "|v| cos θ", "showarrow": False,
                          "font": {"color": GREEN}, "bgcolor": "rgba(255, 255, 255, 0.8)"})
        fig = go.Figure(data, go.Layout(showlegend=False, annotations=notes, **axes))
    layout(fig, _("θ = {theta:.0f}°:  u·v = {dot:+.3f}", theta=p.theta_deg, dot=p.dot), height=470)
    if labelled:
        fig.update_layout(margin={"l": 50, "r": 10, "b": 35})
    return with_words(fig, _("Two arrows from the origin: u of length {lu:.2f} and v of length {lv:.2f}, {theta:.0f}° apart. "
                             "cos θ = {cos:+.3f}, so u·v = |u| |v| cos θ = {dot:+.3f}; the shadow of v on u is "
                             "{shadow:+.3f} long.", lu=p.norm_u, lv=p.norm_v, theta=p.theta_deg, cos=p.cos, dot=p.dot,
                             shadow=p.norm_v * p.cos))


def bold(title: str) -> str:
    """A frame's title as Streamlit draws the figure's own: Streamlit writes a chart's title in bold by wrapping
    ``layout.title.text`` in <b>…</b> as it draws it, but not a frame's, which replaced it in regular weight while
    the animation played."""
    return f"<b>{title}</b>"


CONTROLS_Y = -0.3  # paper units: Play/Pause and the angle slider hang below the x axes' tick labels and titles


def turning_animation(len_u: float = 1.0, len_v: float = 1.0, step: int = 5) -> go.Figure:
    """v turns from 0° to 180° (plotly frames with a Play button, run in the browser); on the right,
    u·v and cos θ against the angle with the three cases marked. Two panels by explicit domains."""
    angles = np.arange(0, 181, step)
    curve = np.linspace(0, 180, 181)
    p0 = plane_pair(len_u, len_v, 0)
    right = {"xaxis": "x2", "yaxis": "y2"}
    data = [
        _arrow(p0.u, BLUE, "u"),  # trace 0
        _arrow(p0.v, ORANGE, "v"),  # trace 1 (animated)
        go.Scatter(x=curve, y=len_u * len_v * np.cos(np.radians(curve)), mode="lines", name="u·v",
                   line={"color": RED, "width": 3}, **right),  # trace 2
        go.Scatter(x=curve, y=np.cos(np.radians(curve)), mode="lines", name="cos θ",
                   line={"color": GREY, "width": 2, "dash": "dash"}, **right),  # trace 3
        go.Scatter(x=[0], y=[p0.dot], mode="markers", marker={"size": 14, "color": RED}, name=_("now"), showlegend=False,
                   **right),  # trace 4 (animated)
    ]
    top = 1.25 * max(1.0, len_u * len_v)  # the cases' words clear of the moving marker at u·v (14 px) at 0°
    shapes, notes = [], [
        {"text": _("u fixed, v turning"), "x": 0.225, "y": 1.0, "xref": "paper", "yref": "paper", "showarrow": False,
         "yanchor": "bottom", "font": {"size": 14}},
        {"text": _("u·v and cos θ against the angle"), "x": 0.785, "y": 1.0, "xref": "paper", "yref": "paper",
         "showarrow": False, "yanchor": "bottom", "font": {"size": 14}}]
    for theta, label in ((0, _("same direction")), (90, _("perpendicular")), (180, _("opposite"))):
        shapes.append({"type": "line", "x0": theta, "x1": theta, "y0": 0, "y1": 1, "xref": "x2", "yref": "y2 domain",
                       "line": {"color": "#999", "dash": "dot"}})
        notes.append({"x": theta, "y": top, "xref": "x2", "yref": "y2", "text": label, "showarrow": False,
                      "xanchor": "left" if theta == 0 else "right" if theta == 180 else "center",
                      # clear of the axis and its "2" at 0°, and of the picture's edge at 180°
                      "xshift": 4 if theta == 0 else -4 if theta == 180 else 0,
                      "bgcolor": "rgba(255, 255, 255, 0.9)"})  # the dotted line runs behind the word, not through it
    frames = []
    for theta in angles:
        p = plane_pair(len_u, len_v, float(theta))
        frames.append(go.Frame(name=str(theta), data=[_arrow(p.v, ORANGE, "v"), go.Scatter(x=[theta], y=[p.dot])],
                               traces=[1, 4],
                               layout={"title": {"text": bold(_("θ = {theta}°: u·v = {dot:+.2f}, cos θ = {cos:+.2f}",
                                                                theta=int(theta), dot=p.dot, cos=p.cos))}}))
    lim = 1.15 * max(len_u, len_v)
    m = 1.35 * max(1.0, len_u * len_v)
    opts = {"frame": {"duration": 120, "redraw": True}, "transition": {"duration": 0}, "fromcurrent": True}
    fig = go.Figure(data, go.Layout(
        **_square_axes(lim, domain=(0, 0.45)),
        xaxis2={"domain": [0.57, 1.0], "anchor": "y2", "range": [-5, 185], "dtick": 30,
                "title": {"text": _("angle θ between u and v (degrees)")}},
        yaxis2={"anchor": "x2", "range": [-m, m], "title": {"text": _("value")}},
        shapes=shapes, annotations=notes,
        **play_controls([str(t) for t in angles], 0, opts, "θ = ", "°", CONTROLS_Y, CONTROLS_Y, hang=True),
        legend={"x": 0.585, "y": 0.04, "xanchor": "left", "yanchor": "bottom", "bgcolor": "rgba(255,255,255,0.85)"},
    ), frames=frames)
    layout(fig, _("θ = {theta}°: u·v = {dot:+.2f}, cos θ = {cos:+.2f}", theta=0, dot=p0.dot, cos=1.0), height=600)
    fig.update_layout(margin={"b": 200, "t": 90})  # the controls below both axes' ticks and titles, covering none
    shown = [0, 30, 60, 90, 120, 150, 180]
    return with_words(fig, _("On the left, u stays fixed while v turns from 0° to 180° (lengths {lu:.2f} and {lv:.2f}); on the "
                             "right, u·v and cos θ against the angle: u·v goes from {top:+.2f} at 0° (same direction) "
                             "through 0 at 90° (perpendicular) to {bottom:+.2f} at 180° (opposite).", lu=len_u, lv=len_v,
                             top=len_u * len_v, bottom=-len_u * len_v),
                      {_("angle θ"): [f"{t}°" for t in shown],
                       "cos θ": [num(float(np.cos(np.radians(t))), "+.3f") for t in shown],
                       "u·v": [num(float(len_u * len_v * np.cos(np.radians(t))), "+.3f") for t in shown]},
                      title=_("u fixed, v turning"))  # the whole animation's words, not its first frame's title


def elementwise_products(u: np.ndarray, v: np.ndarray, word_u: str, word_v: str) -> go.Figure:
    """The d products u_i v_i as bars; their sum is the dot product."""
    prod = u.astype(np.float64) * v.astype(np.float64)
    fig = go.Figure(go.Bar(x=np.arange(prod.size), y=prod, marker={"color": np.where(prod >= 0, RED, BLUE),
                                                                    "line": {"width": 0}},
                           hovertemplate=_("dim %{x}: u·v contribution %{y:.5f}") + "<extra></extra>"))
    layout(fig, _("{d} products u_i·v_i for “{u}” and “{v}”: they sum to u·v = {dot:+.4f}", d=prod.size, u=plot(word_u),
                  v=plot(word_v), dot=float(prod.sum())), x=_("dimension i"), y="u_i × v_i", height=360)
    fig.update_layout(bargap=0)
    top = int(np.argmax(np.abs(prod)))
    return with_words(fig, _("The {d:,} products u_i·v_i of “{u}” and “{v}”, one bar per dimension: {pos:,} are positive and "
                             "{neg:,} negative, and they sum to u·v = {dot:+.4f}; the largest in size is {top:+.4f}, at "
                             "dimension {i}.", d=prod.size, u=word_u, v=word_v, pos=int((prod > 0).sum()),
                             neg=int((prod < 0).sum()), dot=float(prod.sum()), top=float(prod[top]), i=top))


def similarity_axis(values) -> dict:
    """The quiz's x axis: from 0 (or the tick at or below the lowest cosine, when one is negative) to 1 (or past the
    highest), a tick every 0.1 (0.2 over a wider span): plotly's own range stopped just left of a bar of −0.129,
    with no negative tick to read it by."""
    lo, hi = min(0.0, *values), max(1.0, *values)
    step = 0.1 if hi - lo <= 1.4 else 0.2
    first, last = int(np.floor(lo / step + 1e-9)), int(np.ceil(hi / step - 1e-9))
    ticks = [round(k * step, 6) for k in range(first, last + 1)]
    return {"range": [ticks[0] - step / 4, ticks[-1] + step / 4], "tickmode": "array", "tickvals": ticks,
            "zeroline": True}


def quiz_reveal(pairs: list[Pair], guesses: list[float]) -> go.Figure:
    labels = [plot(p.label) for p in pairs]
    fig = go.Figure([
        go.Bar(y=labels, x=guesses, orientation="h", name=_("your guess"), marker_color=GREY,
               hovertemplate=_("%{y}: your guess %{x:.2f}") + "<extra></extra>"),
        go.Bar(y=labels, x=[p.cosine for p in pairs], orientation="h", name=_("real cosine"), marker_color=RED,
               hovertemplate=_("%{y}: cosine %{x:.3f}") + "<extra></extra>")])
    layout(fig, _("Your guesses against the real cosines"), x=_("similarity (cosine)"), height=120 + 60 * len(pairs))
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.2}, yaxis_autorange="reversed",
                      xaxis=similarity_axis([*guesses, *(p.cosine for p in pairs)]))
    if not pairs:
        return fig
    off = [abs(g - p.cosine) for p, g in zip(pairs, guesses, strict=True)]
    w = int(np.argmax(off))
    return with_words(fig, _("Your guess beside the real cosine for each of {n} pairs; the furthest off is {pair}: you "
                             "guessed {guess:.2f}, the cosine is {cos:.3f}.", n=len(pairs), pair=pairs[w].label,
                             guess=float(guesses[w]), cos=float(pairs[w].cosine)),
                      {_("pair"): [p.label for p in pairs], _("your guess"): [num(float(g), ".2f") for g in guesses],
                       _("real cosine"): [num(float(p.cosine), ".3f") for p in pairs]})


# --- figures from hashable arguments (cached by the app per model and language) ---
def arrows_at(len_u: float, len_v: float, theta: float, labelled: bool = False) -> go.Figure:
    return arrows(plane_pair(len_u, len_v, theta), labelled)


def products_of(emb, word_u: str, word_v: str) -> go.Figure:
    return elementwise_products(resolve(emb, word_u).vector, resolve(emb, word_v).vector, word_u, word_v)
