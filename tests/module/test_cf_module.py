"""CF.* keys in a running server (docs/REDIS.md, "Cuckoo filters: CF.*"): SAVE and restart, DEBUG
RELOAD, DUMP / RESTORE, an AOF rewrite (RedisBloom's CF.LOADCHUNK commands) and restart, and a
replica receiving CF writes keep every key as it was; a read-only ACL user can ask but not
write; Redis counts the filters' memory and maxmemory refuses a filter that would pass it.
(COMMAND INFO / DOCS of the CF.* commands: test_registration.py.)"""

import pytest

from conftest import wait_for
from resp_client import ErrorReply, RespClient

MB = 1 << 20


def fill(c):
    """A few CF keys of every shape: grown, deleted from, compacted, never-growing and full."""
    c.call("CF.RESERVE", "cf:grown", 64, "BUCKETSIZE", 2, "EXPANSION", 2, "MAXITERATIONS", 5)
    c.call("CF.INSERT", "cf:grown", "ITEMS", *[f"g{i}" for i in range(400)])
    for i in range(0, 400, 7):
        c.call("CF.DEL", "cf:grown", f"g{i}")
    c.call("CF.ADD", "cf:auto", "x")
    c.call("CF.ADD", "cf:auto", "x")
    c.call("CF.RESERVE", "cf:full", 4, "BUCKETSIZE", 1, "EXPANSION", 0)
    c.call("CF.INSERT", "cf:full", "ITEMS", *[f"f{i}" for i in range(8)])
    c.call("CF.RESERVE", "cf:compacted", 100, "BUCKETSIZE", 1)
    c.call("CF.INSERT", "cf:compacted", "ITEMS", *[f"c{i}" for i in range(300)])
    for i in range(0, 300, 2):
        c.call("CF.DEL", "cf:compacted", f"c{i}")
    c.call("CF.COMPACT", "cf:compacted")
    c.call("CF.RESERVE", "cf:empty", 1000)


KEYS = ["cf:grown", "cf:auto", "cf:full", "cf:compacted", "cf:empty"]
PROBES = [f"{p}{i}" for p in "gxfc" for i in range(400)] + ["x", "never"]


def snapshot(c):
    """Everything a key answers: CF.INFO, DUMP, and every probe's CF.MEXISTS and CF.COUNT."""
    out = {}
    for key in KEYS:
        out[key] = (c.call("CF.INFO", key), c.call("DUMP", key),
                    c.call("CF.MEXISTS", key, *PROBES),
                    [c.call("CF.COUNT", key, p) for p in PROBES[::17]])
    return out


@pytest.fixture
def aof_server(server_factory):
    return server_factory("--appendonly", "yes", "--aof-use-rdb-preamble", "no")


def test_save_reload_restore_and_aof_rewrite_keep_every_key(aof_server):
    with RespClient(aof_server.port) as c:
        fill(c)
        before = snapshot(c)
        assert c.call("DEBUG", "RELOAD") == "OK"
        assert snapshot(c) == before
        for key in KEYS:
            payload = c.call("DUMP", key)
            assert c.call("RESTORE", f"copy:{key}", 0, payload) == "OK"
            assert c.call("DUMP", f"copy:{key}") == payload
        assert c.call("SAVE") == "OK"
    aof_server.restart()
    with RespClient(aof_server.port) as c:
        assert snapshot(c) == before
        assert c.call("BGREWRITEAOF") is not None
        wait_for(lambda: b"aof_rewrite_in_progress:0" in c.call("INFO", "persistence") and
                 b"aof_rewrite_scheduled:0" in c.call("INFO", "persistence"), "the rewrite")
    # The rewrite holds CF.LOADCHUNK commands, as RedisBloom writes them.
    aof = b"".join(p.read_bytes() for p in aof_server.directory.rglob("*.aof"))
    assert b"CF.LOADCHUNK" in aof
    aof_server.restart()
    with RespClient(aof_server.port) as c:
        assert snapshot(c) == before


def test_a_replica_receives_cf_writes(server_factory):
    master = server_factory("--repl-diskless-sync-delay", "0")
    replica = server_factory("--replicaof", "127.0.0.1", str(master.port))
    with RespClient(master.port) as m, RespClient(replica.port) as s:
        wait_for(lambda: b"master_link_status:up" in s.call("INFO", "replication"), "the sync")
        fill(m)
        m.call("CF.ADDNX", "cf:auto", "y")
        m.call("CF.INSERTNX", "cf:grown", "ITEMS", "n1", "n2")
        chunks, it = [], 0
        while True:
            it, data = m.call("CF.SCANDUMP", "cf:grown", it)
            if it == 0:
                break
            chunks.append((it, data))
        for it, data in chunks:
            assert m.call("CF.LOADCHUNK", "cf:loaded", it, data) == "OK"
        assert m.call("WAIT", 1, 5000) == 1
        wait_for(lambda: s.call("DEBUG", "DIGEST") == m.call("DEBUG", "DIGEST"), "the writes")
        assert snapshot(s) == snapshot(m)
        assert s.call("DUMP", "cf:loaded") == m.call("DUMP", "cf:loaded")


def test_a_replica_matches_a_master_whose_maxmemory_refused_some_items(server_factory):
    # The master refuses the items that need a 64 MiB sub-filter; the replica (no maxmemory, and
    # replicated commands are never refused) gets the command without them and ends the same.
    master = server_factory("--repl-diskless-sync-delay", "0", "--maxmemory", "40mb",
                            "--maxmemory-policy", "noeviction")
    replica = server_factory("--replicaof", "127.0.0.1", str(master.port))
    with RespClient(master.port) as m, RespClient(replica.port) as s:
        wait_for(lambda: b"master_link_status:up" in s.call("INFO", "replication"), "the sync")
        m.call("CF.RESERVE", "cf:grows", 2048, "BUCKETSIZE", 1, "EXPANSION", 32768)
        for command in ("CF.INSERT", "CF.INSERTNX"):
            replies = m.call(command, "cf:grows", "ITEMS", *[f"{command}{i}" for i in range(3000)])
            assert any(isinstance(r, ErrorReply) for r in replies)
        assert isinstance(m.call("CF.ADD", "cf:grows", "one more"), ErrorReply)
        assert m.call("WAIT", 1, 5000) == 1
        wait_for(lambda: s.call("DEBUG", "DIGEST") == m.call("DEBUG", "DIGEST"), "the writes")
        assert s.call("DUMP", "cf:grows") == m.call("DUMP", "cf:grows")


def test_a_read_only_user_can_ask_but_not_write(shared_server):
    with RespClient(shared_server.port) as admin:
        admin.call("FLUSHALL")
        admin.call("CF.ADD", "cf:acl", "item")
        # Read-only key access (%R~*) and every CF command by name (Redis 7.0 gives module
        # commands no ACL categories): the key specs decide, as +@read -@write would on 7.2+.
        commands = ["exists", "mexists", "count", "info", "debug", "scandump", "add", "addnx",
                    "insert", "insertnx", "del", "reserve", "compact", "loadchunk"]
        assert admin.call("ACL", "SETUSER", "reader", "on", ">pw", "%R~*",
                          *[f"+cf.{c}" for c in commands]) == "OK"
        with RespClient(shared_server.port) as reader:
            assert reader.call("AUTH", "reader", "pw") == "OK"
            assert reader.call("CF.EXISTS", "cf:acl", "item") == 1
            assert reader.call("CF.MEXISTS", "cf:acl", "item", "other") == [1, 0]
            assert reader.call("CF.COUNT", "cf:acl", "item") == 1
            assert isinstance(reader.call("CF.INFO", "cf:acl"), list)
            for command in (("CF.ADD", "cf:acl", "x"), ("CF.DEL", "cf:acl", "item"),
                            ("CF.RESERVE", "cf:new", 100), ("CF.INSERT", "cf:acl", "ITEMS", "y"),
                            ("CF.COMPACT", "cf:acl"), ("CF.LOADCHUNK", "cf:acl", 1, "x")):
                reply = reader.call(*command)
                assert isinstance(reply, ErrorReply) and reply.text.startswith("NOPERM"), command
        assert admin.call("CF.COUNT", "cf:acl", "item") == 1
        admin.call("ACL", "DELUSER", "reader")


def used_memory(c):
    text = c.call("INFO", "memory").decode()
    return int(text.split("used_memory:")[1].split("\r\n")[0])


def test_memory_is_counted_and_maxmemory_refuses(server_factory):
    server = server_factory("--maxmemory", "40mb", "--maxmemory-policy", "noeviction")
    with RespClient(server.port) as c:
        before = used_memory(c)
        # 2^23 buckets of 2 slots: 16 MiB of slots, counted by used_memory and MEMORY USAGE.
        assert c.call("CF.RESERVE", "cf:big", 16_000_000) == "OK"
        assert used_memory(c) - before >= 16 * MB
        assert c.call("MEMORY", "USAGE", "cf:big") >= 16 * MB
        # 64 MiB more would pass maxmemory: an error, nothing made, the server still serves.
        for command in (("CF.RESERVE", "cf:huge", 64_000_000),
                        ("CF.INSERT", "cf:huge", "CAPACITY", 64_000_000, "ITEMS", "a")):
            reply = c.call(*command)
            assert isinstance(reply, ErrorReply) and reply.text.startswith("OOM"), reply
            assert c.call("EXISTS", "cf:huge") == 0
        assert c.call("CF.ADD", "cf:big", "still works") == 1
        # A full filter whose next sub-filter (2048 x 32768 one-slot buckets: 64 MiB) would pass
        # maxmemory: those items get the OOM error, the filter keeps one sub-filter and every
        # item it took.
        c.call("CF.RESERVE", "cf:grows", 2048, "BUCKETSIZE", 1, "EXPANSION", 32768)
        items = [f"g{i}" for i in range(3000)]
        replies = c.call("CF.INSERT", "cf:grows", "ITEMS", *items)
        refused = [r for r in replies if isinstance(r, ErrorReply)]
        assert refused and all(r.text.startswith("OOM") for r in refused)
        assert c.call("CF.DEBUG", "cf:grows").split(b" ")[4] == b"filters:1"
        taken = [item for item, r in zip(items, replies) if r == 1]
        assert c.call("CF.MEXISTS", "cf:grows", *taken) == [1] * len(taken)
        c.call("DEL", "cf:big")
        assert used_memory(c) - before < MB
