"""RedisBloom's cuckoo keys come along bit for bit (docs/REDIS.md, "Cuckoo filters: CF.*"):
every key's command log replayed on bloomkit's module gets RedisBloom's replies (errors, full
filters, growth, deletes, compaction), ends in RedisBloom's CF.INFO, CF.DEBUG, DUMP bytes and
SCANDUMP chunks, and answers every probe as RedisBloom did (false positives included); RESTORE of
its DUMP payloads, CF.LOADCHUNK of its chunks and a server started on its RDB hold the same keys;
the sessions' replies (wrong types, missing keys, argument errors, SCANDUMP / LOADCHUNK edges,
RESP3 types) are RedisBloom's. The vectors: redisbloom_cuckoo_vectors.py."""

import pytest

from redisbloom_cuckoo_vectors import (argv_of, check_probes, check_state, connect, copy_rdb,
                                       cuckoo_vectors, load_chunks, pipeline, rdb_keys, replay,
                                       sessions)
from redisbloom_payloads import module_id, payload, string, unsigned
from resp_client import ErrorReply


@pytest.fixture(scope="module")
def client(shared_server):
    c = connect(shared_server)
    c.call("FLUSHALL")
    yield c
    c.close()


def test_command_logs_replay_to_redisbloom_replies_and_state(client):
    for v in cuckoo_vectors():
        wrong = replay(client, v)
        assert not wrong, (f"{v.key}: {len(wrong)} replies differ, first command {wrong[0]}: "
                           f"{v.commands[wrong[0]]}")
        check_state(client, v.key, v)
        check_probes(client, v.key, v)


# RESTORE and CF.LOADCHUNK each in a database of their own, under the vectors' key names (MEMORY
# USAGE counts the key's name).


def test_restore_of_redisbloom_dumps(client):
    client.call("SELECT", 1)
    for v in cuckoo_vectors():
        key = v.key
        assert client.call("RESTORE", key, 0, v.dump) == "OK", v.key
        check_state(client, key, v)
        check_probes(client, key, v, exists_and_count=False)
    client.call("SELECT", 0)


def test_loadchunk_of_redisbloom_scandumps(client):
    client.call("SELECT", 2)
    for v in cuckoo_vectors():
        key = v.key
        load_chunks(client, key, v)
        if not v.chunks:  # an empty filter has no SCANDUMP: the key stays absent
            assert client.call("EXISTS", key) == 0
            assert all(a == 0 for a in pipeline(client, [[b"CF.EXISTS", key, item]
                                                          for item in v.items]))
            continue
        check_state(client, key, v)
        check_probes(client, key, v, exists_and_count=False)
    client.call("SELECT", 0)


def test_a_server_started_on_redisbloom_rdb_answers(server_factory):
    server = server_factory("--dbfilename", "dump.rdb")
    server.stop()
    copy_rdb(server.directory)
    server.start()
    with connect(server) as c:
        facts = rdb_keys()
        assert c.call("DBSIZE") == facts["dbsize"]
        for entry in facts["keys"]:
            if entry["type"] == "string":
                assert c.call("GET", entry["key"]) == bytes.fromhex(entry["value_hex"])
            elif entry["type"] == "hash":
                fields = c.call("HGETALL", entry["key"])
                assert dict(zip(fields[::2], fields[1::2])) == {
                    bytes.fromhex(f): bytes.fromhex(v) for f, v in entry["fields_hex"]}
        for v in cuckoo_vectors():
            check_state(c, v.key, v)
            check_probes(c, v.key, v, exists_and_count=False)
        # SAVE writes RedisBloom's values byte for byte (a DUMP payload less its type byte and
        # trailer), and they load again.
        assert c.call("SAVE") == "OK"
        saved = (server.directory / "dump.rdb").read_bytes()
        for v in cuckoo_vectors():
            assert v.dump[1:-10] in saved, f"{v.key}: its RDB value is not RedisBloom's"
    server.restart()
    with connect(server) as c:
        for v in cuckoo_vectors():
            assert c.call("DUMP", v.key) == v.dump, f"{v.key}: DUMP after SAVE and restart"


def run_session(server, protocol, records):
    """Runs a session's records on a fresh connection, beside the vectors' plain keys (the string
    and hash of their dump.rdb, which the sessions use as keys of another type)."""
    with connect(server, protocol) as c:
        c.call("FLUSHALL")
        for entry in rdb_keys()["keys"]:
            if entry["type"] == "string":
                c.call("SET", entry["key"], bytes.fromhex(entry["value_hex"]))
            elif entry["type"] == "hash":
                c.call("HSET", entry["key"], *[bytes.fromhex(x) for pair in entry["fields_hex"]
                                               for x in pair])
        got = pipeline(c, [argv_of(r) for r in records])
        c.call("FLUSHALL")
    return got


@pytest.mark.parametrize("protocol", [2, 3])
def test_sessions_get_redisbloom_replies(shared_server, protocol):
    records = sessions()[f"resp{protocol}"]
    got = run_session(shared_server, protocol, records)
    wrong = [(r["argv"], r["reply"], g) for r, g in zip(records, got) if g != r["reply"]]
    assert not wrong, f"{len(wrong)} RESP{protocol} replies differ, first: {wrong[0]}"


def test_older_encodings_restore_and_hostile_ones_are_refused(client):
    """RedisBloom's encoding versions 0-3 (numFilters, numBuckets, numItems, then each sub-filter's
    slots: bucket size 2, 20 iterations, expansion 1, no deletes) restore and answer as the key;
    a payload whose slots do not match its buckets is refused, the server carrying on."""
    client.call("SELECT", 3)
    tested = 0
    for v in cuckoo_vectors():
        info = v.final["cf_info"]
        if (info["Bucket size"], info["Max iterations"], info["Expansion rate"],
                info["Number of filters"]) != (2, 20, 1, 1) or not v.chunks:
            continue
        tested += 1
        slots = v.chunks[1][1]
        fields = [unsigned(1), unsigned(info["Number of buckets"]),
                  unsigned(info["Number of items inserted"]), string(slots)]
        for encver in range(4):
            key = f"{v.key}:v{encver}"
            assert client.call("RESTORE", key, 0,
                               payload(module_id(v.dump, encver), fields)) == "OK", key
            assert client.call("CF.DEBUG", key) == v.final["cf_debug"].replace(
                f"deletes:{info['Number of items deleted']}", "deletes:0").encode()
            check_probes(client, key, v, exists_and_count=False)
        bad = payload(module_id(v.dump, 4),
                      [unsigned(1), unsigned(info["Number of buckets"]), unsigned(0),
                       unsigned(0), unsigned(2), unsigned(20), unsigned(1),
                       unsigned(info["Number of buckets"]), string(slots[:-1])])
        reply = client.call("RESTORE", f"{v.key}:bad", 0, bad)
        assert isinstance(reply, ErrorReply), reply
        assert client.call("EXISTS", f"{v.key}:bad") == 0
    assert client.call("PING") == "PONG"
    client.call("SELECT", 0)
    if not tested:
        pytest.skip("no vector key of one sub-filter with RedisBloom's defaults")
