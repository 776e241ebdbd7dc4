"""RedisBloom's older encodings load, and hostile RedisBloom data is refused with a clear error
while the server keeps running: DUMP payloads of every encoding version RedisBloom loads (0-4)
and of hostile fields, BF.LOADCHUNK headers and chunks that do not fit, an RDB file with a bad
value (the server refuses to start, naming the value, and does not crash); an AOF rewrite of
RedisBloom's keys (RedisBloom's BF.LOADCHUNK commands) loads back to the same bytes."""

import math
import struct

import pytest
import redis

from conftest import wait_for
from redisbloom_payloads import (SCANDUMP_HEADER, SCANDUMP_LINK, chain_fields, links_of, module_id,
                                 payload)
from redisbloom_vectors import check_answers, check_bytes, copy_rdb, load_chunks, vectors

ResponseError = redis.exceptions.ResponseError


def scaling_by_two():
    """Vectors of chains that grow by 2, RedisBloom's growth before encoding version 4."""
    return [v for v in vectors() if v.data["decoded"]["growth"] == 2 and
            not v.data["decoded"]["options"] & 8]


@pytest.mark.parametrize("encver", [2, 3, 4])
def test_encoding_versions_with_options_load_bit_for_bit(r, encver):
    for v in scaling_by_two():
        key = f"v{encver}:{v.key}"
        assert r.restore(key, 0, payload(module_id(v.dump, encver), chain_fields(v, encver))) \
            == b"OK"
        check_answers(r, key, v)
        # Saved again in version 4, exactly as RedisBloom saves it.
        check_bytes(r, key, v)


@pytest.mark.parametrize("encver", [0, 1])
def test_encoding_versions_without_options_load(r, encver):
    # Before options were stored a chain hashed with 32 bits and had no growth field.
    v = scaling_by_two()[0]
    links = links_of(v)
    for f in links:
        if encver == 0:  # bits were entries * bpe, the bytes those bits take
            f["array"] = f["array"][:(math.floor(f["entries"] * f["bpe"]) + 7) // 8]
    key = f"v{encver}"
    assert r.restore(key, 0, payload(module_id(v.dump, encver),
                                     chain_fields(v, encver, links))) == b"OK"
    assert r.type(key) == b"MBbloom--"
    assert r.execute_command("BF.CARD", key) == v.data["card"]
    assert r.execute_command("BF.INFO", key, "CAPACITY") == [v.data["info"]["Capacity"]]
    assert r.execute_command("BF.INFO", key, "EXPANSION") == [2]
    # It keeps taking keys, and holds each it took.
    items = [f"new:{i}" for i in range(1000)]
    r.execute_command("BF.MADD", key, *items)
    assert r.execute_command("BF.MEXISTS", key, *items) == [1] * len(items)


def hostile_payloads(v):
    """(what is wrong, payload) for a vector's chain."""
    links = links_of(v)
    ok = module_id(v.dump, 4)

    def changed(**link_changes):
        bad = [dict(f) for f in links]
        bad[0].update(link_changes)
        return payload(ok, chain_fields(v, 4, bad))

    d = v.data["decoded"]
    yield "encoding version 5", payload(module_id(v.dump, 5), chain_fields(v, 4))
    yield "no links", payload(ok, chain_fields(v, 4, [], size=0))
    yield "a billion links", payload(ok, chain_fields(v, 4, nfilters=10**9))
    yield "more links than follow", payload(ok, chain_fields(v, 4, nfilters=len(links) + 1))
    yield "fields missing", payload(ok, chain_fields(v, 4)[:-3])
    yield "unknown options", payload(ok, chain_fields(v, 4, options=d["options"] | 0x100))
    yield "10^6 hashes", changed(hashes=10**6)
    yield "error rate 0", changed(error=0.0)
    yield "error rate 1.5", changed(error=1.5)
    yield "error rate NaN", changed(error=float("nan"))
    yield "0 bits", changed(bits=0)
    yield "bits past the array", changed(bits=links[0]["bits"] + 64)
    yield "n2 64", changed(n2=64)
    yield "a short array", changed(array=links[0]["array"][:-8])
    yield "an empty array", changed(array=b"")


def test_hostile_dumps_are_refused(r):
    v = next(v for v in vectors() if len(v.data["decoded"]["links"]) > 1)
    for what, data in hostile_payloads(v):
        with pytest.raises(ResponseError):
            r.restore("bad", 0, data)
        assert r.exists("bad") == 0, what
        assert r.ping()
    # Redis's own checks: a flipped byte fails the CRC.
    flipped = bytearray(v.dump)
    flipped[len(flipped) // 2] ^= 1
    with pytest.raises(ResponseError, match="checksum"):
        r.restore("bad", 0, bytes(flipped))


def test_hostile_chunks_are_refused(r):
    v = next(v for v in vectors() if len(v.chunks) > 2)
    header = v.chunks[0][1]
    for bad in (header[:-1], header + b"\0", header[:20], b"", b"x" * 73,
                SCANDUMP_HEADER.pack(0, 0, 5, 2), SCANDUMP_HEADER.pack(0, 10**6, 5, 2)):
        with pytest.raises(ResponseError, match="received bad data"):
            r.execute_command("BF.LOADCHUNK", "bad", 1, bad)
        assert r.exists("bad") == 0
    load_chunks(r, "k", v)
    total = sum(len(data) for _, data in v.chunks[1:])
    with pytest.raises(ResponseError, match="invalid offset - no link found"):
        r.execute_command("BF.LOADCHUNK", "k", total + 2, b"\xff")
    first_link = len(v.chunks[1][1])
    with pytest.raises(ResponseError, match="Too big for current filter"):
        r.execute_command("BF.LOADCHUNK", "k", first_link + 2, b"\xff" * 2)
    with pytest.raises(ResponseError, match="received bad data"):
        r.execute_command("BF.LOADCHUNK", "k", 3, b"\xff" * 8)
    # A refused chunk leaves the key as it was.
    check_answers(r, "k", v)
    check_bytes(r, "k", v)


def test_an_rdb_with_a_bad_value_stops_the_load_without_a_crash(server_factory):
    server = server_factory("--dbfilename", "dump.rdb")
    server.stop()
    copy_rdb(server.directory)
    path = server.directory / "dump.rdb"
    data = bytearray(path.read_bytes())
    v = vectors()[0]
    value = v.dump[1:-10]
    at = bytes(data).find(value)
    assert at > 0
    # The first link's error rate (a double after size, nfilters, options, growth and entries)
    # made NaN.
    fields = chain_fields(v, 4)
    offset = 9 + sum(len(f) for f in fields[:5])
    assert value[offset:offset + 9] == fields[5]
    data[at + offset + 1:at + offset + 9] = struct.pack("<d", float("nan"))
    path.write_bytes(bytes(data))
    server.start(expect_ready=False)
    server.proc.wait(timeout=20)
    log = server.log()
    assert "bloomkit: refusing a corrupt RedisBloom value" in log
    assert "BUG REPORT" not in log


def test_aof_rewrite_of_redisbloom_keys(server_factory):
    server = server_factory("--appendonly", "yes", "--aof-use-rdb-preamble", "no")
    r = server.client()
    for v in vectors():
        r.restore(v.key, 0, v.dump)
    r.bgrewriteaof()
    wait_for(lambda: r.info("persistence")["aof_rewrite_in_progress"] == 0 and
             r.info("persistence")["aof_rewrite_scheduled"] == 0, "the AOF rewrite")
    server.restart()
    r = server.client()
    for v in vectors():
        assert r.dump(v.key) == v.dump, v.key


def test_a_redisbloom_header_past_maxmemory_is_refused(server_factory):
    server = server_factory("--maxmemory", "32mb")
    r = server.client()
    # One link of 64 MiB of bits, with the fields RedisBloom sizes for error 0.01.
    bpe = -math.log(0.01) / math.log(2) ** 2
    link = SCANDUMP_LINK.pack(1 << 26, 1 << 29, 0, 0.01, bpe,
                       math.ceil(math.log(2) * bpe), 50_000_000, 0)
    header = SCANDUMP_HEADER.pack(0, 1, 5, 2) + link
    with pytest.raises(ResponseError, match="OOM"):
        r.execute_command("BF.LOADCHUNK", "big", 1, header)
    assert r.exists("big") == 0
    # A smaller one is taken.
    link = SCANDUMP_LINK.pack(1 << 20, 1 << 23, 0, 0.01, bpe,
                       math.ceil(math.log(2) * bpe), 800_000, 0)
    assert r.execute_command("BF.LOADCHUNK", "small", 1,
                             SCANDUMP_HEADER.pack(0, 1, 5, 2) + link) == b"OK"
    assert r.type("small") == b"MBbloom--"


def test_a_redisbloom_header_that_spells_bloomkits_magic_loads(r):
    # Its item count's low bytes spell "BKRM" and its high bytes image version 1: it is read as
    # bloomkit's image first, which fails, then as RedisBloom's header. (A link of that many
    # entries at error 0.99 takes 15 MB.)
    size = (1 << 32) | int.from_bytes(b"BKRM", "little")
    bpe = -math.log(0.99) / math.log(2) ** 2
    entries = size + 1000  # room for an add without a new link
    link_bytes = (math.floor(entries * bpe) + 63) // 64 * 8
    link = SCANDUMP_LINK.pack(link_bytes, link_bytes * 8, size, 0.99, bpe,
                       math.ceil(math.log(2) * bpe), entries, 0)
    header = SCANDUMP_HEADER.pack(size, 1, 5, 2) + link
    assert header.startswith(b"BKRM\x01\0\0\0")
    assert r.execute_command("BF.LOADCHUNK", "k", 1, header) == b"OK"
    assert r.type("k") == b"MBbloom--"
    assert r.execute_command("BF.CARD", "k") == size
    assert r.execute_command("BF.INFO", "k", "CAPACITY") == [entries]
    assert r.execute_command("BF.ADD", "k", "x") == 1
    assert r.execute_command("BF.EXISTS", "k", "x") == 1
    assert r.execute_command("BF.INFO", "k", "FILTERS") == [1]
