"""Adds to RedisBloom's keys go in RedisBloom's own layout, growing the chain as RedisBloom does.

A key's state right after it was created is RedisBloom's header with its first link empty: made
here from the vector's own BF.SCANDUMP header (size 0, one link, that link's fields with no
items), loaded with BF.LOADCHUNK. Replaying the vector's recorded write commands on it must give
every reply RedisBloom gave (NONSCALING errors included, and the `overflow` attempts on a full
filter), and end in RedisBloom's DUMP bytes. Half-way through, the first link's chunk of zeros
arrives: a chunk ORs into the bits, so adds made while a key is being loaded stay (RedisBloom
copies chunks over them; bloomkit keeps them: never a false negative)."""

import struct

import redis

from redisbloom_payloads import SCANDUMP_HEADER, SCANDUMP_LINK
from redisbloom_vectors import check_answers, check_bytes, vectors

HEADER = SCANDUMP_HEADER
LINK_BYTES = SCANDUMP_LINK.size


def created_state(v):
    """The BF.SCANDUMP header of the key as its first command left it, and its first link's
    bytes."""
    header = v.chunks[0][1]
    _, _, options, growth = HEADER.unpack_from(header)
    link = bytearray(header[HEADER.size:HEADER.size + LINK_BYTES])
    struct.pack_into("<Q", link, 16, 0)  # the link holds no item yet
    (link_bytes,) = struct.unpack_from("<Q", link, 0)
    return HEADER.pack(0, 1, options, growth) + bytes(link), link_bytes


def command_of(v, c):
    first, count = c["items"]
    return [*c["argv"], *v.items[first:first + count]]


def as_recorded(reply):
    """A reply in the vectors' notation (reply_type, reply, errors)."""
    if isinstance(reply, redis.exceptions.ResponseError):
        return "error", str(reply), []
    if isinstance(reply, list):
        errors = [str(e) for e in reply if isinstance(e, redis.exceptions.ResponseError)]
        text = "".join("E" if isinstance(e, Exception) else str(e) for e in reply)
        return "array", text, errors
    if isinstance(reply, bytes):
        return "status", reply.decode(), []
    return "integer", str(reply), []


def replay(r, key, v, commands):
    pipe = r.pipeline(transaction=False)
    for c in commands:
        argv = command_of(v, c) if "items" in c else \
            [*c["argv"], *(bytes.fromhex(h) for h in c["items_hex"])]
        argv[1] = key
        pipe.execute_command(*argv)
    for c, reply in zip(commands, pipe.execute(raise_on_error=False)):
        kind, text, errors = as_recorded(reply)
        # redis-py drops the "ERR " prefix of an error's text.
        want = c["reply"].removeprefix("ERR ") if c["reply_type"] == "error" else c["reply"]
        assert (kind, text) == (c["reply_type"], want), f"{v.key}: {c['argv'][0]}"
        assert errors == [e.removeprefix("ERR ") for e in c.get("errors", [])], v.key


def test_replayed_commands_answer_and_grow_as_redisbloom(r):
    for v in vectors():
        key = f"replay:{v.key}"
        header, link_bytes = created_state(v)
        assert r.execute_command("BF.LOADCHUNK", key, 1, header) == b"OK"
        commands = [c for c in v.data["commands"] if c["argv"][0] != "BF.RESERVE"]
        half = len(commands) // 2
        replay(r, key, v, commands[:half])
        # The first link's chunk arrives late: the adds made meanwhile stay.
        assert r.execute_command("BF.LOADCHUNK", key, 1 + link_bytes, bytes(link_bytes)) == b"OK"
        replay(r, key, v, commands[half:])
        replay(r, key, v, v.data.get("overflow", []))
        check_answers(r, key, v)
        check_bytes(r, key, v)


def test_a_key_being_loaded_answers_from_the_bits_it_has(r):
    v = max(vectors(), key=lambda v: len(v.chunks))
    key = "half"
    assert r.execute_command("BF.LOADCHUNK", key, *v.chunks[0]) == b"OK"
    # The header alone: RedisBloom's counts, no bit set yet.
    assert r.execute_command("BF.CARD", key) == v.data["card"]
    assert r.execute_command("BF.MEXISTS", key, *v.items[:100]) == [0] * 100
    for iterator, data in v.chunks[1:]:
        assert r.execute_command("BF.LOADCHUNK", key, iterator, data) == b"OK"
    check_answers(r, key, v)
    # A chunk sent again changes nothing.
    assert r.execute_command("BF.LOADCHUNK", key, *v.chunks[-1]) == b"OK"
    check_bytes(r, key, v)
