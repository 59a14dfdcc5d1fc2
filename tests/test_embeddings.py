"""The embedding model: shipped in a PyPI package, 384 dims, unit vectors, loaded once."""

import numpy as np

from agent_harness import embeddings


def test_vectors_are_384_dim_unit_float32_and_batched_consistently():
    texts = ["vessel capacity in TEU", "container ship size", "banana bread recipe", ""]
    batch = embeddings.embed(texts)
    assert batch.shape == (4, 384) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    fresh = embeddings.Embedder()  # its own empty cache: every text goes through the model
    single = np.stack([fresh.embed([t])[0] for t in texts])
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


def _counting(embedder, monkeypatch) -> list[int]:
    sizes: list[int] = []
    run = embedder._embed_batch

    def counted(texts):
        sizes.append(len(texts))
        return run(texts)

    monkeypatch.setattr(embedder, "_embed_batch", counted)
    return sizes


def test_a_text_goes_through_the_model_once(monkeypatch):
    embedder = embeddings.Embedder()
    sizes = _counting(embedder, monkeypatch)
    first = embedder.embed(["port of Rotterdam", "port of Rotterdam", "reefer boxes"])
    assert sizes == [2] and np.array_equal(first[0], first[1])
    again = embedder.embed(["reefer boxes", "port of Rotterdam", "berth occupancy"])
    assert sizes == [2, 1]
    assert np.array_equal(again[0], first[2]) and np.array_equal(again[1], first[0])
    uncached = embeddings.Embedder().embed(["berth occupancy", "port of Rotterdam"])
    assert np.allclose(again[2], uncached[0], atol=1e-6)
    assert np.allclose(again[1], uncached[1], atol=1e-6)


def test_changing_a_returned_vector_does_not_change_the_next_one():
    embedder = embeddings.Embedder()
    vector = embedder.embed(["ETA of EVER GIVEN"])
    kept = vector.copy()
    vector[:] = 0
    assert np.array_equal(embedder.embed(["ETA of EVER GIVEN"]), kept)


def test_the_cache_keeps_only_the_most_recent_texts(monkeypatch):
    monkeypatch.setattr(embeddings, "CACHE_SIZE", 3)
    embedder = embeddings.Embedder()
    sizes = _counting(embedder, monkeypatch)
    embedder.embed(["a1", "a2", "a3", "a4", "a5"])
    assert len(embedder._cache) == 3
    embedder.embed(["a5", "a1"])  # a5 still known, a1 was pushed out
    assert sizes == [5, 1]


def test_clear_cache_and_no_cache_put_every_text_through_the_model(monkeypatch):
    embedder = embeddings.Embedder()
    sizes = _counting(embedder, monkeypatch)
    embedder.embed(["draft of a vessel"])
    embedder.clear_cache()
    embedder.embed(["draft of a vessel"])
    assert sizes == [1, 1]
    uncached = embeddings.Embedder(cache_size=0)
    sizes = _counting(uncached, monkeypatch)
    uncached.embed(["draft of a vessel"])
    uncached.embed(["draft of a vessel"])
    assert sizes == [1, 1] and not uncached._cache
