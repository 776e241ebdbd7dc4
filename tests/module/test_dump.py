"""BF.SCANDUMP / BF.LOADCHUNK round trips, their refusals, a fuzz of LOADCHUNK, the BK.*
commands, and no false negatives through every command and kind."""

import random

import pytest
import redis

from conftest import raw
from filters import FILTERS, ITEMS, fill

ResponseError = redis.exceptions.ResponseError


def scandump(r, key):
    chunks = []
    iterator = 0
    while True:
        iterator, data = r.bf().scandump(key, iterator)
        if iterator == 0:
            return chunks
        chunks.append((iterator, data))


def test_round_trip_of_every_kind(r):
    fill(r)
    for key in FILTERS:
        chunks = scandump(r, key)
        assert chunks[0][0] == 1
        copy = f"{key}:copy"
        for iterator, data in chunks:
            assert r.bf().loadchunk(copy, iterator, data) == b"OK"
        assert r.execute_command("DEBUG", "DIGEST-VALUE", copy) == \
            r.execute_command("DEBUG", "DIGEST-VALUE", key)
        assert r.bf().mexists(copy, *ITEMS) == [1] * len(ITEMS)
        assert r.execute_command("BK.INFO", copy) == r.execute_command("BK.INFO", key)


def test_round_trip_of_a_filter_of_several_chunks(r):
    # bloomkit1's image in 8 MiB chunks (a BF.* chain's chunks are RedisBloom's 16 MiB).
    r.execute_command("BK.RESERVE", "big", 10_000_000, 0.01, "KIND", "classic")
    keys = [f"k{i}" for i in range(20000)]
    r.bf().madd("big", *keys)
    chunks = scandump(r, "big")
    assert len(chunks) >= 3  # header and two 8 MiB payload chunks at least
    for iterator, data in chunks:
        r.bf().loadchunk("copy", iterator, data)
    assert r.bf().mexists("copy", *keys) == [1] * len(keys)
    assert raw(r, "BF.INFO", "copy") == raw(r, "BF.INFO", "big")


def test_loadchunk_refusals(r):
    r.execute_command("BK.RESERVE", "f", 100, 0.01, "KIND", "scalable")  # bloomkit1's image
    r.bf().madd("f", *ITEMS[:500])
    (first, header), (second, payload) = scandump(r, "f")[:2]
    assert str(pytest.raises(ResponseError, r.bf().loadchunk, "f", 1, header).value) == \
        "item exists"
    with pytest.raises(ResponseError, match="received bad data"):
        r.bf().loadchunk("g", 1, header[:-1] + bytes([header[-1] ^ 1]))
    assert r.exists("g") == 0
    assert r.bf().loadchunk("g", 1, header) == b"OK"
    # Until its last chunk, the key takes no add; lookups answer 0, as RedisBloom answers any key
    # that holds no filter of its own.
    with pytest.raises(ResponseError, match="being loaded"):
        r.bf().add("g", "x")
    assert r.bf().exists("g", ITEMS[0]) == 0
    with pytest.raises(ResponseError, match="out of order"):
        r.bf().loadchunk("g", second + 8, payload)
    damaged = payload[:10] + bytes([payload[10] ^ 1]) + payload[11:]
    with pytest.raises(ResponseError, match="checksum"):
        r.bf().loadchunk("g", second, damaged)
    assert r.exists("g") == 0  # a payload that fails its checksum never becomes a filter
    with pytest.raises(ResponseError, match="not found"):
        r.bf().loadchunk("h", second, payload)


def virtual_bytes(pid):
    """The server's virtual size (VmSize): a mapped payload counts here before it is touched."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize")


def test_a_huge_header_alone_reserves_no_memory(r, shared_server):
    # A real header of a 2.4 GB filter (nothing of it touched), then the filter is gone: a
    # LOADCHUNK of that header alone must not reserve its payload (the bytes may never come).
    r.execute_command("BK.RESERVE", "huge", 2_000_000_000, 0.01, "KIND", "classic")
    _, header = r.bf().scandump("huge", 0)
    r.delete("huge")
    before = virtual_bytes(shared_server.proc.pid)
    assert r.bf().loadchunk("copy", 1, header) == b"OK"
    assert virtual_bytes(shared_server.proc.pid) - before < 256 << 20
    assert r.ping()
    # Its first chunk gets the memory; a chunk past the end is still refused.
    assert r.bf().loadchunk("copy", 1 + 8, b"\0" * 8) == b"OK"
    assert r.delete("copy") == 1


def test_loadchunk_fuzz_never_crashes(r):
    fill_keys = ITEMS[:300]
    r.execute_command("BK.RESERVE", "w", 1000, 0.01, "KIND", "window", "WINDOW", 500)
    r.bf().madd("w", *fill_keys)
    r.bf().madd("s", *fill_keys)
    rng = random.Random(18)
    for key in ("w", "s"):
        (_, header), (second, payload) = scandump(r, key)[:2]
        for round in range(300):
            target = bytearray(header if round % 2 == 0 else payload)
            for _ in range(rng.randint(1, 4)):
                choice = rng.random()
                at = rng.randrange(len(target))
                if choice < 0.6:
                    target[at] ^= 1 << rng.randrange(8)
                elif choice < 0.8:
                    del target[at:]
                    if not target:
                        target = bytearray(b"\0")
                else:
                    target[at:at] = rng.randbytes(rng.randint(1, 16))
            r.delete("fuzz")
            try:
                if round % 2 == 0:
                    r.bf().loadchunk("fuzz", 1, bytes(target))
                else:
                    r.bf().loadchunk("fuzz", 1, header)
                    r.bf().loadchunk("fuzz", second - len(payload) + len(target), bytes(target))
            except ResponseError:
                pass
        assert r.ping()


@pytest.mark.parametrize("key", list(FILTERS))
def test_no_false_negatives_through_every_command(r, key):
    fill(r)
    assert all(r.bf().exists(key, item) == 1 for item in ITEMS[::37])
    assert r.bf().mexists(key, *ITEMS) == [1] * len(ITEMS)


def test_bk_reserve_and_info(r):
    assert r.execute_command("BK.RESERVE", "c", 1000, 0.01, "KIND", "classic") == b"OK"
    info = r.execute_command("BK.INFO", "c")
    fields = dict(zip([f.decode() for f in info[::2]], info[1::2]))
    for name in ("kind", "hash_scheme", "bits", "bytes", "hashes", "capacity", "target_fpp",
                 "inserted", "estimated_count", "fill_ratio", "estimated_fpp"):
        assert name in fields, name
    assert fields["kind"] == b"classic" and fields["capacity"] == 1000
    assert r.execute_command("BK.RESERVE", "b", 1000, 0.01) == b"OK"  # blocked by default
    assert dict(zip(*[iter(r.execute_command("BK.INFO", "b"))] * 2))[b"kind"] == b"blocked"
    for arguments, message in [
        ((0, 0.01), "capacity should be larger than 0"),
        ((10, 1.5), "error rate range"),
        ((10, 0.01, "KIND", "quotient"), "unknown KIND"),
        ((10, 0.01, "WINDOW", "1h"), "WINDOW needs KIND window"),
        ((10, 0.01, "KIND", "window"), "needs WINDOW"),
        ((10, 0.01, "KIND", "window", "WINDOW", "1y"), "bad WINDOW"),
        ((10, 0.01, "KIND", "window", "WINDOW", "1h", "SLICES", 0), "bad SLICES"),
    ]:
        with pytest.raises(ResponseError, match=message):
            r.execute_command("BK.RESERVE", "x", *arguments)
    assert r.exists("x") == 0
    with pytest.raises(ResponseError, match="item exists"):
        r.execute_command("BK.RESERVE", "c", 10, 0.01)


def test_bk_remove(r):
    r.execute_command("BK.RESERVE", "c", 1000, 0.01, "KIND", "counting")
    r.bf().madd("c", "a", "b")
    r.bf().add("c", "a")  # counted twice: one remove leaves it
    assert r.execute_command("BK.REMOVE", "c", "a", "nope") == [1, 0]
    assert r.bf().mexists("c", "a", "b") == [1, 1]
    assert r.execute_command("BK.REMOVE", "c", "a", "b") == [1, 1]
    assert r.bf().mexists("c", "a", "b") == [0, 0]
    r.bf().add("plain", "a")
    with pytest.raises(ResponseError, match="needs a counting or cuckoo filter"):
        r.execute_command("BK.REMOVE", "plain", "a")
    with pytest.raises(ResponseError, match="not found"):
        r.execute_command("BK.REMOVE", "missing", "a")
