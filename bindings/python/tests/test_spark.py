"""Spark's BloomFilter (SparkFilter = V2, SparkV1Filter): read_spark / write_spark over vectors that
Spark itself wrote (tests/data/spark, or BLOOMKIT_SPARK_VECTORS), answering as Spark did."""

import json
import os
import pathlib

import pytest

import bloomkit


def vectors_dir():
    return pathlib.Path(os.environ.get("BLOOMKIT_SPARK_VECTORS") or (
        pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "spark"))


def vector(name):
    """A filter's manifest and its writeTo bytes."""
    root = vectors_dir()
    manifest = json.loads((root / f"{name}.json").read_text())
    return manifest, (root / manifest["serialized"]["file"]).read_bytes()


def items(group):
    """A probe group's items as Python keys: str for putString, int for putLong, bytes for
    putBinary (the small vectors list them all)."""
    listed = group["items"]
    if listed["type"] == "binary":
        return [bytes.fromhex(h) for h in listed["list"]]
    return list(listed["list"])


def spark_answers(group):
    trues = set(group.get("true_indexes", []))
    return [group["all_true"] or i in trues for i in range(group["count"])]


@pytest.mark.parametrize("name,cls", [
    ("v2_seed1234567_long_n1000_p0.01", bloomkit.SparkFilter),
    ("v2_seed0_binary_n1000_p0.01", bloomkit.SparkFilter),
    ("v1_string_n1000_p0.01", bloomkit.SparkV1Filter),
])
def test_read_answers_and_writes_as_spark(name, cls):
    manifest, data = vector(name)
    f = bloomkit.read_spark(data, name)
    assert type(f) is cls
    assert (f.bits, f.hashes) == (manifest["bit_size"], manifest["num_hash_functions"])
    if cls is bloomkit.SparkFilter:
        assert f.seed == manifest["seed"]
    for group in manifest["probe_groups"]:
        keys = items(group)
        out = bytearray(len(keys))
        f.contains_many(keys, out=out)
        assert [bool(a) for a in out] == spark_answers(group), group["name"]
        assert [k in f for k in keys[:50]] == spark_answers(group)[:50]
    assert bloomkit.write_spark(f) == data


def test_built_filter_is_spark_bytes():
    # Inserting Spark's put items into an empty filter of its parameters gives Spark's bytes.
    manifest, data = vector("v2_seed1234567_long_n1000_p0.01")
    f = bloomkit.SparkFilter(manifest["bit_size"], manifest["num_hash_functions"],
                             seed=manifest["seed"])
    f.add_many(items(manifest["probe_groups"][0]))
    assert bloomkit.write_spark(f) == data
    g = bloomkit.SparkFilter.for_capacity(manifest["expected_num_items"], manifest["fpp"],
                                          seed=manifest["seed"])
    assert (g.bits, g.hashes) == (f.bits, f.hashes)


def test_save_load_and_cli(tmp_path, cli):
    manifest, data = vector("v2_seed1234567_long_n1000_p0.01")
    f = bloomkit.read_spark(data, key_type="long")
    assert f.key_type == "long"
    f.save(tmp_path / "s.bloom")
    g = bloomkit.load(tmp_path / "s.bloom")
    assert type(g) is bloomkit.SparkFilter and g == f and g.key_type == "long"
    assert g.info()["seed"] == str(manifest["seed"])
    cli("export", tmp_path / "s.bloom", tmp_path / "s.bin", "--to", "spark")
    assert (tmp_path / "s.bin").read_bytes() == data
    v1 = bloomkit.SparkV1Filter.for_capacity(100, 0.01)
    v1.add(b"\x00\xff")
    v1.save(tmp_path / "v1.bloom", key_type="binary")
    assert bloomkit.load(tmp_path / "v1.bloom").key_type == "string"


def test_bad_bytes_are_errors():
    with pytest.raises(bloomkit.CorruptFileError, match="in.bin"):
        bloomkit.read_spark(b"\x00\x00\x00\x02\x00\x00\x00\x07", source="in.bin")
    with pytest.raises(bloomkit.UnsupportedError, match="in.bin"):
        bloomkit.read_spark(b"\x00\x00\x00\x03" + bytes(12), source="in.bin")
    with pytest.raises(bloomkit.InvalidArgumentError, match="key_type"):
        bloomkit.read_spark(vector("v1_string_n100_p0.01")[1], key_type="utf16")
