"""The peers' formats: Guava and bits-and-blooms bytes, agreeing with the CLI's import/export."""

import pytest

import bloomkit

KEYS = [f"k{i}" for i in range(1000)]


@pytest.mark.parametrize("cls", [bloomkit.GuavaFilter, bloomkit.Guava32Filter])
def test_guava_round_trip(cls):
    f = cls.for_capacity(2000, 0.01)
    f.add_many(KEYS)
    data = bloomkit.write_guava(f)
    g = bloomkit.read_guava(data)
    assert type(g) is cls and g == f
    assert g.contains_many(KEYS) == len(KEYS)


def test_bits_and_blooms_round_trip():
    f = bloomkit.BitsAndBloomsFilter.for_capacity(2000, 0.01)
    f.add_many(KEYS)
    assert bloomkit.read_bits_and_blooms(bloomkit.write_bits_and_blooms(f)) == f
    text = bloomkit.write_bits_and_blooms_json(f)
    assert text.startswith('{"m":')
    assert bloomkit.read_bits_and_blooms_json(text) == f
    assert bloomkit.read_bits_and_blooms_json(text.encode()) == f


def test_export_matches_cli(cli, tmp_path):
    path = tmp_path / "g.bloom"
    f = bloomkit.GuavaFilter.for_capacity(2000, 0.01)
    f.add_many(KEYS)
    f.save(path)
    cli("export", path, tmp_path / "g.guava", "--to", "guava")
    assert (tmp_path / "g.guava").read_bytes() == bloomkit.write_guava(f)
    b = bloomkit.BitsAndBloomsFilter.for_capacity(2000, 0.01)
    b.add_many(KEYS)
    (tmp_path / "b.bin").write_bytes(bloomkit.write_bits_and_blooms(b))
    cli("import", tmp_path / "b.bin", tmp_path / "b.bloom", "--from", "bits-and-blooms")
    assert bloomkit.load(tmp_path / "b.bloom") == b


def test_long_keys_recorded(tmp_path):
    f = bloomkit.GuavaFilter.for_capacity(100, 0.01)
    f.add(-42)
    f.save(tmp_path / "l.bloom", key_type="long")
    g = bloomkit.load(tmp_path / "l.bloom")
    assert g.key_type == "long" and -42 in g
    assert g.info()["key_type"] == "long"


def test_corrupt_peer_bytes():
    with pytest.raises(bloomkit.CorruptFileError, match="in.guava"):
        bloomkit.read_guava(b"\x01\x07", source="in.guava")


def redisbloom_vector(name):
    """A key of the RedisBloom vectors (tests/data/redisbloom, or BLOOMKIT_REDISBLOOM_VECTORS)."""
    import json
    import os
    import pathlib

    root = os.environ.get("BLOOMKIT_REDISBLOOM_VECTORS") or (
        pathlib.Path(__file__).resolve().parents[3] / "tests" / "data" / "redisbloom")
    files = sorted((pathlib.Path(root) / "keys").glob("*.json"))
    chosen = [f for f in files if name in f.name] or files
    return json.loads(chosen[0].read_text())


def test_redisbloom_dump_answers_as_redisbloom(tmp_path, cli):
    v = redisbloom_vector("exp2_past")
    f = bloomkit.read_redisbloom_dump(bytes.fromhex(v["dump_hex"]), v["key"])
    assert isinstance(f, bloomkit.RedisBloomFilter)
    items = [bytes.fromhex(h) for h in v["items_hex"]]
    absent = [bytes.fromhex(h) for h in v["probes"]["absent_hex"]]
    out = bytearray(len(items))
    f.contains_many(items, out=out)
    assert "".join("1" if a else "0" for a in out) == v["probes"]["added_answers"]
    out = bytearray(len(absent))
    f.contains_many(absent, out=out)
    assert "".join("1" if a else "0" for a in out) == v["probes"]["absent_answers"]
    assert f.filters == v["info"]["Number of filters"]
    assert f.redisbloom_size == v["info"]["Size"]
    assert f.expansion == v["info"]["Expansion rate"]
    # A saved file loads as the same filter; the CLI's export gives our DUMP payload.
    f.save(tmp_path / "r.bloom")
    g = bloomkit.load(tmp_path / "r.bloom")
    assert type(g) is bloomkit.RedisBloomFilter and g == f
    cli("export", tmp_path / "r.bloom", tmp_path / "r.dump", "--to", "redisbloom")
    assert (tmp_path / "r.dump").read_bytes() == bloomkit.write_redisbloom_dump(f)
    assert bloomkit.read_redisbloom_dump(bloomkit.write_redisbloom_dump(f)) == f


def test_redisbloom_filter_is_full_when_non_scaling():
    f = bloomkit.RedisBloomFilter(10, 0.01, non_scaling=True)
    assert f.expansion is None
    with pytest.raises(bloomkit.TooLargeError, match="full"):
        for i in range(1000):
            f.add(f"key-{i}")
    assert f.inserted == 10
    with pytest.raises(bloomkit.CorruptFileError):
        bloomkit.read_redisbloom_dump(b"\x07" + b"\x00" * 20)
