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
