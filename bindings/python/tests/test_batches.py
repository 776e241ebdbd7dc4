"""Batches of every input type: the same answers as single keys, no false negatives."""

import numpy as np
import pytest

import bloomkit

N = 20000
KINDS = [
    lambda: bloomkit.BloomFilter.for_capacity(N, 0.01),
    lambda: bloomkit.BlockedBloomFilter.for_capacity(N, 0.01),
    lambda: bloomkit.CountingBloomFilter.for_capacity(N, 0.01),
    lambda: bloomkit.ScalableBloomFilter(1000, 0.01),
    lambda: bloomkit.WindowFilter.for_capacity(N, 0.01, window=3600),
]


def inputs():
    words = [f"https://example.com/{i}" for i in range(N)]
    ints = np.arange(N, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    text = "\n".join(words).encode()
    return {
        "list-str": (words, words),
        "tuple-bytes": (tuple(w.encode() for w in words), words),
        "generator": ((w for w in words), words),
        "list-mixed": ([w if i % 2 else w.encode() for i, w in enumerate(words)], words),
        "list-int": ([int(v) for v in ints], [int(v) for v in ints]),
        "numpy-uint64": (ints, [int(v) for v in ints]),
        "numpy-int64": (ints.view(np.int64), [int(v) for v in ints]),
        "lines-bytes": (text, words),
        "lines-crlf-bytearray": (bytearray(b"\r\n".join(w.encode() for w in words) + b"\r\n"),
                                 words),
        "lines-memoryview": (memoryview(text), words),
    }


@pytest.mark.parametrize("make", KINDS, ids=["classic", "blocked", "counting", "scalable", "window"])
@pytest.mark.parametrize("name", list(inputs()))
def test_no_false_negatives(make, name):
    batch, singles = inputs()[name]
    f = make()
    added = f.add_many(batch)
    assert 0 < added <= N
    assert all(k in f for k in singles)
    again, _ = inputs()[name]
    assert f.contains_many(again) == N
    out = np.zeros(N, dtype=bool)
    assert f.contains_many(inputs()[name][0], out=out) == N
    assert out.all()


def test_answers_match_single_keys():
    f = bloomkit.BloomFilter.for_capacity(1000, 0.05)
    f.add_many([f"k{i}" for i in range(1000)])
    probe = [f"k{i}" for i in range(500, 5000)]
    out = bytearray(len(probe))
    present = f.contains_many(probe, out=out)
    assert list(out) == [int(k in f) for k in probe]
    assert present == sum(out)


def test_small_int_arrays_hash_their_width():
    f = bloomkit.BloomFilter(1 << 20, 7)
    f.add_many(np.array([1, 2, 3], dtype=np.uint32))
    assert (1).to_bytes(4, "little") in f
    assert 1 not in f  # an int is 8 bytes: another key


def test_bad_batches():
    f = bloomkit.BloomFilter.for_capacity(100, 0.01)
    with pytest.raises(TypeError, match="not a str"):
        f.add_many("abc")
    with pytest.raises(TypeError, match="format 'd'"):
        f.add_many(np.zeros(3))
    with pytest.raises(TypeError, match="not float"):
        f.add_many(["a", 1.5])
    with pytest.raises(bloomkit.InvalidArgumentError, match="out has 2 items for 3 keys"):
        f.contains_many(["a", "b", "c"], out=bytearray(2))
    with pytest.raises(bloomkit.InvalidArgumentError):
        f.contains_many(iter(["a", "b", "c"]), out=bytearray(2))
    with pytest.raises(bloomkit.InvalidArgumentError):
        f.contains_many(iter(["a"]), out=bytearray(2))


def test_threads_share_a_filter():
    import threading
    f = bloomkit.BlockedBloomFilter.for_capacity(200_000, 0.01)
    keys = np.arange(200_000, dtype=np.uint64)
    errors = []

    def guarded(fn):
        def run(*args):
            try:
                fn(*args)
            except Exception as e:  # noqa: BLE001 - reported by the assert below
                errors.append(e)
        return run

    @guarded
    def writer(part):
        f.add_many(part)

    @guarded
    def reader():
        for _ in range(5):
            f.contains_many(keys)

    parts = [np.ascontiguousarray(keys[i::4]) for i in range(4)]
    threads = [threading.Thread(target=writer, args=(part,)) for part in parts]
    threads += [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert f.contains_many(keys) == len(keys)


def test_long_and_non_ascii_keys_hash_as_single_keys(tmp_path):
    # Chunks that end on their bytes (key_batch::chunk_bytes) rather than their count, a key
    # longer than a whole chunk, str that are not ASCII (their cached UTF-8), a str subclass and
    # buffer keys: a batch sets the very bits that the same keys added one by one set.
    class Text(str):
        pass

    keys = [f"é{i}" * 150 for i in range(4000)] + ["x" * (3 << 20), Text("sub"), "€uro"]
    keys += [bytearray(b"y" * 100_000), memoryview(b"zz"), b"", "", 7, -1]
    batch = bloomkit.BloomFilter.for_capacity(10_000, 0.01)
    single = bloomkit.BloomFilter.for_capacity(10_000, 0.01)
    batch.add_many(keys)
    for k in keys:
        single.add(k)
    batch.save(tmp_path / "batch.bkf")
    single.save(tmp_path / "single.bkf")
    assert (tmp_path / "batch.bkf").read_bytes() == (tmp_path / "single.bkf").read_bytes()
    out = bytearray(len(keys))
    assert batch.contains_many(iter(keys), out=out) == len(keys)
    assert all(out)


ANSWERING = KINDS + [
    lambda: bloomkit.WindowFilter(300, 0.01, window=300, unit="inserts", slices=3),
    lambda: bloomkit.BlockedWindowFilter(300, 0.01, window=300, unit="inserts", slices=3),
    lambda: bloomkit.ScalableBlockedBloomFilter(100, 0.01),
    lambda: bloomkit.GuavaFilter.for_capacity(N, 0.01),
]


@pytest.mark.parametrize("make", ANSWERING,
                         ids=["classic", "blocked", "counting", "scalable", "window",
                              "count-window", "count-blocked-window", "scalable-blocked", "guava"])
def test_add_many_out_answers_as_add_does(make):
    # Per key, what add() answers in order: repeats within the batch are new once; a count window
    # of 100-insert slices crosses slices within the batch and forgets the first keys.
    batched, looped = make(), make()
    keys = [f"https://example.com/{i}" for i in range(3000)]
    keys[::7] = keys[:len(keys[::7])]
    keys[2000::11] = keys[:len(keys[2000::11])]
    expected = [looped.add(k) for k in keys]
    assert 0 < sum(expected) < len(keys)
    out = np.zeros(len(keys), dtype=bool)
    assert batched.add_many(keys, out=out) == sum(expected)
    assert out.tolist() == expected
    assert batched.contains_many(keys) == looped.contains_many(keys)
    again = bytearray(len(keys))
    assert batched.add_many(iter(keys), out=again) == looped.add_many(keys)
    with pytest.raises(bloomkit.InvalidArgumentError, match="out has 2 items for 3 keys"):
        batched.add_many(["a", "b", "c"], out=bytearray(2))
