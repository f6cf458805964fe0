"""The physical--reference map phi (paper, Sec. 4.1): Q = phi(y) = A y + c with A = U diag(s) V^T,
s = softplus(s_raw) + s_min > s_min, U and V initially random orthogonal. The map's bases
(MAP_BASES): "free", U and V trained as free matrices, as the thesis code trains them, so
psi(Q) = A^-1 (Q - c) by LU; or "orthogonal", U and V kept orthogonal (a fixed random orthogonal
matrix times the exponential of a trainable skew-symmetric one), so A^-1 = V diag(1/s) U^T in
closed form."""

from __future__ import annotations

import abc

import equinox as eqx
import jax
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from jaxtyping import Array, Float

from physres.softplus import softplus_inverse


def skew(P: Float[Array, "n n"]) -> Float[Array, "n n"]:
    return P - P.T


MAP_BASES = ("free", "orthogonal")


class AbstractAffineMap(eqx.Module):
    """phi(y) = A y + c, psi(Q) = A^-1 (Q - c); subclasses give A = U diag(s) V^T's factors and
    declare the fields s_raw, c and s_min after their bases (not here: a field declared here would
    come first, and the orthogonal map's leaves must keep the order earlier checkpoints hold)."""

    @abc.abstractmethod
    def factors(self) -> tuple[Float[Array, "ny ny"], Float[Array, " ny"], Float[Array, "ny ny"]]:
        """U, s, V."""

    def singular_values(self) -> Float[Array, " ny"]:
        """s = softplus(s_raw) + s_min (A's singular values when U and V are orthogonal)."""
        return jax.nn.softplus(self.s_raw) + self.s_min

    def matrices(self) -> tuple[Float[Array, "ny ny"], Float[Array, "ny ny"]]:
        """A and A^-1 from one evaluation of the factors."""
        A = self.matrix()
        return A, jnp.linalg.inv(A)

    def matrix(self) -> Float[Array, "ny ny"]:
        """A alone: phi needs no inverse."""
        U, s, V = self.factors()
        return (U * s) @ V.T

    def inverse_matrix(self) -> Float[Array, "ny ny"]:
        return self.matrices()[1]

    def phi(self, y: Float[Array, " ny"]) -> Float[Array, " ny"]:
        return self.matrix() @ y + self.c

    def psi(self, Q: Float[Array, "... ny"]) -> Float[Array, "... ny"]:
        """A^-1 (Q - c) for any leading shape."""
        return (Q - self.c) @ self.inverse_matrix().T


class AffineMap(AbstractAffineMap):
    """A = U diag(s) V^T with U and V free matrices (the thesis code's map): every leaf trains."""

    U: Float[Array, "ny ny"]
    V: Float[Array, "ny ny"]
    s_raw: Float[Array, " ny"]
    c: Float[Array, " ny"]
    s_min: float = eqx.field(static=True)

    def factors(self):
        return self.U, self.singular_values(), self.V


class OrthogonalAffineMap(AbstractAffineMap):
    """A = U diag(s) V^T with U = U0 expm(skew(P_U)), V likewise: U0 and V0 stay fixed."""

    U0: Float[Array, "ny ny"]
    V0: Float[Array, "ny ny"]
    P_U: Float[Array, "ny ny"]
    P_V: Float[Array, "ny ny"]
    s_raw: Float[Array, " ny"]
    c: Float[Array, " ny"]
    s_min: float = eqx.field(static=True)

    def factors(self):
        U = self.U0 @ jsl.expm(skew(self.P_U))
        V = self.V0 @ jsl.expm(skew(self.P_V))
        return U, self.singular_values(), V

    def matrices(self) -> tuple[Float[Array, "ny ny"], Float[Array, "ny ny"]]:
        """A and A^-1 = V diag(1/s) U^T from one evaluation of the factors (two matrix
        exponentials, not four)."""
        U, s, V = self.factors()
        return (U * s) @ V.T, (V / s) @ U.T


def random_orthogonal(key: jax.Array, n: int) -> Float[Array, "n n"]:
    """Haar-random orthogonal matrix: QR of a standard normal matrix with sign-fixed diagonal."""
    q, r = jnp.linalg.qr(jax.random.normal(key, (n, n)))
    return q * jnp.sign(jnp.diag(r))


def init_map(key: jax.Array, ny: int, sigma: float, s_min: float, bases: str = "orthogonal") -> AbstractAffineMap:
    """c = 0, Sigma = sigma I, random orthogonal U and V (paper, supplementary E); ``bases`` one
    of MAP_BASES. Both kinds start from the same A for the same key."""
    if bases not in MAP_BASES:
        raise ValueError(f"pretrain.map_bases {bases!r}; allowed: {', '.join(MAP_BASES)}")
    k_u, k_v = jax.random.split(key)
    U0, V0 = random_orthogonal(k_u, ny), random_orthogonal(k_v, ny)
    # dtype given: a weakly typed leaf would turn strong after the first update and make the
    # second training step retrace and recompile (~20 s per job)
    s_raw = jnp.full(ny, float(softplus_inverse(sigma - s_min)), dtype=U0.dtype)
    if bases == "free":
        return AffineMap(U=U0, V=V0, s_raw=s_raw, c=jnp.zeros(ny), s_min=s_min)
    zeros = jnp.zeros((ny, ny))
    return OrthogonalAffineMap(U0=U0, V0=V0, P_U=zeros, P_V=zeros, s_raw=s_raw, c=jnp.zeros(ny), s_min=s_min)
