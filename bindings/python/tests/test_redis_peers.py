"""GoZeroRedisFilter and GuavaHelperRedisFilter against a real redis-server, checked against
the CLI's `bloomkit redis --layout go-zero|guava-helper` on the same keys: the same Redis string
byte for byte, the same answers."""

import json
import socket

import numpy as np
import pytest

import bloomkit

pytestmark = pytest.mark.skipif(not bloomkit.has_redis, reason="built without bloomkit::redis")
KEYS = [f"user-{i}" for i in range(5000)]
OTHERS = [f"other-{i}" for i in range(5000)]
BITS = 1 << 16


def stdin(keys):
    return "".join(f"{k}\n" for k in keys).encode()


def cli_answers(cli, url, layout, name, keys):
    q = cli("redis", "--url", url, *layout, "query", name, stdin=stdin(keys))
    return [line.split(b"\t")[0] == b"1" for line in q.stdout.splitlines()]


def check_like_cli(redis_server, cli, f, layout, keys, others):
    """f (empty, named X) filled with keys is byte for byte the CLI's X-cli, and answers as the
    CLI does on keys + others; its info is the CLI's."""
    url = redis_server.url
    added = f.add_many(keys)
    r = cli("redis", "--url", url, *layout, "add", f.key + "-cli", stdin=stdin(keys))
    # New keys as the CLI counts them on an empty key (a false positive is not new to either).
    assert f"added {added} new of {len(keys)} keys".encode() in r.stdout
    raw = redis_server.command("GET", f.key)
    assert raw and raw == redis_server.command("GET", f.key + "-cli")
    out = np.zeros(len(keys) + len(others), dtype=bool)
    assert f.contains_many(keys + others, out=out) >= len(keys)
    assert out.tolist() == cli_answers(cli, url, layout, f.key, keys + others)
    assert all(out[:len(keys)]) and sum(out[len(keys):]) < len(others) // 10
    cli_info = json.loads(cli("redis", "--url", url, *layout, "info", f.key, "--json").stdout)
    info = f.info()
    assert info.pop("warnings") == []  # an existing key, a server without maxmemory
    assert info == cli_info


def test_go_zero_like_cli(redis_server, cli):
    f = bloomkit.GoZeroRedisFilter(redis_server.url, "gz", BITS)
    assert (f.bits, f.hashes, f.key) == (BITS, 14, "gz")
    check_like_cli(redis_server, cli, f, ["--layout", "go-zero", "--bits", BITS], KEYS, OTHERS)
    g = bloomkit.GoZeroRedisFilter(redis_server.url, "gz7", BITS, hashes=7)
    check_like_cli(redis_server, cli, g, ["--layout", "go-zero", "--bits", BITS, "--hashes", 7],
                   KEYS, OTHERS)


def test_guava_helper_like_cli(redis_server, cli):
    f = bloomkit.GuavaHelperRedisFilter.for_capacity(redis_server.url, "gh", 5000, 0.01)
    layout = ["--layout", "guava-helper", "--bits", f.bits, "--hashes", f.hashes]
    check_like_cli(redis_server, cli, f, layout, KEYS, OTHERS)
    t = bloomkit.GuavaHelperRedisFilter(redis_server.url, "gh2", f.bits, f.hashes,
                                        funnel="string-twice")
    check_like_cli(redis_server, cli, t, layout + ["--funnel", "string-twice"], KEYS, OTHERS)


def test_guava_helper_long_funnel(redis_server, cli):
    """Python ints (and a NumPy int64 array) are the helper's longs: the CLI's decimal keys."""
    longs = [i * 7919 - 10**6 for i in range(3000)]
    f = bloomkit.GuavaHelperRedisFilter(redis_server.url, "gl", 100_000, 5, funnel="long")
    layout = ["--layout", "guava-helper", "--bits", 100_000, "--hashes", 5, "--funnel", "long"]
    check_like_cli(redis_server, cli, f, layout, longs, list(range(10**7, 10**7 + 3000)))
    assert f.contains_many(np.array(longs, dtype=np.int64)) == len(longs)
    with pytest.raises(bloomkit.InvalidArgumentError, match="8 little-endian bytes"):
        f.add("not a long")


def test_no_false_negatives_in_every_batch_type(redis_server):
    f = bloomkit.GoZeroRedisFilter(redis_server.url, "types", 1 << 20)
    ints = np.arange(20000, dtype=np.uint64) * 0x9E3779B97F4A7C15
    f.add_many(ints)
    f.add_many(k.encode() for k in KEYS)
    f.add_many("".join(k + "\n" for k in OTHERS).encode())
    assert f.contains_many(ints) == len(ints)
    assert f.contains_many(iter(KEYS)) == len(KEYS)
    assert f.contains_many(OTHERS) == len(OTHERS)
    assert all(int(i) in f for i in ints[:200])
    assert f.estimated_count() == pytest.approx(30000, rel=0.05)


def test_missing_key_and_url_from_environment(redis_server, monkeypatch):
    monkeypatch.setenv("BLOOMKIT_REDIS_URL", redis_server.url)
    f = bloomkit.GoZeroRedisFilter(None, "missing", BITS)
    assert "x" not in f and f.bits_set() == 0
    assert any("does not exist" in w for w in f.info()["warnings"])
    assert f.add("x") and "x" in f


def test_errors(redis_server):
    url = redis_server.url
    for bits in (0, (1 << 32) + 1):
        with pytest.raises(bloomkit.InvalidArgumentError):
            bloomkit.GoZeroRedisFilter(url, "e", bits)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.GoZeroRedisFilter(url, "e", BITS, hashes=0)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.GuavaHelperRedisFilter(url, "e", 1 << 31, 3)
    with pytest.raises(bloomkit.InvalidArgumentError, match="funnel"):
        bloomkit.GuavaHelperRedisFilter(url, "e", BITS, 3, funnel="bytes")
    redis_server.command("LPUSH", "alist", "x")
    f = bloomkit.GoZeroRedisFilter(url, "alist", BITS)
    with pytest.raises(bloomkit.WrongTypeError) as e:
        f.add("x")
    assert isinstance(e.value, TypeError) and "alist" in str(e.value)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConnectionError):
        bloomkit.GuavaHelperRedisFilter(f"redis://127.0.0.1:{port}", "e", BITS, 3)
    with bloomkit.GoZeroRedisFilter(url, "ctx", BITS) as g:
        g.add("x")
    with pytest.raises(bloomkit.InvalidArgumentError, match="closed"):
        g.add("x")



@pytest.mark.parametrize("make", [
    lambda url, name: bloomkit.GoZeroRedisFilter(url, name, BITS),
    lambda url, name: bloomkit.GuavaHelperRedisFilter(url, name, BITS, 5),
], ids=["go-zero", "guava-helper"])
def test_add_many_out_answers_per_key_as_add_does(redis_server, make):
    batched, looped = make(redis_server.url, "out-batched"), make(redis_server.url, "out-looped")
    keys = KEYS[:1000] + KEYS[:100]
    expected = [looped.add(k) for k in keys]
    out = np.zeros(len(keys), dtype=bool)
    assert batched.add_many(keys, out=out) == sum(expected)
    assert out.tolist() == expected and not any(out[1000:])
