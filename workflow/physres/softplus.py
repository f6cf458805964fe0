"""Positive parameters as softplus(raw) + minimum (paper, Sec. 4.1), and back."""

from __future__ import annotations

import numpy as np


def softplus_inverse(x: np.ndarray) -> np.ndarray:
    """Inverse of log(1 + e^z), stable for large and small x > 0."""
    x = np.asarray(x, np.float64)
    return x + np.log(-np.expm1(-x))
