"""A Redis filter that is gone (deleted, expired or evicted under its open handle) is an error on
every call of every class, never an answer: NotFoundError, as the CLI says "does not exist". The
module's BF.MEXISTS answers 0 for a missing key (RedisBloom's rule), so RedisModuleFilter's
lookups check the key in the same round trip."""

import os
import time

import numpy as np
import pytest

import bloomkit
from conftest import RedisServer

pytestmark = pytest.mark.skipif(not bloomkit.has_redis, reason="built without bloomkit::redis")
KEYS = [f"key{i}" for i in range(3000)]  # more than one module command (1000 keys)
NOW = int(time.time())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A redis-server, with bloomkit's module when BLOOMKIT_REDIS_MODULE names it (CTest sets it
    when the module is built)."""
    module = os.environ.get("BLOOMKIT_REDIS_MODULE")
    extra = ("--loadmodule", module) if module and os.path.exists(module) else ()
    s = RedisServer(tmp_path_factory.mktemp("redis_gone"), *extra)
    s.has_module = bool(extra)
    yield s
    s.stop()


def lose(server, cli, how, name):
    """Makes every key of the server (the filter's: each test starts from FLUSHALL) go away."""
    keys = server.command("KEYS", "*")
    assert keys
    if how == "deleted":
        server.command("DEL", *keys)
    elif how == "expired":
        if server.command("TYPE", name) != b"none":  # a module key: as the issue has it
            cli("redis", "--url", server.url, "expire", name, 1)
            time.sleep(1.05)
        else:
            for k in keys:
                server.command("PEXPIRE", k, 1)
            time.sleep(0.01)
    else:
        evicted = _stat(server, "evicted_keys")
        server.command("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
        server.command("CONFIG", "SET", "maxmemory", 1)
        try:
            deadline = time.monotonic() + 5
            while server.command("DBSIZE") and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            server.command("CONFIG", "SET", "maxmemory", 0)
        assert _stat(server, "evicted_keys") >= evicted + len(keys)
    assert live_keys(server) == []


def live_keys(server):
    return server.command("KEYS", "*")  # not DBSIZE: it counts expired keys not yet reclaimed


def _stat(server, name):
    for line in server.command("INFO", "stats").decode().splitlines():
        if line.startswith(name + ":"):
            return int(line.split(":")[1])
    raise AssertionError(f"INFO stats has no {name}")


def key_calls(f):
    """Every key method of the Redis classes (redis_handle.hpp)."""
    out = np.zeros(len(KEYS), dtype=bool)
    return {
        "contains": lambda: f.contains(KEYS[0]),
        "in": lambda: KEYS[0] in f,
        "contains_many": lambda: f.contains_many(KEYS),
        "contains_many_out": lambda: f.contains_many(KEYS, out=out),
        "contains_many_ints": lambda: f.contains_many(np.arange(10, dtype=np.uint64)),
        "add": lambda: f.add("new"),
        "test_and_add": lambda: f.test_and_add(KEYS[0]),
        "add_many": lambda: f.add_many(KEYS),
        "add_many_out": lambda: f.add_many(KEYS, out=out),
        "info": lambda: f.info(),
    }


def check_every_call(server, calls, name, strays=()):
    """Every call raises NotFoundError naming the filter and writes nothing, but for the calls
    in `strays`, which may leave keys that expire (see test_window_filter)."""
    for call, run in calls.items():
        with pytest.raises(bloomkit.NotFoundError, match=f"'{name}'"):
            run()
        left = live_keys(server)
        if call in strays:
            assert all(server.command("PTTL", k) > 0 for k in left), f"{call}: {left}"
            if left:
                server.command("DEL", *left)
        else:
            assert left == [], f"{call} created a key"


GONE = ["deleted", "expired", "evicted"]


@pytest.mark.parametrize("how", GONE)
def test_module_filter(server, cli, how):
    if not server.has_module:
        pytest.skip("BLOOMKIT_REDIS_MODULE (the module's .so) is not set: CTest sets it")
    server.command("FLUSHALL")
    server.command("BK.RESERVE", "m", 10000, 0.01, "KIND", "window", "WINDOW", "7d")
    f = bloomkit.RedisModuleFilter.open(server.url, "m")
    assert f.add_many(KEYS) > 0 and f.contains_many(KEYS) == len(KEYS)
    lose(server, cli, how, "m")
    calls = key_calls(f)
    calls["hashes"] = lambda: f.hashes
    check_every_call(server, calls, "m")
    with pytest.raises(bloomkit.NotFoundError, match="module key 'm' does not exist"):
        f.contains(KEYS[0])
    f.close()
    # The CLI says the same.
    p = cli("redis", "--url", server.url, "query", "m", KEYS[0], check=False)
    assert p.returncode == 1 and b"'m' does not exist" in p.stderr


@pytest.mark.parametrize("how", GONE)
def test_native_filter(server, cli, how, tmp_path):
    server.command("FLUSHALL")
    f = bloomkit.RedisFilter.create(server.url, "n", 10000, 0.01, shard_bits=14)
    assert f.shards > 1
    f.add_many(KEYS)
    lose(server, cli, how, "n")
    calls = key_calls(f)
    calls.update({
        "estimated_count": lambda: f.estimated_count(),
        "inserted": lambda: f.inserted(),
        "expire": lambda: f.expire(100),
        "rebuild": lambda: f.rebuild(KEYS),
        "pull": lambda: f.pull(tmp_path / "n.bloom"),
        "drop": lambda: f.drop(),
    })
    check_every_call(server, calls, "n")
    assert not (tmp_path / "n.bloom").exists()


@pytest.mark.parametrize("how", GONE)
def test_native_filter_count_not_sent(server, cli, how):
    """The count of a handle's last adds travels with its next call: flush(), close() or leaving
    `with` send it, and on a filter gone meanwhile they raise (the handle is closed all the
    same), without leaving a stray meta behind."""
    server.command("FLUSHALL")
    bloomkit.RedisFilter.create(server.url, "n", 10000, 0.01)
    handles = [bloomkit.RedisFilter.open(server.url, "n") for _ in range(3)]
    for i, h in enumerate(handles):
        assert h.add_many(KEYS[i * 1000:(i + 1) * 1000]) > 900  # new keys: a count to send
    lose(server, cli, how, "n")
    flushed, closed, left = handles
    with pytest.raises(bloomkit.NotFoundError, match="'n'"):
        flushed.flush()
    with pytest.raises(bloomkit.NotFoundError, match="'n'"):
        closed.close()
    with pytest.raises(bloomkit.NotFoundError, match="'n'"):
        with left:
            pass
    for h in handles[1:]:
        with pytest.raises(bloomkit.InvalidArgumentError, match="closed"):
            h.contains(KEYS[0])
    assert live_keys(server) == []


def test_native_filter_missing_one_shard(server, cli):
    server.command("FLUSHALL")
    f = bloomkit.RedisFilter.create(server.url, "n", 10000, 0.01, shard_bits=14)
    f.add_many(KEYS)
    server.command("DEL", "n:1:0")
    calls = key_calls(f)
    del calls["add"], calls["test_and_add"]  # "new" and KEYS[0] may live in another shard
    for call, run in calls.items():
        with pytest.raises(bloomkit.NotFoundError, match="shard 'n:1:0' is missing"):
            run()
    assert server.command("EXISTS", "n:1:0") == 0


@pytest.mark.parametrize("how", GONE)
def test_window_filter(server, cli, how):
    server.command("FLUSHALL")
    f = bloomkit.RedisWindowFilter.create(server.url, "w", 10000, 0.01, window=3600, slices=4)
    f.set_now(NOW)
    f.add_many(KEYS)
    lose(server, cli, how, "w")
    calls = key_calls(f)
    calls.update({"record_many": lambda: f.record_many(KEYS), "drop": lambda: f.drop()})
    # An insert writes its slice and checks the meta in one round trip: on a filter that is gone
    # it leaves that slice behind, with the slice's TTL (src/redis/filters/window_filter.cpp).
    check_every_call(server, calls, "w",
                     strays={"add", "test_and_add", "add_many", "add_many_out", "record_many"})
