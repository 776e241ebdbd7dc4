"""The module's memory as Redis sees it: filters allocated through Redis (used_memory and MEMORY
USAGE count them), maxmemory refusing a reserve, an add or a chunk that would pass it (Redis's OOM
error, nothing created), eviction of module keys; EXPANSION read as the whole number it is; and
BF.SCANDUMP of a key recreated during the dump."""

import pytest
import redis

from conftest import raw

ResponseError = redis.exceptions.ResponseError
MB = 1 << 20


def error_of(r, *command):
    with pytest.raises(ResponseError) as e:
        r.execute_command(*command)
    return str(e.value)


def used_memory(r):
    return r.info("memory")["used_memory"]


def bk_info(r, key):
    info = r.execute_command("BK.INFO", key)
    return dict(zip([f.decode() for f in info[::2]], info[1::2]))


def test_reserve_past_maxmemory_is_refused_and_creates_nothing(server_factory):
    r = server_factory("--maxmemory", "20mb", "--maxmemory-policy", "noeviction").client()
    # 120 MB of bits under a 20 MB maxmemory: refused every time, never half made.
    for _ in range(2):
        message = error_of(r, "BF.RESERVE", "big", 0.01, 100_000_000)
        assert message.startswith("OOM command not allowed when used memory > 'maxmemory'")
        assert r.exists("big") == 0
    assert error_of(r, "BK.RESERVE", "big", 100_000_000, 0.01, "KIND", "classic").startswith("OOM")
    assert error_of(r, "BF.INSERT", "big", "CAPACITY", 100_000_000, "ITEMS", "a").startswith("OOM")
    assert r.exists("big") == 0
    # Filters that fit are made, until the next would pass maxmemory.
    assert r.execute_command("BF.RESERVE", "a", 0.01, 8_000_000, "NONSCALING") == b"OK"
    assert error_of(r, "BF.RESERVE", "b", 0.01, 8_000_000).startswith("OOM")
    assert r.exists("b") == 0
    assert used_memory(r) <= 20 * MB


def test_add_that_would_grow_past_maxmemory_is_refused_and_changes_nothing(server_factory):
    r = server_factory("--maxmemory", "20mb", "--maxmemory-policy", "noeviction").client()
    # Full at 20000 keys; the next sub-filter holds 20.48 million (about 30 MB).
    r.execute_command("BF.RESERVE", "f", 0.01, 20_000, "EXPANSION", 1024)
    keys = [f"k{i}" for i in range(20_000)]
    for start in range(0, len(keys), 5000):
        r.execute_command("BF.MADD", "f", *keys[start:start + 5000])
    # Some of them were false positives, not added: top it up to its capacity.
    while r.bf().info("f").insertedNum < 20_000:
        keys.append(f"k{len(keys)}")
        r.execute_command("BF.ADD", "f", keys[-1])
    before = raw(r, "BF.INFO", "f")
    for command in (("BF.ADD", "f", "new"), ("BF.MADD", "f", "k1", "new"),
                    ("BF.INSERT", "f", "ITEMS", "new")):
        assert error_of(r, *command).startswith("OOM"), command
    assert raw(r, "BF.INFO", "f") == before
    assert r.execute_command("BF.EXISTS", "f", "new") == 0
    assert r.execute_command("BF.MEXISTS", "f", *keys[::97]) == [1] * len(keys[::97])


def test_loadchunk_past_maxmemory_is_refused_and_can_be_sent_again(server_factory):
    big = server_factory()
    b = big.client()
    # bloomkit1's image, whose bits come chunk by chunk (a chain's header allocates them all).
    b.execute_command("BK.RESERVE", "f", 20_000_000, 0.01, "KIND", "classic")  # 24 MB of bits
    header = b.execute_command("BF.SCANDUMP", "f", 0)[1]
    iterator, chunk = b.execute_command("BF.SCANDUMP", "f", 1)
    r = server_factory("--maxmemory", "20mb", "--maxmemory-policy", "noeviction").client()
    assert r.execute_command("BF.LOADCHUNK", "copy", 1, header) == b"OK"
    assert error_of(r, "BF.LOADCHUNK", "copy", iterator, chunk).startswith("OOM")
    assert r.memory_usage("copy") < MB  # nothing allocated; still waiting for that chunk
    r.config_set("maxmemory", "100mb")
    assert r.execute_command("BF.LOADCHUNK", "copy", iterator, chunk) == b"OK"


def test_used_memory_and_memory_usage_count_the_filters(server_factory):
    r = server_factory().client()
    before = used_memory(r)
    r.execute_command("BF.RESERVE", "f", 0.01, 40_000_000, "NONSCALING")
    grown = used_memory(r) - before
    usage = r.memory_usage("f")
    bits = bk_info(r, "f")["bytes"]
    assert bits > 45 * MB
    # MEMORY USAGE counts the bytes asked for (as RedisBloom does): the bits and the objects;
    # used_memory grew by that, rounded up to the allocator's size class (jemalloc: at most a
    # quarter more).
    assert bits <= usage < bits + 4096, (usage, bits)
    assert usage <= grown < 1.26 * usage, (grown, usage)
    r.delete("f")
    assert used_memory(r) - before < 0.02 * usage
    # A chain counts every sub-filter.
    r.execute_command("BF.RESERVE", "c", 0.01, 1000, "EXPANSION", 16)
    r.execute_command("BF.MADD", "c", *[f"k{i}" for i in range(20_000)])
    assert bk_info(r, "c")["bytes"] <= r.memory_usage("c") < bk_info(r, "c")["bytes"] + 4096


def test_allkeys_lru_evicts_module_keys(server_factory):
    r = server_factory("--maxmemory", "30mb", "--maxmemory-policy", "allkeys-lru").client()
    for i in range(12):  # 12 filters of about 5 MB
        assert r.execute_command("BF.RESERVE", f"f{i}", 0.01, 4_000_000, "NONSCALING") == b"OK"
        r.execute_command("BF.ADD", f"f{i}", "x")
    assert r.info("stats")["evicted_keys"] > 0
    assert r.dbsize() < 12
    assert used_memory(r) <= 32 * MB
    # The newest survives, and answers.
    assert r.execute_command("BF.EXISTS", "f11", "x") == 1
    # A filter larger than maxmemory itself is refused whatever the policy.
    assert error_of(r, "BF.RESERVE", "big", 0.01, 40_000_000).startswith("OOM")


def test_memory_usage_during_loadchunk_is_what_was_allocated(r):
    # A header declaring 12 MB of payload: until a chunk arrives nothing is allocated.
    r.execute_command("BK.RESERVE", "f", 10_000_000, 0.01, "KIND", "classic")
    header = r.execute_command("BF.SCANDUMP", "f", 0)[1]
    assert r.execute_command("BF.LOADCHUNK", "copy", 1, header) == b"OK"
    assert r.memory_usage("copy") < 64 * 1024
    assert r.execute_command("BF.LOADCHUNK", "copy", 1 + 8, b"\0" * 8) == b"OK"
    usage = r.memory_usage("copy")
    assert bk_info(r, "f")["bytes"] <= usage < bk_info(r, "f")["bytes"] + 4096


@pytest.mark.parametrize("value", ["4294967298", "4294967297", "32769", "9223372036854775808",
                                   "18446744073709551617"])
def test_expansion_out_of_range_is_refused_naming_it(r, value):
    # BK.RESERVE's range; BF.RESERVE / BF.INSERT answer RedisBloom's (test_conformance.py).
    command = ("BK.RESERVE", "e", 100, 0.01, "KIND", "scalable", "EXPANSION", value)
    assert error_of(r, *command) == f"EXPANSION {value} is out of range: give 1..32768"
    assert r.exists("e") == 0
    assert r.execute_command("BF.RESERVE", "e", 0.01, 100, "EXPANSION", 32768) == b"OK"
    assert r.bf().info("e").expansionRate == 32768


def scandump_until(r, key, chunks):
    """The header and the first `chunks` payload chunks of a dump, and the next iterator."""
    _, header = r.execute_command("BF.SCANDUMP", key, 0)
    got, iterator = [], 1
    for _ in range(chunks):
        iterator, data = r.execute_command("BF.SCANDUMP", key, iterator)
        got.append((iterator, data))
    return header, got, iterator


@pytest.mark.parametrize("new_capacity", [1000, 9_000_000])
def test_scandump_of_a_key_recreated_smaller_is_an_error_not_a_half_copy(r, new_capacity):
    # bloomkit1's image chunks (BK.RESERVE), whose iterators carry the image's shape.
    r.execute_command("BK.RESERVE", "k", 10_000_000, 0.01, "KIND", "classic")  # 12 MB: 2 chunks
    header, chunks, iterator = scandump_until(r, "k", 1)
    r.delete("k")
    r.execute_command("BK.RESERVE", "k", new_capacity, 0.01, "KIND", "classic")
    assert "changed during BF.SCANDUMP" in error_of(r, "BF.SCANDUMP", "k", iterator)
    if new_capacity < 9_000_000:
        return
    # The loading side: a chunk of the new key (10.8 MB) where the old image's second chunk goes
    # would end that image short of its payload, and is refused.
    r.execute_command("BF.LOADCHUNK", "copy", 1, header)
    for it, data in chunks:
        r.execute_command("BF.LOADCHUNK", "copy", it, data)
    new_iterator, new_chunk = r.execute_command("BF.SCANDUMP", "k", 1 + (8 << 20))
    assert "received bad data" in error_of(r, "BF.LOADCHUNK", "copy", new_iterator, new_chunk)
    assert r.exists("copy") == 0


def test_a_last_chunk_that_leaves_the_image_incomplete_is_refused(r):
    r.execute_command("BK.RESERVE", "k", 10_000_000, 0.01, "KIND", "classic")
    header, [(iterator, data)], _ = scandump_until(r, "k", 1)
    r.execute_command("BF.LOADCHUNK", "copy", 1, header)
    last = iterator | (1 << 52)  # the chunk marked as the dump's last (chunk_iterator.hpp)
    assert "last chunk" in error_of(r, "BF.LOADCHUNK", "copy", last, data)
    assert r.exists("copy") == 0
