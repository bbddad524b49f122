"""Two vectors in the plane: u·v = |u||v|cos θ as the angle turns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..i18n import N_


@dataclass(frozen=True)
class PlanePair:
    u: np.ndarray  # (2,)
    v: np.ndarray  # (2,)
    theta_deg: float

    @property
    def norm_u(self) -> float:
        return float(np.hypot(*self.u))

    @property
    def norm_v(self) -> float:
        return float(np.hypot(*self.v))

    @property
    def cos(self) -> float:
        return float(np.cos(np.radians(self.theta_deg)))

    @property
    def dot(self) -> float:
        """Computed from the coordinates, u_x v_x + u_y v_y, not from the formula it illustrates."""
        return float(self.u[0] * self.v[0] + self.u[1] * self.v[1])


def plane_pair(len_u: float, len_v: float, theta_deg: float, base_deg: float = 20.0) -> PlanePair:
    """u at ``base_deg`` from the x-axis, v a further ``theta_deg`` round."""
    a, b = np.radians(base_deg), np.radians(base_deg + theta_deg)
    return PlanePair(len_u * np.array([np.cos(a), np.sin(a)]), len_v * np.array([np.cos(b), np.sin(b)]), theta_deg)


def case_of(theta_deg: float, tol: float = 1.0) -> str:
    """The case the angle is in, as a msgid."""
    if theta_deg <= tol:
        return N_("same direction: the largest positive dot product")
    if abs(theta_deg - 90) <= tol:
        return N_("perpendicular: the dot product is zero")
    if theta_deg >= 180 - tol:
        return N_("opposite: the largest negative dot product")
    return N_("acute: positive") if theta_deg < 90 else N_("obtuse: negative")
