"""Readouts as the RON authors train them (paper, supplementary B).

Classification: the final reservoir coordinates y(t_f) -> StandardScaler fitted on train ->
multinomial LogisticRegression (L2) -> accuracy in %.
Forecasting: y(k) for k = washout .. K - lag - 1 predicts u(k + lag) -> StandardScaler ->
Ridge -> NRMSE = RMSE / RMS(target) on the test sequences.

A run whose activations are not finite is *diverged* and a NaN run: it gets no score (None),
never a number computed from a partial or clipped state. (A physical rollout that leaves the
divergence bound is NaN from there on, see physres.simulate, so it lands here too.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from physres.seeding import rng_for


def nrmse(target: np.ndarray, prediction: np.ndarray) -> float:
    """RMSE(target, prediction) / RMS(target), over all samples and channels."""
    target = np.asarray(target, np.float64)
    prediction = np.asarray(prediction, np.float64)
    return float(np.sqrt(np.mean((target - prediction) ** 2)) / np.sqrt(np.mean(target**2)))


def forecasting_pairs(states: np.ndarray, u: np.ndarray, washout: int, lag: int) -> tuple[np.ndarray, np.ndarray]:
    """Features y(k) and targets u(k + lag) for k = washout .. K - lag - 1, flattened over sequences.

    states: (n_seq, K - washout, ny), the post-washout reservoir coordinates
    u:      (n_seq, K, n_u), the input sequences
    returns X (n_seq * (K - washout - lag), ny), Y (n_seq * (K - washout - lag), n_u)
    """
    n_seq, n_steps, n_u = u.shape
    if states.shape[1] != n_steps - washout:
        raise ValueError(f"states cover {states.shape[1]} steps, expected K - washout = {n_steps - washout}")
    features = states[:, : n_steps - washout - lag]
    targets = u[:, washout + lag :]
    return features.reshape(-1, states.shape[-1]), targets.reshape(-1, n_u)


@dataclass
class Score:
    metric: str  # "accuracy" (in %) or "nrmse"
    value: float | None  # None when the activations are not finite
    diverged: bool
    n_nonfinite_sequences: int
    peak: float | None = None  # max |Q|, |Q'| of a physical rollout (inf if non-finite)

    def as_dict(self) -> dict:
        return {
            "metric": self.metric,
            "value": self.value,
            "diverged": self.diverged,
            "n_nonfinite_sequences": self.n_nonfinite_sequences,
            "peak": self.peak,
        }


def count_nonfinite_sequences(*arrays: np.ndarray) -> int:
    return int(sum((~np.isfinite(a.reshape(len(a), -1))).any(axis=1).sum() for a in arrays))


def classification_predictions(
    train_features: np.ndarray, train_labels: np.ndarray, test_features: np.ndarray, C: float, max_iter: int
) -> np.ndarray:
    """Classes StandardScaler + LogisticRegression, fit on (n_train, ny) final states, predicts for
    (n_test, ny) final states -> (n_test,)."""
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=max_iter))
    model.fit(train_features, train_labels)
    return model.predict(test_features)


def classification_score(
    train_features: np.ndarray,
    train_labels: np.ndarray,
    test_features: np.ndarray,
    test_labels: np.ndarray,
    C: float = 1.0,
    max_iter: int = 1000,
) -> Score:
    """Accuracy (%) of StandardScaler + LogisticRegression trained on final states."""
    bad = count_nonfinite_sequences(train_features, test_features)
    if bad:
        return Score("accuracy", None, True, bad)
    predictions = classification_predictions(train_features, train_labels, test_features, C, max_iter)
    return Score("accuracy", 100.0 * float(np.mean(predictions == test_labels)), False, 0)


def forecasting_score(
    train_states: np.ndarray,
    train_u: np.ndarray,
    test_states: np.ndarray,
    test_u: np.ndarray,
    washout: int,
    lag: int,
    alpha: float = 1.0,
) -> Score:
    """Test NRMSE of StandardScaler + Ridge predicting u(k + lag) from y(k)."""
    bad = count_nonfinite_sequences(train_states, test_states)
    if bad:
        return Score("nrmse", None, True, bad)
    x_train, y_train = forecasting_pairs(train_states, train_u, washout, lag)
    x_test, y_test = forecasting_pairs(test_states, test_u, washout, lag)
    return Score("nrmse", ridge_nrmse(x_train, y_train, x_test, y_test, alpha), False, 0)


def ridge_nrmse(x_fit: np.ndarray, y_fit: np.ndarray, x_eval: np.ndarray, y_eval: np.ndarray, alpha: float) -> float:
    """NRMSE on (x_eval, y_eval) of StandardScaler + Ridge fitted on (x_fit, y_fit); x (n, ny), y (n, n_u)."""
    model = make_pipeline(StandardScaler(), Ridge(alpha=alpha))
    model.fit(x_fit, y_fit)
    return nrmse(y_eval, model.predict(x_eval).reshape(y_eval.shape))


def score_activations(
    task,
    train_states: np.ndarray,
    test_states: np.ndarray,
    peaks: list[np.ndarray],
    *,
    washout: int = 0,
    lag: int = 0,
    C: float = 1.0,
    max_iter: int = 1000,
    alpha: float = 1.0,
) -> Score:
    """The task's score of one reservoir run, with the peak |state| of the rollout if tracked."""
    if task.kind == "classification":
        score = classification_score(
            train_states, task.train.label, test_states, task.test.label, C=C, max_iter=max_iter
        )
    else:
        score = forecasting_score(train_states, task.train.u, test_states, task.test.u, washout, lag, alpha=alpha)
    if peaks:
        score.peak = float(np.max([np.max(p) for p in peaks]))
    return score


def validation_score(
    task,
    train_states: np.ndarray,
    fraction: float,
    seed: int,
    *,
    washout: int = 0,
    lag: int = 0,
    C: float = 1.0,
    max_iter: int = 1000,
    alpha: float = 1.0,
) -> Score:
    """The task's score on a validation part carved from the training split only (the test
    split is never touched): the readout is fitted on the rest of the training split.

    Classification: a seeded ``fraction`` of the training sequences. Forecasting: the last
    ``fraction`` of the post-washout steps of every training sequence (a split in time, since
    Mackey-Glass trains on one sequence).
    train_states: (n_seq, ny) final states, or (n_seq, K - washout, ny) for forecasting.
    """
    if task.kind == "classification":
        order = rng_for(seed, "validation_split").permutation(len(train_states))
        n_val = max(1, int(round(fraction * len(order))))
        fit, val = order[n_val:], order[:n_val]
        labels = task.train.label
        return classification_score(
            train_states[fit], labels[fit], train_states[val], labels[val], C=C, max_iter=max_iter
        )
    bad = count_nonfinite_sequences(train_states)
    if bad:
        return Score("nrmse", None, True, bad)
    x, y = forecasting_pairs(train_states, task.train.u, washout, lag)
    n_seq = len(train_states)
    x, y = x.reshape(n_seq, -1, x.shape[-1]), y.reshape(n_seq, -1, y.shape[-1])
    cut = int(round((1 - fraction) * x.shape[1]))
    flat = lambda a: a.reshape(-1, a.shape[-1])  # noqa: E731
    return Score(
        "nrmse", ridge_nrmse(flat(x[:, :cut]), flat(y[:, :cut]), flat(x[:, cut:]), flat(y[:, cut:]), alpha), False, 0
    )
