"""Files: byte-identical to the CLI's, load / open_mapped of any kind, info() as the CLI's JSON."""

import json

import pytest

import bloomkit

KEYS = [f"user-{i}" for i in range(3000)]


@pytest.mark.parametrize("kind,cls,extra", [
    ("classic", bloomkit.BloomFilter, {}),
    ("blocked", bloomkit.BlockedBloomFilter, {}),
    ("counting", bloomkit.CountingBloomFilter, {}),
    ("scalable", bloomkit.ScalableBloomFilter, {}),
])
def test_identical_to_cli(cli, tmp_path, kind, cls, extra):
    theirs = tmp_path / "cli.bloom"
    ours = tmp_path / "py.bloom"
    cli("create", theirs, "--capacity", 5000, "--fpp", 0.01, "--kind", kind)
    cli("add", theirs, stdin="\n".join(KEYS).encode() + b"\n")
    f = cls.for_capacity(5000, 0.01)
    f.add_many(KEYS)
    f.save(ours)
    assert ours.read_bytes() == theirs.read_bytes()
    # and the CLI's file answers the same in Python, loaded or mapped
    for g in (bloomkit.load(theirs), bloomkit.open_mapped(theirs)):
        assert type(g) is cls
        assert g.contains_many(KEYS) == len(KEYS)
        assert g == f


def test_window_file_identical_to_cli(cli, tmp_path):
    theirs = tmp_path / "cli.bloom"
    ours = tmp_path / "py.bloom"
    cli("create", theirs, "--capacity", 1000, "--fpp", 0.01, "--kind", "window", "--window", "1h",
        "--now", 1_700_000_000)
    cli("add", theirs, "--now", 1_700_000_000, stdin=b"a\nb\n")
    f = bloomkit.WindowFilter.for_capacity(1000, 0.01, window=3600)
    f.set_now(1_700_000_000)
    f.add_many(["a", "b"])
    f.save(ours)
    assert ours.read_bytes() == theirs.read_bytes()


def test_cli_queries_python_file(cli, tmp_path):
    path = tmp_path / "f.bloom"
    f = bloomkit.BloomFilter.for_capacity(1000, 0.01)
    f.add_many(KEYS[:500])
    f.save(path)
    out = cli("query", path, "--count", stdin="\n".join(KEYS[:500]).encode()).stdout
    assert out.strip().endswith(b"500") or b"500" in out


def test_info_is_the_cli_json(cli, tmp_path):
    path = tmp_path / "f.bloom"
    f = bloomkit.ScalableBloomFilter(100, 0.01)
    f.add_many(KEYS)
    f.save(path)
    theirs = json.loads(cli("info", path, "--json").stdout)
    assert bloomkit.info(path) == theirs
    assert bloomkit.open_mapped(path).info() == theirs
    mine = f.info()
    assert "file" not in mine
    assert mine == {k: v for k, v in theirs.items() if k != "file"}


def test_mapped_is_read_only_and_zero_copy(tmp_path):
    path = tmp_path / "f.bloom"
    f = bloomkit.BlockedBloomFilter.for_capacity(10000, 0.01)
    f.add_many(KEYS)
    f.save(path)
    m = bloomkit.open_mapped(path)
    assert m.read_only and not f.read_only
    assert m.contains_many(KEYS) == len(KEYS)
    with pytest.raises(bloomkit.ReadOnlyError) as e:
        m.add("x")
    assert isinstance(e.value, PermissionError) and e.value.code == bloomkit.ErrorCode.read_only
    assert bloomkit.BlockedBloomFilter.open_mapped(path, verify=False) == f


def test_load_wrong_class_names_what_file_holds(tmp_path):
    path = tmp_path / "f.bloom"
    bloomkit.CountingBloomFilter.for_capacity(100, 0.01).save(path)
    with pytest.raises(bloomkit.UnsupportedError, match="counting"):
        bloomkit.BloomFilter.load(path)


def test_file_errors(tmp_path):
    missing = tmp_path / "missing.bloom"
    with pytest.raises(bloomkit.FileError) as e:
        bloomkit.load(missing)
    assert isinstance(e.value, OSError) and "missing.bloom" in str(e.value)
    bad = tmp_path / "bad.bloom"
    bloomkit.BloomFilter.for_capacity(100, 0.01).save(bad)
    data = bytearray(bad.read_bytes())
    data[-1] ^= 0xFF
    bad.write_bytes(bytes(data))
    with pytest.raises(bloomkit.CorruptFileError, match="checksum") as e:
        bloomkit.open_mapped(bad)
    assert isinstance(e.value, OSError) and e.value.code == bloomkit.ErrorCode.corrupt_file


def test_overwritten_mapped_file_raises_not_crashes(tmp_path):
    path = tmp_path / "f.bloom"
    f = bloomkit.BloomFilter.for_capacity(100000, 0.01)
    f.save(path)
    m = bloomkit.open_mapped(path)
    with open(path, "r+b") as out:
        out.truncate(0)  # in place: the mapping loses its pages
    with pytest.raises(bloomkit.FileError):
        m.contains_many(KEYS)
