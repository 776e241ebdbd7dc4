"""Every command's replies and errors through Debian's python3-redis (its bf() commands) and
redis-cli; RedisBloom's exact texts and RESP3 types are test_conformance.py's."""

import pytest
import redis

from conftest import raw

ResponseError = redis.exceptions.ResponseError


def error_of(r, *command):
    with pytest.raises(ResponseError) as e:
        r.execute_command(*command)
    return str(e.value)


def test_add_creates_with_redisbloom_defaults(r):
    assert r.bf().add("f", "a") == 1
    assert r.bf().add("f", "a") == 0
    info = r.bf().info("f")
    assert (info.capacity, info.filterNum, info.insertedNum, info.expansionRate) == (100, 1, 1, 2)
    assert info.size > 0


def test_madd_and_mexists(r):
    assert r.bf().madd("f", "a", "b", "a", "c") == [1, 1, 0, 1]
    assert r.bf().mexists("f", "a", "b", "c", "zz") == [1, 1, 1, 0]
    assert r.bf().exists("f", "b") == 1
    assert r.bf().exists("f", "nope") == 0
    # A missing key answers 0 for every item.
    assert r.bf().exists("missing", "a") == 0
    assert r.bf().mexists("missing", "a", "b") == [0, 0]


def test_window_madd_answers_each_key_as_bf_add_does(r):
    # A count window of 4 slices of 100 inserts: one BF.MADD of 1000 keys crosses slices, repeats
    # keys within itself and brings back keys its window has forgotten; per key it answers what
    # BF.ADD answers for the same keys one at a time.
    for key in ("batched", "looped"):
        r.execute_command("BK.RESERVE", key, 400, 0.01, "KIND", "window", "WINDOW", 400,
                          "SLICES", 4)
    keys = [f"url:{i}" for i in range(1000)]
    keys[::7] = keys[:len(keys[::7])]
    keys[700::11] = keys[100:100 + len(keys[700::11])]
    looped = [r.execute_command("BF.ADD", "looped", k) for k in keys]
    assert 0 < sum(looped) < len(keys)
    assert r.execute_command("BF.MADD", "batched", *keys) == looped
    assert r.execute_command("BF.MEXISTS", "batched", *keys) == \
        r.execute_command("BF.MEXISTS", "looped", *keys)
    assert r.execute_command("BF.SCANDUMP", "batched", 0) == \
        r.execute_command("BF.SCANDUMP", "looped", 0)


def test_reserve(r):
    assert r.bf().create("f", 0.001, 1000) is True
    assert error_of(r, "BF.RESERVE", "f", 0.001, 1000) == "item exists"
    assert r.bf().create("g", 0.01, 10, expansion=4) is True
    assert r.bf().info("g").expansionRate == 4
    assert r.bf().create("h", 0.01, 10, noScale=True) is True
    assert r.bf().info("h").expansionRate is None


def test_arity_errors(r):
    for command in (("BF.RESERVE", "f", 0.01), ("BF.ADD", "f"), ("BF.ADD", "f", "a", "b"),
                    ("BF.MADD", "f"), ("BF.EXISTS", "f"), ("BF.MEXISTS", "f"),
                    ("BF.INSERT", "f", "ITEMS"), ("BF.INFO",), ("BF.CARD",),
                    ("BF.SCANDUMP", "f"), ("BF.LOADCHUNK", "f", 1)):
        assert "wrong number of arguments" in error_of(r, *command)


def test_nonscaling_filter_is_full(r):
    r.bf().create("f", 0.01, 3, noScale=True)
    assert r.bf().madd("f", "a", "b")[:2] == [1, 1]
    reply = r.execute_command("BF.MADD", "f", "a", "c", "d", "e")
    # RedisBloom stops at the first key that does not fit and ends the array with the error.
    assert reply[:2] == [0, 1]
    assert isinstance(reply[2], ResponseError)
    assert str(reply[2]) == "non scaling filter is full"
    assert len(reply) == 3
    assert error_of(r, "BF.ADD", "f", "z") == "non scaling filter is full"
    assert r.bf().add("f", "a") == 0  # keys it holds are still answered
    assert r.execute_command("BF.CARD", "f") == 3


def test_scaling_filter_grows(r):
    r.bf().create("f", 0.01, 10, expansion=2)
    items = [f"k{i}" for i in range(100)]
    assert sum(r.bf().madd("f", *items)) >= 95
    info = r.bf().info("f")
    assert info.filterNum > 1
    assert info.capacity >= 100
    assert r.bf().mexists("f", *items) == [1] * 100


def test_insert(r):
    assert r.bf().insert("f", ["a", "b"], capacity=50, error=0.001, expansion=3) == [1, 1]
    info = r.bf().info("f")
    assert (info.capacity, info.expansionRate) == (50, 3)
    assert r.bf().insert("f", ["b", "c"]) == [0, 1]
    assert r.bf().insert("f", ["d"], noCreate=True) == [1]
    assert error_of(r, "BF.INSERT", "g", "NOCREATE", "ITEMS", "a") == "not found"
    assert r.exists("g") == 0
    assert r.bf().insert("n", ["a", "b", "c"], capacity=2, noScale=True)[:2] == [1, 1]
    assert r.bf().info("n").expansionRate is None


def test_info_fields(r):
    r.bf().madd("f", "a", "b")
    assert raw(r, "BF.INFO", "f", "CAPACITY") == [100]
    assert raw(r, "BF.INFO", "f", "items") == [2]
    assert raw(r, "BF.INFO", "f", "FILTERS") == [1]
    assert raw(r, "BF.INFO", "f", "EXPANSION") == [2]
    assert raw(r, "BF.INFO", "f", "SIZE")[0] > 0
    assert error_of(r, "BF.INFO", "f", "BOGUS") == "Invalid information value"
    assert error_of(r, "BF.INFO", "missing") == "not found"


def test_card(r):
    assert r.execute_command("BF.CARD", "missing") == 0
    r.bf().madd("f", "a", "b", "c", "a")
    assert r.execute_command("BF.CARD", "f") == 3


def test_wrong_type(r):
    r.set("s", "1")
    wrongtype = "Operation against a key holding the wrong kind of value"
    # (BF.EXISTS / BF.MEXISTS answer 0 there, as RedisBloom: test_conformance.py.)
    for command in (("BF.ADD", "s", "a"), ("BF.MADD", "s", "a"), ("BF.INSERT", "s", "ITEMS", "a"),
                    ("BF.RESERVE", "s", 0.01, 10), ("BF.INFO", "s"), ("BF.CARD", "s"),
                    ("BF.SCANDUMP", "s", 0), ("BF.LOADCHUNK", "s", 1, "x"),
                    ("BK.INFO", "s"), ("BK.REMOVE", "s", "a")):
        with pytest.raises(redis.exceptions.ResponseError) as e:
            r.execute_command(*command)
        assert wrongtype in str(e.value), command
    # And other commands see the module type as its own.
    r.bf().add("f", "a")
    assert r.type("f") == b"bkbloom--"
    with pytest.raises(ResponseError):
        r.get("f")


def test_keyspace_events_and_memory(r):
    r.config_set("notify-keyspace-events", "KEA")
    pubsub = r.pubsub()
    pubsub.psubscribe("__keyevent@0__:*")
    pubsub.get_message(timeout=1)  # the subscription
    r.bf().add("f", "a")
    events = []
    for _ in range(2):
        message = pubsub.get_message(timeout=5)
        if message:
            events.append(message["channel"].decode())
    assert "__keyevent@0__:bf.add" in events
    pubsub.close()
    assert r.memory_usage("f") >= r.bf().info("f").size


def test_redis_cli_drives_every_command(shared_server, r):
    cli = shared_server.cli
    assert cli("BF.RESERVE", "c", "0.01", "1000").strip() == "OK"
    assert cli("BF.ADD", "c", "a").strip() == "1"
    assert cli("BF.MADD", "c", "a", "b").split() == ["0", "1"]
    assert cli("BF.EXISTS", "c", "b").strip() == "1"
    assert cli("BF.MEXISTS", "c", "a", "x").split() == ["1", "0"]
    assert cli("BF.INSERT", "c", "ITEMS", "d").strip() == "1"
    assert cli("BF.CARD", "c").strip() == "3"
    assert cli("BF.INFO", "c").split("\n")[:2] == ["Capacity", "1000"]
    assert cli("BF.INFO", "c", "ITEMS").strip() == "3"
    assert cli("BF.RESERVE", "c", "0.01", "1000").strip() == "ERR item exists"
    assert cli("BF.RESERVE", "x", "2", "1000").strip() == \
        "ERR error rate must be in the range (0.000000, 1.000000)"
    assert cli("BF.INFO", "nope").strip() == "ERR not found"
    assert cli("BF.SCANDUMP", "c", "0").split("\n")[0] == "1"
    assert cli("BK.RESERVE", "k", "100", "0.01", "KIND", "counting").strip() == "OK"
    assert cli("BF.ADD", "k", "a").strip() == "1"
    assert cli("BK.REMOVE", "k", "a").strip() == "1"
    assert cli("BF.EXISTS", "k", "a").strip() == "0"
    assert "kind\ncounting" in cli("BK.INFO", "k")


def test_cuckoo_kind_through_the_registry(r):
    # BK.RESERVE ... KIND cuckoo: every BF.ADD stores a copy, BK.REMOVE takes one out (0 and no
    # change for a key never added), and a full table answers RedisBloom's full error, the keys
    # before it kept; DUMP / RESTORE keeps it whole.
    assert r.execute_command("BK.RESERVE", "ck", 40, 0.01, "KIND", "cuckoo") in (b"OK", "OK", True)
    assert r.execute_command("BF.ADD", "ck", "a") == 1
    assert r.execute_command("BF.ADD", "ck", "a") == 1
    assert r.execute_command("BK.REMOVE", "ck", "a", "never") == [1, 0]
    assert r.execute_command("BF.EXISTS", "ck", "a") == 1
    assert r.execute_command("BK.REMOVE", "ck", "a") == [1]
    assert r.execute_command("BF.EXISTS", "ck", "a") == 0
    info = dict(zip(*[iter(r.execute_command("BK.INFO", "ck"))] * 2))
    assert info[b"kind"] == b"cuckoo"
    assert int(info[b"bucket_size"]) >= 2 and int(info[b"fingerprint_bits"]) >= 8
    keys = [f"id:{i}" for i in range(200)]
    replies = r.execute_command("BF.MADD", "ck", *keys)
    assert isinstance(replies[-1], ResponseError) and "full" in str(replies[-1])
    taken = len(replies) - 1
    assert 40 <= taken < 200 and replies[:-1] == [1] * taken
    assert r.execute_command("BF.MEXISTS", "ck", *keys[:taken]) == [1] * taken
    r.execute_command("RESTORE", "ck2", 0, r.execute_command("DUMP", "ck"))
    assert r.execute_command("BF.MEXISTS", "ck2", *keys[:taken]) == [1] * taken
