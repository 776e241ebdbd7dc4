"""RedisFilter against a real redis-server (conftest.py starts one per module)."""

import os

import numpy as np
import pytest

import bloomkit

pytestmark = pytest.mark.skipif(not bloomkit.has_redis, reason="built without bloomkit::redis")
KEYS = [f"https://example.com/{i}" for i in range(5000)]


def test_create_add_query(redis_server):
    f = bloomkit.RedisFilter.create(redis_server.url, "urls", 10000, 0.01)
    assert f.add(KEYS[0]) and not f.add(KEYS[0])
    assert KEYS[0] in f and f.test_and_add(KEYS[0])
    assert f.add_many(KEYS) == len(KEYS) - 1
    assert f.contains_many(KEYS) == len(KEYS)
    out = np.zeros(len(KEYS), dtype=bool)
    assert f.contains_many(iter(KEYS), out=out) == len(KEYS) and out.all()
    g = bloomkit.RedisFilter.open(redis_server.url, "urls")
    assert g.contains_many(KEYS) == len(KEYS)
    info = g.info()
    assert info["name"] == "urls" and info["capacity"] == 10000 and info["hashes"] == f.hashes
    f.drop()
    with pytest.raises(bloomkit.NotFoundError):
        g.contains(KEYS[0])


def test_same_bits_as_local_filter(redis_server, tmp_path):
    f = bloomkit.RedisFilter.create(redis_server.url, "same", 10000, 0.01)
    f.add_many(KEYS)
    f.pull(tmp_path / "pulled.bloom")
    local = bloomkit.BloomFilter.for_capacity(10000, 0.01)
    local.add_many(KEYS)
    pulled = bloomkit.load(tmp_path / "pulled.bloom")
    assert pulled == local
    local.save(tmp_path / "local.bloom")
    pushed = bloomkit.RedisFilter.push(redis_server.url, tmp_path / "local.bloom", "pushed")
    assert pushed.contains_many(KEYS) == len(KEYS)
    f.drop()
    pushed.drop()


def test_rebuild_and_expire(redis_server):
    f = bloomkit.RedisFilter.create(redis_server.url, "rb", 10000, 0.01)
    f.add_many(KEYS[:100])
    f.rebuild(k for k in KEYS[100:200])
    assert f.contains_many(KEYS[100:200]) == 100
    assert f.contains_many(KEYS[:100]) < 10
    with pytest.raises(bloomkit.InvalidArgumentError):
        f.rebuild([])
    f.expire(100)
    assert 0 < f.info()["ttl"] <= 100
    assert bloomkit.RedisFilter.delete(redis_server.url, "rb") >= 2


def test_url_from_environment(redis_server, monkeypatch):
    monkeypatch.setenv("BLOOMKIT_REDIS_URL", redis_server.url)
    f = bloomkit.RedisFilter.create(None, "env", 100, 0.01)
    assert f.add("x")
    f.drop()


def test_errors(redis_server):
    with pytest.raises(bloomkit.NotFoundError):
        bloomkit.RedisFilter.open(redis_server.url, "nope")
    bloomkit.RedisFilter.create(redis_server.url, "p", 100, 0.01)
    with pytest.raises(bloomkit.AlreadyExistsError):
        bloomkit.RedisFilter.create(redis_server.url, "p", 200, 0.01)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.RedisFilter.create("http://x", "p", 100, 0.01)


def test_unreachable_is_connection_error():
    import socket
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionError) as e:
        bloomkit.RedisFilter.open(f"redis://127.0.0.1:{port}", "x")
    assert isinstance(e.value, bloomkit.UnreachableError)
    assert e.value.code == bloomkit.ErrorCode.unreachable and f"127.0.0.1:{port}" in str(e.value)


def _worker(url, keys):
    f = bloomkit.RedisFilter.open(url, "shared")
    return f.add_many(keys)


def test_processes_share_one_filter(redis_server):
    import multiprocessing
    bloomkit.RedisFilter.create(redis_server.url, "shared", 20000, 0.01)
    with multiprocessing.get_context("fork").Pool(3) as pool:
        added = pool.starmap(_worker, [(redis_server.url, KEYS[i::3]) for i in range(3)])
    assert sum(added) == len(KEYS)
    assert bloomkit.RedisFilter.open(redis_server.url, "shared").contains_many(KEYS) == len(KEYS)


def test_add_many_out_answers_per_key_as_add_does(redis_server):
    batched = bloomkit.RedisFilter.create(redis_server.url, "answers-batched", 10000, 0.01)
    looped = bloomkit.RedisFilter.create(redis_server.url, "answers-looped", 10000, 0.01)
    keys = KEYS[:2000] + KEYS[:300] + KEYS[2000:2500]  # repeats within the batch
    expected = [looped.add(k) for k in keys]
    out = np.zeros(len(keys), dtype=bool)
    assert batched.add_many(keys, out=out) == sum(expected)
    assert out.tolist() == expected
    assert not any(out[2000:2300])
    with pytest.raises(bloomkit.InvalidArgumentError, match="out has 1 items for 2 keys"):
        batched.add_many(["a", "b"], out=bytearray(1))


def test_leaving_with_sends_the_count_as_close_does(redis_server):
    bloomkit.RedisFilter.create(redis_server.url, "cm", 10000, 0.01)
    with bloomkit.RedisFilter.open(redis_server.url, "cm") as f:
        assert f.add_many(KEYS[:100]) == 100
        assert f.add_many(KEYS[:301]) == 201  # its count travels with a next call: there is none
    assert bloomkit.RedisFilter.open(redis_server.url, "cm").inserted() == 301
    with pytest.raises(bloomkit.InvalidArgumentError, match="closed"):
        f.contains(KEYS[0])
    # Leaving on an exception sends it too, and the exception goes on.
    with pytest.raises(KeyError):
        with bloomkit.RedisFilter.open(redis_server.url, "cm") as f:
            f.add_many(KEYS[301:401])
            raise KeyError("the body's")
    assert bloomkit.RedisFilter.open(redis_server.url, "cm").inserted() == 401
    # A filter gone before the count could be sent: NotFoundError, the handle closed all the same.
    g = bloomkit.RedisFilter.open(redis_server.url, "cm")
    g.add_many(KEYS[401:501])
    with pytest.raises(bloomkit.NotFoundError):
        with g:
            bloomkit.RedisFilter.delete(redis_server.url, "cm")
    with pytest.raises(bloomkit.InvalidArgumentError, match="closed"):
        g.contains(KEYS[0])
    assert redis_server.command("KEYS", "cm:*") == []  # the count made no stray meta
    # A drop inside the block leaves nothing to send: no error.
    with bloomkit.RedisFilter.create(redis_server.url, "cm", 10000, 0.01) as h:
        h.add_many(KEYS[:10])
        h.drop()
