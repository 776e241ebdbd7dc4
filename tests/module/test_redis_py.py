"""A RedisBloom user's script through Debian's redis-py 4.3.4 (`r.bf()`), unchanged, with
decode_responses off and on: reserve, add, madd, exists, mexists, insert, info, card, and a copy
by scandump / loadchunk. With decode_responses on, binary chunks need encoding_errors
"surrogateescape" to survive the round trip through str, as they would with RedisBloom."""

import pytest

ITEMS = [f"user:{i}" for i in range(300)]
ABSENT = [f"nobody:{i}" for i in range(300)]


@pytest.fixture(params=[False, True], ids=["bytes", "decoded"])
def client(request, shared_server):
    extra = {"encoding_errors": "surrogateescape"} if request.param else {}
    r = shared_server.client(decode_responses=request.param, **extra)
    r.flushall()
    yield r
    r.close()


def copy_by_chunks(bf, source, target):
    chunks = []
    iterator = 0
    while True:
        iterator, data = bf.scandump(source, iterator)
        if iterator == 0:
            break
        chunks.append((iterator, data))
    for iterator, data in chunks:
        assert bf.loadchunk(target, iterator, data) in (True, "OK", b"OK")
    return len(chunks)


def test_bf_end_to_end(client):
    bf = client.bf()
    assert bf.create("users", 0.001, 100) is True
    assert bf.create("fixed", 0.01, 1000, noScale=True) is True
    assert bf.create("wide", 0.01, 100, expansion=4) is True
    assert bf.add("users", ITEMS[0]) == 1
    assert bf.add("users", ITEMS[0]) == 0
    assert bf.madd("users", *ITEMS) == [0] + [1] * (len(ITEMS) - 1)
    assert bf.exists("users", ITEMS[5]) == 1
    assert bf.mexists("users", *ITEMS) == [1] * len(ITEMS)
    assert sum(bf.mexists("users", *ABSENT)) < 10
    assert bf.insert("events", ["a", "b", "a"], capacity=500, error=0.01, expansion=3) == [1, 1, 0]
    assert bf.insert("events", ["c"], noCreate=True) == [1]
    assert bf.insert("fixed", ["x", "y"], noScale=True) == [1, 1]
    info = bf.info("users")
    assert (info.filterNum > 1, info.insertedNum, info.expansionRate) == (True, len(ITEMS), 2)
    assert info.capacity >= len(ITEMS) and info.size > 0
    assert (bf.info("events").capacity, bf.info("events").expansionRate) == (500, 3)
    assert bf.info("fixed").expansionRate is None
    assert bf.info("wide").expansionRate == 4
    assert client.execute_command("BF.CARD", "users") == len(ITEMS)
    assert copy_by_chunks(bf, "users", "copy") >= 2
    assert bf.mexists("copy", *ITEMS) == [1] * len(ITEMS)
    assert bf.mexists("copy", *ABSENT) == bf.mexists("users", *ABSENT)
    assert client.execute_command("BF.CARD", "copy") == len(ITEMS)


def test_bf_errors_reach_the_script(client):
    bf = client.bf()
    client.set("plain", "x")
    with pytest.raises(Exception, match="WRONGTYPE"):
        bf.add("plain", "a")
    assert bf.exists("plain", "a") == 0
    with pytest.raises(Exception, match="not found"):
        bf.info("missing")
    with pytest.raises(Exception, match="error rate must be in the range"):
        bf.create("bad", 1.5, 100)
    bf.create("full", 0.01, 2, noScale=True)
    reply = bf.madd("full", "a", "b", "c")
    assert reply[:2] == [1, 1] and "non scaling filter is full" in str(reply[2])
