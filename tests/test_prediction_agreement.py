"""tools/prediction_agreement.py: agreement of two reservoirs' predicted classes and the standard
error of their accuracies' difference on the same test series."""

import numpy as np
import pytest

from tools.prediction_agreement import agreement, mean, paired_difference_std


def test_paired_difference_std_is_the_standard_error_of_the_per_series_differences():
    """The closed form from the two discordant counts equals the standard error of the mean of
    d_i = [a right on i] - [b right on i], computed directly."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 5, 391)
    a = np.where(rng.random(391) < 0.6, labels, rng.integers(0, 5, 391))
    b = np.where(rng.random(391) < 0.5, labels, rng.integers(0, 5, 391))
    d = (a == labels).astype(float) - (b == labels)
    assert paired_difference_std(a, b, labels) == pytest.approx(100 * d.std() / np.sqrt(len(d)), rel=1e-12)


def test_paired_difference_std_by_hand():
    """4 series, each right on one the other misses: d = 0, 1, -1, 0, standard error sqrt(0.5 / 4)."""
    labels = np.zeros(4, int)
    a, b = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    assert paired_difference_std(a, b, labels) == pytest.approx(100 * np.sqrt(0.5) / 2)
    assert paired_difference_std(a, a, labels) == 0.0  # a reservoir against itself: no uncertainty


def test_agreement_counts_the_same_class_right_or_wrong():
    assert agreement(np.array([1, 2, 3, 4]), np.array([1, 2, 0, 0])) == 50.0
    assert np.isnan(mean([])) and mean([1.0, 2.0]) == 1.5
