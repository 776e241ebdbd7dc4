"""Every filter class: constructors, single keys, merge / intersect, the kinds' extras."""

import time

import pytest

import bloomkit

SIZED = [bloomkit.BloomFilter, bloomkit.BlockedBloomFilter, bloomkit.CountingBloomFilter,
         bloomkit.GuavaFilter, bloomkit.Guava32Filter, bloomkit.BitsAndBloomsFilter]
GROWING = [bloomkit.ScalableBloomFilter, bloomkit.ScalableBlockedBloomFilter]


def every_kind(n=1000, p=0.01):
    filters = [cls.for_capacity(n, p) for cls in SIZED + GROWING]
    # a window's slices each hold capacity / slices keys: room for them all in the current one
    filters.append(bloomkit.WindowFilter.for_capacity(8 * n, p, window=3600))
    filters.append(bloomkit.BlockedWindowFilter.for_capacity(8 * n, p, window=3600))
    filters.append(bloomkit.ClassicWindowFilter.for_capacity(8 * n, p, window=100_000,
                                                             unit="inserts"))
    return filters


@pytest.mark.parametrize("f", every_kind(), ids=lambda f: type(f).__name__)
def test_add_and_lookup(f):
    keys = [f"key-{i}" for i in range(500)]
    assert all(f.add(k) for k in keys[:10])  # new keys in an empty filter are new
    assert not f.add(keys[0])
    for k in keys:
        f.add(k)
    assert all(k in f for k in keys)
    assert all(f.contains(k) for k in keys)
    assert f.test_and_add(keys[1])
    absent = sum(f"other-{i}" in f for i in range(10000))
    assert absent < 10000 * 0.05  # FPP near 1%, far from 5%
    assert f.estimated_count() == pytest.approx(500, rel=0.15)
    assert 0 < f.fill_ratio() < 1


def test_constructors_and_properties():
    f = bloomkit.BloomFilter(1 << 16, 5)
    assert (f.bits, f.hashes, f.kind, f.hash_scheme) == (1 << 16, 5, "classic", "xxh3-128")
    b = bloomkit.BlockedBloomFilter(1000)
    assert b.bits == 1024 and b.blocks == 4
    assert bloomkit.BlockedBloomFilter.with_blocks(8).blocks == 8
    c = bloomkit.CountingBloomFilter(1000, 3)
    assert c.counters == 1000
    s = bloomkit.ScalableBloomFilter(100, 0.01, growth=4, tightening=0.5)
    assert (s.initial_capacity, s.growth, s.tightening) == (100, 4, 0.5)
    w = bloomkit.WindowFilter(1000, 0.01, 60, slices=4)
    assert (w.window, w.unit, w.slices) == (60, "seconds", 4)


def test_same_bits_as_peers_sizing():
    assert bloomkit.GuavaFilter.for_capacity(1000, 0.01).bits % 64 == 0


def test_merge_and_intersect():
    a = bloomkit.BloomFilter.for_capacity(1000, 0.01)
    b = bloomkit.BloomFilter.for_capacity(1000, 0.01)
    a.add_many(["x", "y"])
    b.add_many(["y", "z"])
    u = a.copy()
    u.merge(b)
    assert all(k in u for k in "xyz")
    a.intersect(b)
    assert "y" in a and "x" not in a
    with pytest.raises(bloomkit.IncompatibleError):
        a.merge(bloomkit.BloomFilter.for_capacity(10, 0.01))
    with pytest.raises(bloomkit.UnsupportedError):
        s = bloomkit.ScalableBloomFilter(10, 0.01)
        s.merge(s.copy())


def test_counting_remove():
    c = bloomkit.CountingBloomFilter.for_capacity(1000, 0.01)
    c.add("a")
    c.add("a")
    assert c.remove("a") and "a" in c
    assert c.remove("a") and "a" not in c
    assert not c.remove("a")
    c.add("b")
    assert c.to_bloom_filter().contains("b")
    assert 1 <= c.nonzero_counters() <= c.hashes


def test_scalable_grows():
    s = bloomkit.ScalableBloomFilter(100, 0.01)
    keys = [f"k{i}" for i in range(5000)]
    assert s.add_many(keys) <= 5000
    assert s.sub_filter_count > 1
    assert s.contains_many(keys) == 5000
    assert s.estimated_fpp() <= 0.01


def test_window_forgets():
    w = bloomkit.WindowFilter.for_capacity(1000, 0.01, window=80, slices=8)
    w.set_now(1_000_000)
    w.add("old")
    w.set_now(1_000_000 + 50)
    assert "old" in w  # within the window
    w.set_now(1_000_000 + 200)
    assert "old" not in w  # more than W + W/S later
    c = bloomkit.ClassicWindowFilter.for_capacity(100, 0.01, window=16, unit="inserts", slices=4)
    c.add("first")
    c.add_many([f"k{i}" for i in range(40)])
    assert "first" not in c and c.insert_count == 41


def test_equality_and_clear():
    a = bloomkit.BloomFilter.for_capacity(100, 0.01)
    b = bloomkit.BloomFilter.for_capacity(100, 0.01)
    a.add("k")
    assert a != b
    b.add("k")
    assert a == b
    a.clear()
    assert "k" not in a


@pytest.mark.parametrize("kind", ["WindowFilter", "BlockedWindowFilter", "ClassicWindowFilter"])
def test_window_time_never_erases_a_live_slice(kind):
    hour = 3600
    w = getattr(bloomkit, kind).for_capacity(6000, 0.01, window=hour, slices=6)
    t0 = (int(time.time()) // 600) * 600 - 30 * 86400  # a month ago
    keys = []
    for minute in range(60):
        w.set_now(t0 + minute * 60)
        batch = [f"{minute}/{i}" for i in range(100)]
        w.add_many(batch)
        keys += batch
    # A backfill from the day before: refused, nothing erased.
    w.set_now(t0 - 86400)
    with pytest.raises(ValueError, match=f"time {t0 - 86400} is older than the window"):
        w.add("late-event")
    assert w.contains_many(keys) == len(keys)  # a clock behind the newest slice hides nothing
    w.set_now(t0 + 1800)
    assert w.add("half-an-hour-late")
    w.set_now(t0 + hour - 1)
    assert "half-an-hour-late" in w and w.contains_many(keys) == len(keys)
    with pytest.raises(ValueError, match="looks like milliseconds"):
        w.set_now((t0 + hour) * 1000)
    ahead = int(time.time()) + 86400
    w.set_now(ahead)
    with pytest.raises(ValueError, match="ahead of the system clock"):
        w.add("k")
    w.set_now(t0 + hour - 1)
    assert w.contains_many(keys) == len(keys)
    w.set_now(ahead, clock_moved=True)
    assert w.add("k") and "k" in w and keys[-1] not in w
