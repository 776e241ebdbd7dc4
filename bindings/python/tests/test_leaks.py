"""A million calls leave reference counts and memory where they were."""

import sys

import numpy as np

import bloomkit


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_refcounts_and_memory_flat():
    f = bloomkit.BloomFilter.for_capacity(100000, 0.01)
    key_s, key_b, key_i = "some-key", b"bytes-key", 12345678901234
    batch = [key_s, key_b, key_i]
    array = np.arange(16, dtype=np.uint64)
    out = np.zeros(3, dtype=bool)
    counts = [sys.getrefcount(o) for o in (key_s, key_b, key_i, batch, array, out)]

    def work(n):
        for _ in range(n):
            f.add(key_s)
            key_b in f
            f.contains(key_i)
            f.test_and_add(key_b)
        for _ in range(n // 10):
            f.add_many(batch)
            f.contains_many(batch, out=out)
            f.contains_many(array)
            try:
                f.add(1.5)
            except TypeError:
                pass

    work(50_000)  # warm up allocators and caches
    before = rss_kib()
    work(250_000)  # a million single-key calls, 100,000 of each batch call
    after = rss_kib()
    assert [sys.getrefcount(o) for o in (key_s, key_b, key_i, batch, array, out)] == counts
    assert after - before < 2048, f"RSS grew by {after - before} KiB"
