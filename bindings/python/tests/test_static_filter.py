"""bloomkit.StaticFilter: built once from a key set, never a false negative, FPP 2**-b, the same
answers in memory, loaded and mapped, the same files as the C++ library, and every write refused
naming the kind."""

import json
import math
import random

import pytest

import bloomkit

KEYS = [f"https://example.com/{i}" for i in range(20000)]


def test_every_key_is_present_and_duplicates_are_one_key():
    keys = KEYS + KEYS[:5000]
    f = bloomkit.StaticFilter.build(keys, 0.001)
    assert len(f) == f.size == len(KEYS)
    assert f.fingerprint_bits == 10
    assert f.fpp == 2.0 ** -10
    assert all(k in f for k in KEYS)
    assert f.contains_many(KEYS) == len(KEYS)
    assert f.kind == "static" and f.hash_scheme == "xxh3-64-binary-fuse"
    assert f.bits == f.cells == bloomkit.StaticFilter.bits_for(len(KEYS), 0.001)
    assert f.bits_per_key == pytest.approx(f.bits / len(KEYS))


def test_bytes_and_ints_and_line_buffers_are_keys():
    f = bloomkit.StaticFilter.build([b"a", "b", 7], 0.01)
    assert b"a" in f and "a" in f and "b" in f and 7 in f
    g = bloomkit.StaticFilter.build(b"x\ny\nz\n", 0.01)
    assert len(g) == 3 and "y" in g


@pytest.mark.parametrize("fpp", [0.1, 0.01, 1 / 256])
def test_measured_fpp_is_two_to_the_minus_b(fpp):
    f = bloomkit.StaticFilter.build(KEYS, fpp)
    probes = [f"absent-{random.random()}" for _ in range(200000)]
    hits = f.contains_many(probes)
    p = f.fpp
    assert p <= fpp
    sigma = math.sqrt(len(probes) * p * (1 - p))
    assert abs(hits - len(probes) * p) <= 6 * sigma + 1


def test_empty_set():
    f = bloomkit.StaticFilter.build([], 0.01)
    assert len(f) == 0 and f.bits_per_key == 0
    assert f.contains_many(["a", "b"]) <= 2


def test_out_parameter_receives_each_answer():
    f = bloomkit.StaticFilter.build(KEYS[:100], 0.01)
    out = bytearray(4)
    f.contains_many([KEYS[0], KEYS[1], "nope-1", KEYS[2]], out)
    assert out[0] == out[1] == out[3] == 1


def test_save_load_open_mapped_answer_alike(tmp_path):
    path = tmp_path / "s.bloom"
    f = bloomkit.StaticFilter.build(KEYS, 0.01, threads=2)
    f.save(path)
    loaded = bloomkit.StaticFilter.load(path)
    mapped = bloomkit.StaticFilter.open_mapped(path)
    anyone = bloomkit.open_mapped(path)
    assert isinstance(anyone, bloomkit.StaticFilter)
    assert loaded == f and mapped == f and anyone == f
    assert mapped.read_only and not loaded.read_only
    probes = KEYS[:3000] + [f"absent-{i}" for i in range(3000)]
    answers = [k in f for k in probes]
    for g in (loaded, mapped, anyone):
        assert [k in g for k in probes] == answers
    assert f.info() == {k: v for k, v in bloomkit.info(path).items() if k != "file"}


def test_every_write_is_refused_naming_the_kind():
    f = bloomkit.StaticFilter.build(KEYS[:10], 0.01)
    for write in (lambda: f.add("x"), lambda: f.add_many(["x"]), lambda: f.test_and_add("x"),
                  lambda: f.merge(f), lambda: f.intersect(f), lambda: f.clear()):
        with pytest.raises(bloomkit.InvalidArgumentError, match="static filter"):
            write()
    assert len(f) == 10


def test_bad_fpp_is_refused_before_the_keys_are_read():
    def keys():
        raise AssertionError("read")
        yield "a"

    for fpp in (0.0, 1.0, 1e-12, float("nan")):
        with pytest.raises(bloomkit.InvalidArgumentError):
            bloomkit.StaticFilter.build(keys(), fpp)


def test_the_cli_reads_a_python_static_file(cli, tmp_path):
    path = tmp_path / "s.bloom"
    bloomkit.StaticFilter.build(KEYS, 1 / 256).save(path)
    out = cli("query", path, "--count", stdin="\n".join(KEYS).encode()).stdout
    assert str(len(KEYS)).encode() in out
    info = json.loads(cli("info", path, "--json").stdout)
    assert info["kind"] == "static" and info["fingerprint_bits"] == 8
    assert info["keys"] == len(KEYS)
    refused = cli("add", path, "x", check=False)
    assert refused.returncode == 1 and b"static filter" in refused.stderr
