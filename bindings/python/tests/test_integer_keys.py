"""Filters of integer keys (key_type='long'): NumPy arrays of every integer width and ints hash
by the integer scheme; keys of the other type are refused; files keep the scheme."""

import os
import subprocess

import numpy as np
import pytest

import bloomkit

N = 5000
CLASSES = [
    (bloomkit.BloomFilter, "splitmix64-128"),
    (bloomkit.BlockedBloomFilter, "splitmix64-split-block"),
    (bloomkit.CountingBloomFilter, "splitmix64-128"),
]
DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("cls,scheme", CLASSES)
def test_integer_filter_records_its_scheme(cls, scheme):
    f = cls.for_capacity(N, 0.01, key_type="long")
    assert f.key_type == "long"
    assert f.hash_scheme == scheme
    assert f.info()["key_type"] == "long"
    assert cls.for_capacity(N, 0.01).key_type == "string"  # unchanged default


@pytest.mark.parametrize("cls,scheme", CLASSES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_no_false_negative_for_any_width(cls, scheme, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(7)
    keys = rng.integers(info.min, info.max, size=N, dtype=dtype, endpoint=True)
    f = cls.for_capacity(N, 0.01, key_type="long")
    f.add_many(keys)
    out = np.zeros(N, dtype=bool)
    assert f.contains_many(keys, out=out) == N and out.all()
    # The same values as Python ints, and as int64: the same keys (widened by value).
    assert f.contains_many([int(k) for k in keys[:100]]) == 100
    assert f.contains_many(keys.astype(np.int64)) == N
    assert all(int(k) in f for k in keys[:100])


@pytest.mark.parametrize("cls,scheme", CLASSES)
def test_a_value_is_one_key_whatever_its_width(cls, scheme):
    f = cls.for_capacity(100, 0.001, key_type="long")
    assert f.add_many(np.array([-1], dtype=np.int8)) == 1
    assert f.add(-1) is False
    assert f.add(2**64 - 1) is False  # the bits of -1
    assert f.contains_many(np.array([-1], dtype=np.int32)) == 1
    assert f.add(2**32 - 1) is True  # another value
    with pytest.raises(OverflowError):
        f.add(2**64)


@pytest.mark.parametrize("cls,scheme", CLASSES)
def test_fpp_near_the_target(cls, scheme):
    n = 20000
    f = cls.for_capacity(n, 0.01, key_type="long")
    f.add_many(np.arange(n, dtype=np.uint64))
    queries = 200000
    hits = f.contains_many(np.arange(n, n + queries, dtype=np.uint64))
    mean = 0.01 * queries
    assert hits < mean + 6 * (mean**0.5)
    assert hits > mean / 3  # a filter that answers no for everything is no filter


@pytest.mark.parametrize("cls,scheme", CLASSES)
def test_other_key_types_are_refused(cls, scheme):
    f = cls.for_capacity(100, 0.01, key_type="long")
    for bad in ("x", b"x"):
        with pytest.raises(TypeError, match="integer keys"):
            f.add(bad)
        with pytest.raises(TypeError, match="integer keys"):
            f.contains(bad)
        with pytest.raises(TypeError, match="integer keys"):
            f.add_many([bad])
        with pytest.raises(TypeError, match="integer keys"):
            f.contains_many([1, bad])
    with pytest.raises(TypeError, match="text lines"):
        f.add_many(b"1\n2\n")
    assert f.inserted == 0
    with pytest.raises(bloomkit.InvalidArgumentError):
        cls.for_capacity(100, 0.01, key_type="int")
    # A string filter keeps taking ints as their bytes; the two cannot be merged.
    s = cls.for_capacity(100, 0.01)
    assert s.add_many(np.arange(3, dtype=np.uint64)) == 3
    with pytest.raises(bloomkit.IncompatibleError, match="key types differ"):
        f.merge(s)


@pytest.mark.parametrize("cls,scheme", CLASSES)
def test_files_keep_the_scheme(cls, scheme, tmp_path):
    f = cls.for_capacity(N, 0.01, key_type="long")
    keys = np.arange(-N, N, 2, dtype=np.int64)
    f.add_many(keys)
    path = str(tmp_path / "f.bloom")
    f.save(path)
    for g in (bloomkit.load(path), bloomkit.open_mapped(path)):
        assert g.key_type == "long" and g.hash_scheme == scheme
        assert g.contains_many(keys) == len(keys)
        with pytest.raises(TypeError):
            g.contains("1")
    # The CLI reads the same file as integers.
    exe = os.environ.get("BLOOMKIT_EXE")
    if exe:
        out = subprocess.run([exe, "query", path, "-4", "--count"], capture_output=True,
                             text=True, check=True)
        assert out.stdout.split()[0] == "present=1"


def test_counting_removes_integer_keys():
    c = bloomkit.CountingBloomFilter.for_capacity(100, 0.01, key_type="long")
    c.add_many(np.array([5, 5, 6], dtype=np.uint32))
    assert c.remove(5) and c.remove(5)
    assert 6 in c
    with pytest.raises(TypeError):
        c.remove("5")
