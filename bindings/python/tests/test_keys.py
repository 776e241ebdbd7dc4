"""What a key means: the bytes the C++ library hashes (str as UTF-8, bytes-like as is, int as
its 8 little-endian bytes)."""

import struct

import pytest

import bloomkit


@pytest.fixture
def f():
    return bloomkit.BloomFilter(1 << 20, 7)


def test_str_is_its_utf8(f):
    f.add("héllo ✓")
    assert "héllo ✓".encode() in f
    assert bytearray("héllo ✓".encode()) in f
    assert memoryview("héllo ✓".encode()) in f


def test_int_is_eight_little_endian_bytes(f):
    for value in [0, 1, -1, -42, 2**63 - 1, -2**63, 2**63, 2**64 - 1]:
        f.add(value)
        assert struct.pack("<Q", value % 2**64) in f
    g = bloomkit.BloomFilter(1 << 20, 7)
    g.add(struct.pack("<q", -5))
    assert -5 in g and 2**64 - 5 in g  # the same 8 bytes


def test_out_of_range_and_wrong_types(f):
    with pytest.raises(OverflowError):
        f.add(2**64)
    with pytest.raises(OverflowError):
        f.add(-2**63 - 1)
    with pytest.raises(TypeError, match="not float"):
        f.add(1.5)
    with pytest.raises(TypeError):
        1.5 in f
    with pytest.raises(UnicodeEncodeError):
        f.add("\udc80")  # a lone surrogate has no UTF-8


def test_floating_point_numbers_are_refused_however_they_come(f):
    """One rule: a float is not a key, whether Python's or NumPy's (np.float64 used to be hashed
    as its 8 raw bytes while 1.5 was refused), one at a time or in a batch."""
    np = pytest.importorskip("numpy")
    floats = [1.5, np.float64(1.5), np.float32(1.5), np.float16(1.5), np.longdouble(1.5),
              np.array(1.5), np.array([1.5, 2.5]), memoryview(struct.pack("<d", 1.5)).cast("d"),
              1.5j, np.complex128(1.5j)]
    for key in floats:
        name = type(key).__name__
        for call in (f.add, f.contains, f.test_and_add, f.__contains__):
            with pytest.raises(TypeError, match=rf"not {name}|not numpy\.{name}"):
                call(key)
        for batch in (lambda: [key], lambda: ["ok", key], lambda: iter([key])):
            with pytest.raises(TypeError, match=rf"not {name}|not numpy\.{name}"):
                f.add_many(batch())
            with pytest.raises(TypeError, match="floating-point number is not a key"):
                f.contains_many(batch())
    assert f.estimated_count() == 0  # nothing was added, not even "ok" before a float
    # Whole numbers: int(x). NumPy integer scalars stay keys (their own width's bytes).
    f.add(int(np.float64(3.0)))
    assert 3 in f
    f.add(np.int64(7))
    assert 7 in f


def test_empty_key(f):
    assert f.add("")
    assert b"" in f
