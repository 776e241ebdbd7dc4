"""RedisBloom's data comes along, bit for bit (docs/REDIS.md, "RedisBloom's keys"): a server
started with bloomkit's module on RedisBloom's RDB loads it, RESTORE takes RedisBloom's DUMP
payloads and BF.LOADCHUNK its BF.SCANDUMP chunks; every key then answers every probe as
RedisBloom did (false positives included), with its BF.INFO, BF.CARD and BF.DEBUG, and gives back
RedisBloom's DUMP and BF.SCANDUMP bytes; SAVE writes RedisBloom's encoding, which the server
loads again to the same bytes; a replica holds the same. The vectors: redisbloom_vectors.py."""

import pytest

from conftest import wait_for
from redisbloom_vectors import (check_answers, check_bytes, copy_rdb, load_chunks, rdb_facts,
                                vectors)


@pytest.fixture
def rdb_server(server_factory):
    """A server started on the vectors' dump.rdb (copied into its directory)."""
    server = server_factory("--dbfilename", "dump.rdb")
    server.stop()
    copy_rdb(server.directory)
    server.start()
    return server


def check_plain_keys(r):
    for other in rdb_facts()["other_keys"]:
        if other["type"] == "string":
            assert r.get(other["key"]) == bytes.fromhex(other["value_hex"])
        else:
            fields = {bytes.fromhex(f): bytes.fromhex(v) for f, v in other["fields_hex"]}
            assert r.hgetall(other["key"]) == fields


def test_a_redisbloom_rdb_loads_and_answers_as_redisbloom(rdb_server):
    r = rdb_server.client()
    facts = rdb_facts()
    assert r.dbsize() == facts["dbsize"]
    check_plain_keys(r)
    for v in vectors():
        assert r.type(v.key) == b"MBbloom--"
        check_answers(r, v.key, v)
        check_bytes(r, v.key, v)
        # Redis's own overhead for the key plus the module's figure: at most RedisBloom's.
        assert r.memory_usage(v.key) <= v.data["memory_usage"], v.key


def test_save_writes_redisbloom_encoding_and_reloads(rdb_server):
    r = rdb_server.client()
    assert r.save()
    # Each key's value in the file is RedisBloom's, byte for byte: a DUMP payload is the value
    # between its type byte and its 10-byte trailer (the vectors' README).
    saved = (rdb_server.directory / "dump.rdb").read_bytes()
    for v in vectors():
        assert v.dump[1:-10] in saved, f"{v.key}: its RDB value is not RedisBloom's"
    rdb_server.restart()
    r = rdb_server.client()
    check_plain_keys(r)
    for v in vectors():
        assert r.dump(v.key) == v.dump, f"{v.key}: DUMP after SAVE and restart"
    r.execute_command("DEBUG", "RELOAD")
    for v in vectors():
        assert r.dump(v.key) == v.dump, f"{v.key}: DUMP after DEBUG RELOAD"


def test_restore_of_redisbloom_dumps(r):
    for v in vectors():
        key = f"restored:{v.key}"
        assert r.restore(key, 0, v.dump) == b"OK"
        assert r.type(key) == b"MBbloom--"
        check_answers(r, key, v)
        check_bytes(r, key, v)


def test_loadchunk_of_redisbloom_scandumps(r):
    for v in vectors():
        key = f"loaded:{v.key}"
        load_chunks(r, key, v)
        assert r.type(key) == b"MBbloom--"
        check_answers(r, key, v)
        check_bytes(r, key, v)


def test_a_replica_holds_redisbloom_keys_as_the_master(rdb_server, server_factory):
    master = rdb_server.client()
    replica = server_factory("--replicaof", "127.0.0.1", str(rdb_server.port)).client()
    wait_for(lambda: replica.info("replication")["master_link_status"] == "up", "the full sync")
    # Adds after the sync reach it too (replicated as given).
    for v in vectors():
        master.execute_command("BF.MADD", v.key, *[f"after:{i}" for i in range(50)])
    master.execute_command("BF.LOADCHUNK", "copy", *vectors()[0].chunks[0])
    wait_for(lambda: replica.dump("copy") == master.dump("copy"), "the replication of the adds")
    for v in vectors():
        assert replica.dump(v.key) == master.dump(v.key), v.key
