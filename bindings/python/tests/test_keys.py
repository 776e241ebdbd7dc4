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


def test_empty_key(f):
    assert f.add("")
    assert b"" in f
