"""The embedding model: shipped in a PyPI package, 384 dims, unit vectors, loaded once."""

import numpy as np

from agent_harness import embeddings


def test_vectors_are_384_dim_unit_float32_and_batched_consistently():
    texts = ["vessel capacity in TEU", "container ship size", "banana bread recipe", ""]
    batch = embeddings.embed(texts)
    assert batch.shape == (4, 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    single = np.stack([embeddings.embed_one(t) for t in texts])
    assert np.allclose(batch, single, atol=1e-4)  # padding does not change a vector


def test_similarity_follows_meaning():
    a, b, c = embeddings.embed(
        ["ship capacity in TEU", "how many containers a vessel holds", "banana bread recipe"]
    )
    assert a @ b > a @ c + 0.2


def test_model_loads_once_per_process():
    assert embeddings.get_embedder() is embeddings.get_embedder()


def test_long_and_odd_text_is_fine():
    vectors = embeddings.embed(["ü" * 200_000, "\x00\x01", "🚢" * 50, "a" * 10])
    assert np.isfinite(vectors).all()
