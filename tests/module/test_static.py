"""Static keys of the module: a static filter file (made here by the client-side `redis rebuild
--kind static` and `redis pull`) pushed into a module key answers BF.EXISTS / BF.MEXISTS and the
BK.* twins exactly as the file does; every insert command refuses it naming the kind; SAVE and a
restart, DEBUG RELOAD and DUMP / RESTORE keep it; MEMORY USAGE counts its tables."""

import os

import pytest

from conftest import url

KEYS = [f"id:{i}" for i in range(20000)]
ABSENT = [f"stranger:{i}" for i in range(20000)]


@pytest.fixture
def static_key(server_factory, bloomkit, tmp_path):
    """A server holding module key `m` pushed from a static file of KEYS at p = 1%; returns
    (server, file)."""
    server = server_factory()
    keys = tmp_path / "keys.txt"
    keys.write_text("\n".join(KEYS) + "\n")
    at = ("redis", "--url", url(server))
    bloomkit(*at, "rebuild", "src", "--kind", "static", "--fpp", 0.01, keys)
    path = tmp_path / "s.bloom"
    bloomkit(*at, "pull", "src", path)
    out = bloomkit(*at, "push", "--module", path, "m").stdout
    assert out.startswith(f"pushed {path} to m: module key, static, "), out
    return server, path


def file_answers(bloomkit, path, keys):
    out = bloomkit("query", path, stdin="\n".join(keys) + "\n", check=False).stdout
    return [int(line.split("\t", 1)[0]) for line in out.splitlines()]


def test_answers_as_the_file_does(static_key, bloomkit):
    server, path = static_key
    r = server.client()
    assert r.execute_command("BF.MEXISTS", "m", *KEYS) == [1] * len(KEYS)
    assert r.execute_command("BK.MEXISTS", "m", *KEYS[:100]) == [1] * 100
    expected = file_answers(bloomkit, path, ABSENT)
    assert r.execute_command("BF.MEXISTS", "m", *ABSENT) == expected
    # About 2^-7 of the strangers pass (7-bit fingerprints), never all of them.
    assert 0 < sum(expected) < 0.02 * len(ABSENT)
    assert [r.execute_command("BF.EXISTS", "m", k) for k in ABSENT[:50]] == expected[:50]
    assert r.execute_command("BK.EXISTS", "m", KEYS[7]) == 1


@pytest.mark.parametrize("command", [
    ("BF.ADD", "m", "x"), ("BF.MADD", "m", "x", "y"), ("BF.INSERT", "m", "ITEMS", "x"),
    ("BF.INSERT", "m", "NOCREATE", "ITEMS", "x"), ("BK.ADD", "m", "x"), ("BK.MADD", "m", "x"),
])
def test_inserts_are_refused_naming_the_kind(static_key, command):
    server, _ = static_key
    r = server.client()
    before = r.dump("m")
    with pytest.raises(Exception) as e:
        r.execute_command(*command)
    assert "static filter" in str(e.value)
    assert r.dump("m") == before
    assert r.execute_command("BF.EXISTS", "m", "x") in (0, 1)


def test_save_restart_reload_dump_restore_and_memory(static_key, bloomkit):
    server, path = static_key
    r = server.client()
    expected = file_answers(bloomkit, path, ABSENT)
    usage = r.memory_usage("m")
    # The tables: about 8.3 bits per key at 7-bit fingerprints.
    assert 20000 * 8 / 8 < usage < 20000 * 10 / 8 + 4096, usage
    r.save()
    server.restart()
    r = server.client()
    assert r.execute_command("BF.MEXISTS", "m", *KEYS) == [1] * len(KEYS)
    assert r.execute_command("BF.MEXISTS", "m", *ABSENT) == expected
    r.execute_command("DEBUG", "RELOAD")
    assert r.execute_command("BF.MEXISTS", "m", *ABSENT) == expected
    r.restore("copy", 0, r.dump("m"))
    assert r.execute_command("BF.MEXISTS", "copy", *KEYS) == [1] * len(KEYS)
    assert r.execute_command("BF.MEXISTS", "copy", *ABSENT) == expected
    assert r.memory_usage("copy") == usage
    # Pulled back: the identical file.
    back = path.parent / "back.bloom"
    bloomkit("redis", "--url", url(server), "pull", "copy", back)
    assert back.read_bytes() == path.read_bytes()


GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "golden")


def test_the_golden_static_file_answers_every_probe_as_recorded(server_factory, bloomkit):
    """tests/data/golden/static_string (FORMAT.md's bytes) as a module key: every probe of the
    vector answers as recorded."""
    probes = []
    with open(os.path.join(GOLDEN, "static_string.txt")) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ")
            if parts[0] == "probe":
                probes.append((bytes.fromhex(parts[1]), int(parts[2])))
    assert len(probes) > 100
    server = server_factory()
    path = os.path.join(GOLDEN, "static_string.bloom")
    bloomkit("redis", "--url", url(server), "push", "--module", path, "golden")
    r = server.client()
    keys = [k for k, _ in probes]
    assert r.execute_command("BF.MEXISTS", "golden", *keys) == [p for _, p in probes]
