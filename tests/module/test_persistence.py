"""SAVE + restart, BGREWRITEAOF + restart, DEBUG RELOAD and a replica after full sync answer
identically; a corrupt or truncated RDB value fails the load with a logged error, never a crash;
RESTORE of a corrupt DUMP is refused."""

import os
import signal

import pytest
import redis

from conftest import wait_for
from filters import fill, snapshot
from redisbloom_vectors import scandump


def info_field(r, section, field):
    return r.info(section)[field]


def test_save_and_restart(server_factory):
    server = server_factory()
    r = server.client()
    fill(r)
    before = snapshot(r)
    assert r.save()
    server.restart()
    assert snapshot(server.client()) == before


def test_debug_reload(server_factory):
    server = server_factory()
    r = server.client()
    fill(r)
    before = snapshot(r)
    r.execute_command("DEBUG", "RELOAD")
    assert snapshot(r) == before


@pytest.mark.parametrize("preamble", ["no", "yes"])
def test_bgrewriteaof_and_restart(server_factory, preamble):
    # Without the RDB preamble the rewrite is the module's BF.LOADCHUNK commands.
    server = server_factory("--appendonly", "yes", "--aof-use-rdb-preamble", preamble)
    r = server.client()
    fill(r)
    before = snapshot(r)
    r.bgrewriteaof()
    wait_for(lambda: info_field(r, "persistence", "aof_rewrite_in_progress") == 0 and
             info_field(r, "persistence", "aof_rewrite_scheduled") == 0 and
             info_field(r, "persistence", "aof_last_bgrewrite_status") == "ok",
             "the AOF rewrite")
    r.execute_command("BF.ADD", "scalable", "after the rewrite")
    server.restart()
    after = server.client()
    assert after.execute_command("BF.EXISTS", "scalable", "after the rewrite") == 1
    after.execute_command("DEBUG", "RELOAD")  # the same answers from the RDB of what it loaded
    r2 = server.client()
    assert r2.execute_command("BF.CARD", "scalable") == before["scalable"]["info"][7] + 1


def test_replica_after_full_sync(server_factory):
    master = server_factory()
    m = master.client()
    fill(m)
    before = snapshot(m)
    replica = server_factory("--replicaof", "127.0.0.1", str(master.port))
    s = replica.client()
    wait_for(lambda: info_field(s, "replication", "master_link_status") == "up" and
             info_field(s, "replication", "master_sync_in_progress") == 0, "the full sync")
    assert snapshot(s) == before
    # Every later write is replicated.
    m.execute_command("BF.MADD", "scalable", *[f"late:{i}" for i in range(1000)])
    m.execute_command("BK.REMOVE", "counting", "item:1")
    m.execute_command("BF.RESERVE", "new", 0.01, 10)
    m.execute_command("BF.ADD", "new", "x")
    assert m.execute_command("WAIT", 1, 5000) == 1
    wait_for(lambda: s.execute_command("DEBUG", "DIGEST") == m.execute_command("DEBUG", "DIGEST"),
             "the replica to apply the writes")
    assert s.execute_command("BF.EXISTS", "new", "x") == 1


def start_on_broken_rdb(server, damage):
    """Saves one filter, damages its payload in dump.rdb, restarts: returns the exit code."""
    r = server.client()
    # bloomkit1's value: its image is checksummed (a chain's bits, as RedisBloom's, are not).
    r.execute_command("BK.RESERVE", "f", 20000, 0.01, "KIND", "scalable")
    r.execute_command("BF.MADD", "f", *[f"k{i}" for i in range(5000)])
    header = r.execute_command("BF.SCANDUMP", "f", 0)[1]
    assert r.save()
    server.stop()
    path = os.path.join(server.directory, "dump.rdb")
    data = bytearray(open(path, "rb").read())
    at = data.find(header)
    assert at >= 0, "the header is stored verbatim (rdbcompression no)"
    payload = at + len(header) + 64  # inside the payload's first string
    open(path, "wb").write(damage(data, payload))
    server.start(expect_ready=False)
    return server.proc.wait(timeout=30)


@pytest.mark.parametrize("damage", [
    lambda data, at: data[:at] + bytes([data[at] ^ 0x10]) + data[at + 1:],
    lambda data, at: data[:at + 100],
], ids=["flipped", "truncated"])
def test_corrupt_rdb_fails_the_load_without_a_crash(server_factory, damage):
    server = server_factory("--rdbcompression", "no")
    code = start_on_broken_rdb(server, damage)
    log = server.log()
    assert code != 0 and code != -signal.SIGSEGV and code != -signal.SIGABRT, code
    assert "bloomkit: refusing a corrupt filter value" in log
    assert "crashed by signal" not in log
    assert "REDIS BUG REPORT" not in log


def test_restore_of_a_corrupt_dump_is_refused(server_factory):
    server = server_factory()
    r = server.client()
    r.execute_command("BK.RESERVE", "f", 100, 0.01, "KIND", "scalable")
    r.execute_command("BF.MADD", "f", *[f"k{i}" for i in range(50)])
    dump = bytearray(r.dump("f"))
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
    for at in (len(dump) // 2, len(dump) - 20, 40, 12):
        damaged = bytes(dump[:at]) + bytes([dump[at] ^ 0x01]) + bytes(dump[at + 1:])
        with pytest.raises(redis.exceptions.ResponseError):
            r.restore("g", 0, damaged, replace=True)
        assert r.ping()
    r.restore("g", 0, bytes(dump))
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "g") == \
        r.execute_command("DEBUG", "DIGEST-VALUE", "f")
    assert "bloomkit: refusing a corrupt filter value" in server.log()


def test_chain_keys_dump_restore_and_chunks(server_factory):
    # BF.* keys (bkbloom--): DUMP / RESTORE and BF.SCANDUMP / BF.LOADCHUNK keep type and answers.
    server = server_factory()
    r = server.client()
    keys = [f"k{i}" for i in range(3000)]
    r.execute_command("BF.RESERVE", "c", 0.001, 1000, "EXPANSION", 3)
    r.execute_command("BF.MADD", "c", *keys)
    digest = r.execute_command("DEBUG", "DIGEST-VALUE", "c")
    r.restore("d", 0, r.dump("c"))
    assert r.type("d") == b"bkbloom--"
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "d") == digest
    for iterator, data in scandump(r, "c"):
        r.execute_command("BF.LOADCHUNK", "e", iterator, data)
    assert r.type("e") == b"bkbloom--"
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "e") == digest
    assert r.execute_command("BF.MEXISTS", "e", *keys) == [1] * len(keys)
    assert r.execute_command("BF.INFO", "e") == r.execute_command("BF.INFO", "c")


def test_restore_refuses_a_chain_of_the_other_types_hashing(server_factory):
    # A bkbloom-- payload relabelled MBbloom-- (and back) is refused: the option bit decides the
    # hashing, so a key's type never disagrees with its answers.
    server = server_factory()
    r = server.client()
    r.execute_command("BF.ADD", "c", "x")
    dump = r.dump("c")
    r.execute_command("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", 1)
    # Type byte 7, then the module id, RDB-length encoded as 0x81 and 8 big-endian bytes.
    assert dump[0] == 7 and dump[1] == 0x81
    assert int.from_bytes(dump[2:10], "big") == redisbloom_module_id("bkbloom--", 1)
    forged = dump[:2] + redisbloom_module_id("MBbloom--", 4).to_bytes(8, "big") + dump[10:]
    with pytest.raises(redis.exceptions.ResponseError):
        r.restore("g", 0, forged)
    assert r.ping()
    assert "refusing a corrupt RedisBloom value (MBbloom--" in server.log()


def redisbloom_module_id(name, encver):
    charset = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    module_id = 0
    for ch in name:
        module_id = (module_id << 6) | charset.index(ch)
    return (module_id << 10) | encver
