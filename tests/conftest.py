import jax
import pytest

jax.config.update("jax_enable_x64", True)


@pytest.fixture
def rng():
    import numpy as np

    return np.random.default_rng(1234)
