"""bloomkit.CuckooFilter: adds and removes of added keys never lose a key still added, a full
filter raises naming it and keeps what it stored, the FPP within bounds of the target, batches
answer as single calls, and the same answers in memory, loaded and mapped."""

import math
import random

import numpy as np
import pytest

import bloomkit

KEYS = [f"https://example.com/{i}" for i in range(20000)]


def test_add_contains_remove_count():
    f = bloomkit.CuckooFilter(1000, 0.01)
    assert f.add("a") is True and "a" in f and f.contains("a")
    assert f.add("a") and f.count("a") >= 2 and len(f) == f.items == 2
    assert f.remove("a") and "a" in f
    assert f.remove("a") and len(f) == 0
    assert f.count("a") == 0 and "a" not in f
    assert f.kind == "cuckoo" and f.hash_scheme == "xxh3-64-cuckoo"
    assert f.test_and_add("b") is False and f.test_and_add("b") is True and len(f) == 2


def test_remove_of_an_absent_fingerprint_changes_nothing():
    f = bloomkit.CuckooFilter(1000, 0.001)
    f.add_many(KEYS[:500])
    before = f.copy()
    absent = [k for k in (f"absent-{i}" for i in range(2000)) if k not in f]
    assert len(absent) > 1900
    assert not any(f.remove(k) for k in absent)
    assert f == before and len(f) == 500


def test_bytes_ints_numpy_and_lines_are_keys():
    f = bloomkit.CuckooFilter(1000, 0.01)
    assert f.add_many([b"x", "y", 7]) == 3
    assert b"x" in f and "x" in f and 7 in f
    assert f.add_many(np.arange(100, 200, dtype=np.uint64)) == 100
    assert all(i in f for i in range(100, 200))
    assert f.add_many(b"p\nq\n") == 2 and "q" in f
    assert f.remove_many(np.arange(100, 150, dtype=np.uint64)) == 50
    assert len(f) == 55


def test_size_is_a_third_of_the_counting_filters():
    n, p = 100000, 0.01
    f = bloomkit.CuckooFilter(n, p)
    counting = bloomkit.CountingBloomFilter.for_capacity(n, p)
    assert f.size_in_bytes == f.byte_size
    assert f.size_in_bytes <= 0.35 * counting.byte_size
    assert f.tables == 1 and f.expansion == 0 and 1 <= f.bucket_size <= 8
    assert f.slots >= n and f.load_factor == 0


@pytest.mark.parametrize("seed", range(6))
def test_adds_and_removes_of_added_keys_lose_no_key(seed):
    rng = random.Random(seed)
    capacity = 2000
    f = bloomkit.CuckooFilter(capacity, rng.choice([0.1, 0.01, 0.001]),
                              bucket_size=rng.choice([0, 2, 4]), expansion=rng.choice([0, 2]))
    pool = [f"k{seed}-{i}" for i in range(capacity // 2)]  # few enough: repeats of keys
    held = {}
    for step in range(6000):
        if held and rng.random() < 0.45:
            key = rng.choice(list(held))
            assert f.remove(key), f"step {step}: remove of added {key!r} failed"
            held[key] -= 1
            if not held[key]:
                del held[key]
        elif sum(held.values()) < capacity * 0.9:
            key = rng.choice(pool)
            if max(held.get(key, 0), f.count(key)) >= 2 * f.bucket_size - 1:
                continue  # 2b copies fill both of its buckets
            before = len(f)
            try:
                f.add(key)
            except bloomkit.TooLargeError:
                # Repeats can fill a key's two buckets and their neighbours long before the
                # table is: refused, nothing lost; a filter that may grow never refuses.
                assert f.expansion == 0 and len(f) == before
                continue
            held[key] = held.get(key, 0) + 1
        if step % 500 == 0 or step == 5999:
            assert all(k in f for k in held)
            assert all(f.count(k) >= c for k, c in held.items())
    assert len(f) == sum(held.values())
    out = bytearray(len(held))
    assert f.remove_many(list(held), out) == len(held) and all(out)


def test_a_full_filter_raises_naming_it_and_keeps_its_keys():
    f = bloomkit.CuckooFilter(1000, 0.01)
    stored = []
    with pytest.raises(bloomkit.TooLargeError, match="cuckoo filter is full") as e:
        for k in KEYS:
            f.add(k)
            stored.append(k)
    assert "not stored" in str(e.value)
    assert len(stored) >= 1000 and len(f) == len(stored)
    assert all(k in f for k in stored)

    g = bloomkit.CuckooFilter(1000, 0.01)
    with pytest.raises(bloomkit.TooLargeError, match=r"stored the first \d+ keys") as e:
        g.add_many(KEYS)
    assert len(g) >= 1000 and g.contains_many(KEYS[:len(g)]) == len(g)


def test_expansion_grows_instead_of_refusing():
    f = bloomkit.CuckooFilter(1000, 0.01, expansion=2)
    assert f.add_many(KEYS[:10000]) == 10000
    assert f.tables > 1 and len(f) == 10000
    assert f.contains_many(KEYS[:10000]) == 10000


@pytest.mark.parametrize("fpp", [0.01, 0.001])
def test_measured_fpp_within_bounds_at_capacity(fpp):
    f = bloomkit.CuckooFilter(len(KEYS), fpp)
    f.add_many(KEYS)
    probes = [f"absent-{i}" for i in range(200000)]
    hits = f.contains_many(probes)
    sigma = math.sqrt(len(probes) * fpp * (1 - fpp))
    assert hits <= len(probes) * fpp + 6 * sigma


def test_batches_answer_as_single_calls():
    f = bloomkit.CuckooFilter(5000, 0.01)
    f.add_many(KEYS[:3000])
    probes = KEYS[:4000]
    out = np.zeros(len(probes), dtype=bool)
    assert f.contains_many(probes, out) == int(out.sum())
    assert list(out) == [k in f for k in probes]
    absent = next(k for k in (f"absent-{i}" for i in range(100)) if k not in f)
    removed = bytearray(3)
    assert f.remove_many([KEYS[0], KEYS[1], absent], removed) == 2
    assert removed == b"\x01\x01\x00" and len(f) == 2998


def test_save_load_open_mapped_answer_alike(tmp_path):
    path = tmp_path / "c.bloom"
    f = bloomkit.CuckooFilter(5000, 0.01, expansion=2)
    f.add_many(KEYS[:12000])
    f.save(path)
    loaded = bloomkit.CuckooFilter.load(path)
    mapped = bloomkit.CuckooFilter.open_mapped(path)
    anyone = bloomkit.load(path)
    assert isinstance(anyone, bloomkit.CuckooFilter)
    assert loaded == f and mapped == f and anyone == f
    assert mapped.read_only and not loaded.read_only and mapped.tables == f.tables
    probes = KEYS[:3000] + [f"absent-{i}" for i in range(3000)]
    answers = [k in f for k in probes]
    for g in (loaded, mapped, anyone):
        assert [k in g for k in probes] == answers
    for write in (lambda: mapped.add("x"), lambda: mapped.remove(KEYS[0]),
                  lambda: mapped.add_many(["x"]), lambda: mapped.clear()):
        with pytest.raises(bloomkit.ReadOnlyError):
            write()
    assert f.info() == {k: v for k, v in bloomkit.info(path).items() if k != "file"}


def test_bad_parameters_and_undefined_operations_raise():
    for make in (lambda: bloomkit.CuckooFilter(0, 0.01), lambda: bloomkit.CuckooFilter(10, 0.0),
                 lambda: bloomkit.CuckooFilter(10, 1.0),
                 lambda: bloomkit.CuckooFilter(10, 0.01, bucket_size=9),
                 lambda: bloomkit.CuckooFilter(10, 0.01, max_kicks=0)):
        with pytest.raises(bloomkit.InvalidArgumentError):
            make()
    f = bloomkit.CuckooFilter(10, 0.01)
    for op in (lambda: f.merge(f), lambda: f.intersect(f)):
        with pytest.raises(bloomkit.InvalidArgumentError):
            op()
    with pytest.raises(TypeError):
        f.add_many("not a batch")


def test_the_cli_reads_and_removes_from_a_python_cuckoo_file(cli, tmp_path):
    path = tmp_path / "c.bloom"
    f = bloomkit.CuckooFilter(5000, 0.01)
    f.add_many(KEYS[:3000])
    f.save(path)
    out = cli("query", path, "--count", stdin="\n".join(KEYS[:3000]).encode()).stdout
    assert b"3000" in out
    cli("remove", path, KEYS[0], KEYS[1])
    g = bloomkit.CuckooFilter.load(path)
    assert len(g) == 2998 and g.count(KEYS[0]) <= f.count(KEYS[0]) - 1
    assert g.contains_many(KEYS[2:3000]) == 2998
