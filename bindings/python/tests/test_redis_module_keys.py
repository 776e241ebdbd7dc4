"""bloomkit.pull_module_key / push_module_key / is_module_key against a real redis-server that
loads bloomkit's Redis module: every kind the module holds to a file and back, the same answers
on both sides, the files the CLI's `redis pull` writes, and the refusals."""

import json
from pathlib import Path

import numpy as np

import pytest

import bloomkit

if not bloomkit.has_redis:
    pytest.skip("built without bloomkit::redis", allow_module_level=True)

KEYS = [f"key{i}" for i in range(2000)]
ABSENT = [f"absent{i}" for i in range(2000)]

# (the command that makes key f, the kind and class of the file)
KINDS = [
    # BF.RESERVE makes RedisBloom's chain with bloomkit's hashing (type bkbloom--, issue 29): a
    # file of kind redisbloom, scheme redisbloom-xxh3.
    (("BF.RESERVE", "f", 0.01, 300), "redisbloom", bloomkit.RedisBloomFilter),
    (("BF.RESERVE", "f", 0.01, 5000, "NONSCALING"), "redisbloom", bloomkit.RedisBloomFilter),
    (("BK.RESERVE", "f", 300, 0.01, "KIND", "scalable"), "scalable", bloomkit.ScalableBloomFilter),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "classic"), "classic", bloomkit.BloomFilter),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "blocked"), "blocked", bloomkit.BlockedBloomFilter),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "counting"), "counting",
     bloomkit.CountingBloomFilter),
    # KIND scalable and window are the types of `--kind` (a chain of classic filters, the grouped
    # window), as everywhere.
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "scalable"), "scalable",
     bloomkit.ScalableBloomFilter),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "window", "WINDOW", 100000, "SLICES", 4), "window",
     bloomkit.WindowFilter),
]


@pytest.fixture
def server(module_server):
    module_server.command("FLUSHALL")
    return module_server


def exists_all(server, name, keys):
    return server.command("BF.MEXISTS", name, *keys)


@pytest.mark.parametrize("reserve,kind,cls", KINDS, ids=[f"{r[0]}-{k}" for r, k, _ in KINDS])
def test_pull_then_push_every_kind(server, tmp_path, cli, reserve, kind, cls):
    server.command(*reserve)
    server.command("BF.MADD", "f", *KEYS)
    assert bloomkit.is_module_key(server.url, "f")
    path = tmp_path / "f.bloom"
    s = bloomkit.pull_module_key(server.url, "f", path)
    assert s["kind"] == kind
    assert s["filters"] == server.command("BF.INFO", "f", "FILTERS")[0]
    f = bloomkit.load(path)
    assert type(f) is cls
    assert f.bits == s["bits"]
    assert all(key in f for key in KEYS)
    # The CLI writes the same file.
    cli_path = tmp_path / "cli.bloom"
    cli("redis", "--url", server.url, "pull", "f", cli_path)
    assert cli_path.read_bytes() == path.read_bytes()

    assert bloomkit.push_module_key(server.url, path, "g") == s
    assert bloomkit.is_module_key(server.url, "g")
    assert exists_all(server, "g", KEYS) == [1] * len(KEYS)
    assert exists_all(server, "g", ABSENT) == exists_all(server, "f", ABSENT)
    assert server.command("BF.INFO", "g") == server.command("BF.INFO", "f")


def test_a_local_filter_pushed_answers_as_it_does(server, tmp_path):
    f = bloomkit.BlockedBloomFilter.for_capacity(10_000, 0.01)
    f.add_many(KEYS)
    path = tmp_path / "local.bloom"
    f.save(path)
    s = bloomkit.push_module_key(server.url, path, "local")
    assert s["kind"] == "blocked" and s["filters"] == 1 and s["bits"] == f.bits
    answers = exists_all(server, "local", ABSENT)
    assert answers == [int(key in f) for key in ABSENT]
    assert exists_all(server, "local", KEYS) == [1] * len(KEYS)


def test_refusals(server, tmp_path):
    server.command("BF.MADD", "f", *KEYS[:10])
    path = tmp_path / "f.bloom"
    bloomkit.pull_module_key(server.url, "f", path)
    with pytest.raises(bloomkit.AlreadyExistsError, match="module key 'f' exists"):
        bloomkit.push_module_key(server.url, path, "f")
    with pytest.raises(bloomkit.NotFoundError, match="module key 'none' does not exist"):
        bloomkit.pull_module_key(server.url, "none", tmp_path / "none.bloom")
    server.command("SET", "s", "x")
    assert not bloomkit.is_module_key(server.url, "s")
    with pytest.raises(bloomkit.WrongTypeError, match="not a module filter"):
        bloomkit.pull_module_key(server.url, "s", tmp_path / "s.bloom")
    assert not (tmp_path / "none.bloom").exists() and not (tmp_path / "s.bloom").exists()
    # A peer's scheme is not a kind the module holds (every kind of bloomkit's own is).
    peer = (Path(__file__).resolve().parents[3] / "tests" / "data" / "golden" /
            "classic_guava_mitz64_long_flag.bloom")
    with pytest.raises(bloomkit.UnsupportedError, match="the module cannot hold it"):
        bloomkit.push_module_key(server.url, peer, "c")
    assert server.command("EXISTS", "c") == 0


def test_push_without_the_module(redis_server, tmp_path):
    path = tmp_path / "f.bloom"
    bloomkit.BloomFilter.for_capacity(100, 0.01).save(path)
    with pytest.raises(bloomkit.UnsupportedError, match="has no bloomkit module"):
        bloomkit.push_module_key(redis_server.url, path, "f")


@pytest.mark.parametrize("reserve", [
    ("BF.RESERVE", "m", 0.01, 1000),
    ("BK.RESERVE", "m", 40000, 0.01, "KIND", "window", "WINDOW", "7d", "SLICES", 4),
], ids=["scalable", "window"])
def test_module_filter_adds_looks_up_and_reports(server, cli, reserve):
    server.command(*reserve)
    f = bloomkit.RedisModuleFilter.open(server.url, "m")
    assert f.name == "m"
    assert f.add("a") and not f.add("a") and "a" in f and f.test_and_add("a")
    out = np.zeros(len(KEYS) + 1, dtype=bool)
    assert f.add_many(KEYS + ["a"], out=out) == out.sum() >= 0.97 * len(KEYS)
    assert not out[-1]
    # What it added, the module's own commands find; it answers as they do.
    assert exists_all(server, "m", KEYS) == [1] * len(KEYS)
    answers = bytearray(len(ABSENT))
    assert f.contains_many(ABSENT, out=answers) == sum(exists_all(server, "m", ABSENT))
    assert list(answers) == exists_all(server, "m", ABSENT)
    info = f.info()
    assert (info["name"], info["layout"]) == ("m", "module") and f.hashes == info["hashes"]
    assert info["inserted"] == server.command("BF.CARD", "m")
    # The CLI's info of the same key: the same fields.
    cli_info = json.loads(cli("redis", "--url", server.url, "info", "m", "--json").stdout)
    assert {k: v for k, v in cli_info.items() if k != "url"} == \
        {k: v for k, v in info.items() if k != "url"}
    f.close()


def test_module_filter_refusals(server):
    with pytest.raises(bloomkit.NotFoundError, match="module key 'none' does not exist"):
        bloomkit.RedisModuleFilter.open(server.url, "none")
    server.command("SET", "s", "x")
    with pytest.raises(bloomkit.WrongTypeError, match="holds a string, not a module filter"):
        bloomkit.RedisModuleFilter.open(server.url, "s")
    server.command("BF.RESERVE", "full", 0.01, 2, "NONSCALING")
    f = bloomkit.RedisModuleFilter.open(server.url, "full")
    with pytest.raises(bloomkit.ServerError, match="non scaling filter is full"):
        f.add_many(["k1", "k2", "k3"])
    # Deleted under the handle: an add does not create it again.
    server.command("DEL", "full")
    with pytest.raises(bloomkit.NotFoundError):
        f.add("k4")
    assert server.command("EXISTS", "full") == 0
