"""RedisBloom's documented BF.* behaviour, reply types and texts as its source (the vectors' commit
b28c2945, RedisBloom 8) sends them, checked on the wire in RESP2 and RESP3 with a raw client
(resp_client.py): booleans and maps in RESP3, RedisBloom's refusals word for word, its limits
(capacity 1..2^30, EXPANSION 0..32768), BF.EXISTS on a key of another type, SCANDUMP /
LOADCHUNK iterator edges. Module arguments and configs: test_module_settings.py."""

import pytest

from resp_client import ErrorReply, RespClient, SimpleString

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
RATE_RANGE = "ERR error rate must be in the range (0.000000, 1.000000)"
CAPACITY_RANGE = "ERR capacity must be in the range [1, 1073741824]"
EXPANSION_RANGE = "ERR expansion must be in the range [0, 32768]"
FULL = "ERR non scaling filter is full"


@pytest.fixture
def resp2(shared_server):
    with RespClient(shared_server.port) as c:
        c.call("FLUSHALL")
        yield c


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def client(request, shared_server):
    with RespClient(shared_server.port, protocol=request.param) as c:
        c.call("FLUSHALL")
        c.protocol = request.param
        yield c


def boolean(c, value):
    """What RedisBloom answers for a boolean in the client's protocol."""
    return value if c.protocol == 3 else int(value)


def same_type(got, expected):
    return got == expected and type(got) is type(expected)


def booleans(c, values):
    return [boolean(c, v) for v in values]


def info_pairs(reply):
    """BF.INFO's reply as (name, value) pairs, whichever its shape."""
    if isinstance(reply, dict):
        return list(reply.items())
    return list(zip(reply[::2], reply[1::2]))


def test_adds_and_lookups_answer_booleans_in_resp3_integers_in_resp2(client):
    c = client
    assert same_type(c.call("BF.ADD", "f", "a"), boolean(c, True))
    assert same_type(c.call("BF.ADD", "f", "a"), boolean(c, False))
    got = c.call("BF.MADD", "f", "a", "b", "b", "c")
    assert all(same_type(g, e) for g, e in zip(got, booleans(c, [False, True, False, True])))
    got = c.call("BF.INSERT", "f", "ITEMS", "c", "d")
    assert all(same_type(g, e) for g, e in zip(got, booleans(c, [False, True])))
    assert same_type(c.call("BF.EXISTS", "f", "d"), boolean(c, True))
    assert same_type(c.call("BF.EXISTS", "f", "zz"), boolean(c, False))
    got = c.call("BF.MEXISTS", "f", "a", "zz", "d")
    assert all(same_type(g, e) for g, e in zip(got, booleans(c, [True, False, True])))
    assert len(got) == 3
    # BF.CARD is a count in both protocols.
    assert same_type(c.call("BF.CARD", "f"), 4)
    assert c.call("BF.RESERVE", "r", "0.01", "100") == SimpleString("OK")


def test_lookups_on_a_missing_key_or_another_type_answer_false(client):
    c = client
    c.call("SET", "s", "x")
    c.call("HSET", "h", "field", "x")
    for key in ("missing", "s", "h"):
        assert same_type(c.call("BF.EXISTS", key, "x"), boolean(c, False)), key
        got = c.call("BF.MEXISTS", key, "x", "field")
        assert got == booleans(c, [False, False]), key
    # The writes and the reads of the filter's own data still refuse another type.
    for command in (("BF.ADD", "s", "a"), ("BF.MADD", "s", "a"), ("BF.INSERT", "s", "ITEMS", "a"),
                    ("BF.RESERVE", "s", "0.01", "10"), ("BF.INFO", "s"), ("BF.CARD", "s"),
                    ("BF.SCANDUMP", "s", "0"), ("BF.LOADCHUNK", "s", "1", "x")):
        assert c.call(*command) == ErrorReply(WRONGTYPE), command
    assert c.call("GET", "s") == b"x"


def test_info_is_a_map_in_resp3_and_pairs_in_resp2(client):
    c = client
    c.call("BF.MADD", "f", "a", "b")
    reply = c.call("BF.INFO", "f")
    assert isinstance(reply, dict) if c.protocol == 3 else isinstance(reply, list)
    pairs = info_pairs(reply)
    assert [name for name, _ in pairs] == ["Capacity", "Size", "Number of filters",
                                           "Number of items inserted", "Expansion rate"]
    assert all(type(name) is SimpleString for name, _ in pairs)
    values = dict(pairs)
    assert (values["Capacity"], values["Number of filters"], values["Number of items inserted"],
            values["Expansion rate"]) == (100, 1, 2, 2)
    assert values["Size"] > 0
    c.call("BF.RESERVE", "n", "0.01", "50", "NONSCALING")
    assert dict(info_pairs(c.call("BF.INFO", "n")))["Expansion rate"] is None


@pytest.mark.parametrize("field, title", [("CAPACITY", "Capacity"), ("size", "Size"),
                                          ("Filters", "Number of filters"),
                                          ("ITEMS", "Number of items inserted"),
                                          ("expansion", "Expansion rate")])
def test_info_field_is_a_one_pair_map_in_resp3_and_one_element_array_in_resp2(client, field,
                                                                              title):
    c = client
    c.call("BF.RESERVE", "f", "0.01", "300", "EXPANSION", "3")
    c.call("BF.MADD", "f", "a", "b", "c")
    whole = dict(info_pairs(c.call("BF.INFO", "f")))
    reply = c.call("BF.INFO", "f", field)
    if c.protocol == 3:
        assert reply == {title: whole[title]}
        assert type(next(iter(reply))) is SimpleString
    else:
        assert reply == [whole[title]]
    c.call("BF.RESERVE", "n", "0.01", "50", "NONSCALING")
    expansion = c.call("BF.INFO", "n", "EXPANSION")
    assert expansion == ({"Expansion rate": None} if c.protocol == 3 else [None])


def test_info_refusals(resp2):
    c = resp2
    c.call("BF.ADD", "f", "a")
    assert c.call("BF.INFO", "f", "BOGUS") == ErrorReply("Invalid information value")
    assert c.call("BF.INFO", "missing") == ErrorReply("ERR not found")
    assert c.call("BF.INFO", "missing", "CAPACITY") == ErrorReply("ERR not found")


def test_nonscaling_filter_full_in_both_protocols(client):
    c = client
    c.call("BF.RESERVE", "f", "0.01", "3", "NONSCALING")
    assert c.call("BF.MADD", "f", "a", "b") == booleans(c, [True, True])
    reply = c.call("BF.MADD", "f", "a", "c", "d", "e")
    assert reply == booleans(c, [False, True]) + [ErrorReply(FULL)]
    reply = c.call("BF.INSERT", "f", "ITEMS", "b", "x", "y")
    assert reply == booleans(c, [False]) + [ErrorReply(FULL)]
    assert c.call("BF.ADD", "f", "z") == ErrorReply(FULL)
    assert c.call("BF.CARD", "f") == 3


@pytest.mark.parametrize("arguments, message", [
    (("abc", "100"), "ERR bad error rate"),
    (("nan", "100"), "ERR bad error rate"),
    (("", "100"), "ERR bad error rate"),
    (("0", "100"), RATE_RANGE),
    (("1", "100"), RATE_RANGE),
    (("-0.5", "100"), RATE_RANGE),
    (("2", "100"), RATE_RANGE),
    (("inf", "100"), RATE_RANGE),
    (("0.01", "x"), "ERR bad capacity"),
    (("0.01", "1.5"), "ERR bad capacity"),
    (("0.01", "+5"), "ERR bad capacity"),
    (("0.01", "007"), "ERR bad capacity"),
    (("0.01", "0"), CAPACITY_RANGE),
    (("0.01", "-3"), CAPACITY_RANGE),
    (("0.01", "1073741825"), CAPACITY_RANGE),
    (("0.01", "99999999999999999999"), "ERR bad capacity"),
    (("0.01", "100", "EXPANSION"), "ERR no expansion"),
    (("0.01", "100", "EXPANSION", "x"), "ERR bad expansion"),
    (("0.01", "100", "EXPANSION", "-1"), EXPANSION_RANGE),
    (("0.01", "100", "EXPANSION", "32769"), EXPANSION_RANGE),
    (("0.01", "100", "EXPANSION", "4294967297"), EXPANSION_RANGE),
    (("0.01", "100", "EXPANSION", "9223372036854775808"), "ERR bad expansion"),
    (("0.01", "100", "EXPANSION", "2", "NONSCALING"), "Nonscaling filters cannot expand"),
    (("0.01", "100", "NONSCALING", "EXPANSION", "40000"), "Nonscaling filters cannot expand"),
])
def test_reserve_refusals(resp2, arguments, message):
    assert resp2.call("BF.RESERVE", "f", *arguments) == ErrorReply(message)
    assert resp2.call("EXISTS", "f") == 0


def test_reserve_reads_every_argument_before_the_key(resp2):
    c = resp2
    c.call("BF.RESERVE", "f", "0.01", "100")
    assert c.call("BF.RESERVE", "f", "0", "100") == ErrorReply(RATE_RANGE)
    assert c.call("BF.RESERVE", "f", "0.01", "100") == ErrorReply("ERR item exists")
    c.call("SET", "s", "x")
    assert c.call("BF.RESERVE", "s", "0.01", "0") == ErrorReply(CAPACITY_RANGE)


def test_reserve_arity(resp2):
    for arguments in (("f", "0.01"), ("f", "0.01", "100", "NONSCALING", "A", "B", "C")):
        reply = resp2.call("BF.RESERVE", *arguments)
        assert "wrong number of arguments" in reply.text
        assert "bf.reserve" in reply.text.lower()


def test_reserve_options_as_redisbloom_finds_them(resp2):
    c = resp2
    # Unknown words are ignored, as RedisBloom ignores them.
    assert c.call("BF.RESERVE", "f", "0.01", "100", "FOO") == "OK"
    assert c.call("BF.RESERVE", "g", "0.01", "100", "FOO", "NONSCALING", "BAR") == "OK"
    assert c.call("BF.INFO", "g", "EXPANSION") == [None]
    # Options are found anywhere, case-insensitively, the first EXPANSION counting.
    assert c.call("BF.RESERVE", "h", "0.01", "100", "expansion", "3", "EXPANSION") == "OK"
    assert c.call("BF.INFO", "h", "EXPANSION") == [3]
    # RedisBloom looks for its keywords from the key on: a key named NONSCALING is NONSCALING.
    assert c.call("BF.RESERVE", "nonscaling", "0.01", "100") == "OK"
    assert c.call("BF.INFO", "nonscaling", "EXPANSION") == [None]


def test_expansion_zero_is_nonscaling(resp2):
    c = resp2
    assert c.call("BF.RESERVE", "f", "0.01", "3", "EXPANSION", "0") == "OK"
    assert c.call("BF.RESERVE", "g", "0.01", "3", "NONSCALING", "EXPANSION", "0") == "OK"
    assert c.call("BF.INSERT", "h", "CAPACITY", "3", "EXPANSION", "0", "ITEMS", "a") == [1]
    for key in ("f", "g", "h"):
        assert c.call("BF.INFO", key, "EXPANSION") == [None], key
        c.call("BF.MADD", key, "a", "b", "c")
        assert c.call("BF.ADD", key, "d") == ErrorReply(FULL), key


@pytest.mark.parametrize("expansion", [1, 2, 1024, 1025, 32768])
def test_every_documented_expansion_makes_a_growing_filter(resp2, expansion):
    c = resp2
    assert c.call("BF.RESERVE", "f", "0.01", "10", "EXPANSION", str(expansion)) == "OK"
    assert c.call("BF.INSERT", "g", "CAPACITY", "10", "EXPANSION", str(expansion),
                  "ITEMS", "x") == [1]
    items = [f"k{i}" for i in range(25)]
    for key in ("f", "g"):
        assert sum(c.call("BF.MADD", key, *items)) >= 20
        assert c.call("BF.MEXISTS", key, *items) == [1] * len(items)
        assert c.call("BF.INFO", key, "EXPANSION") == [expansion]
        assert c.call("BF.INFO", key, "FILTERS")[0] >= 2


@pytest.mark.parametrize("arguments, message", [
    (("CAPACITY", "x", "ITEMS", "a"), "Bad capacity"),
    (("CAPACITY", "0", "ITEMS", "a"), "Bad capacity"),
    (("CAPACITY", "1073741825", "ITEMS", "a"), "Bad capacity"),
    (("ERROR", "x", "ITEMS", "a"), "Bad error rate"),
    (("ERROR", "0", "ITEMS", "a"), "Bad error rate"),
    (("ERROR", "2", "ITEMS", "a"), "Bad error rate"),
    (("EXPANSION", "x", "ITEMS", "a"), "Bad expansion"),
    (("EXPANSION", "-1", "ITEMS", "a"), "Bad expansion"),
    (("EXPANSION", "32769", "ITEMS", "a"), "Bad expansion"),
    (("EXPANSION", "18446744073709551617", "ITEMS", "a"), "Bad expansion"),
    (("BOGUS", "ITEMS", "a"), "Unknown argument received"),
    (("CAPACITY", "10", "BOGUS", "ITEMS", "a"), "Unknown argument received"),
    (("NOCREATE", "ITEMS", "a"), "ERR not found"),
])
def test_insert_refusals(resp2, arguments, message):
    assert resp2.call("BF.INSERT", "f", *arguments) == ErrorReply(message)
    assert resp2.call("EXISTS", "f") == 0


@pytest.mark.parametrize("arguments", [("ITEMS",), ("CAPACITY",), ("CAPACITY", "10"),
                                       ("NONSCALING", "ITEMS"), ("ERROR", "0.01", "EXPANSION")])
def test_insert_arity(resp2, arguments):
    reply = resp2.call("BF.INSERT", "f", *arguments)
    assert "wrong number of arguments" in reply.text, arguments


def test_insert_options(resp2):
    c = resp2
    assert c.call("BF.INSERT", "f", "capacity", "50", "error", "0.001", "expansion", "3",
                  "items", "a", "b") == [1, 1]
    assert [c.call("BF.INFO", "f", x)[0] for x in ("CAPACITY", "EXPANSION")] == [50, 3]
    # On an existing filter the creation options are ignored, NOCREATE with them included.
    assert c.call("BF.INSERT", "f", "NOCREATE", "CAPACITY", "9", "ERROR", "0.5", "ITEMS",
                  "b", "c") == [0, 1]
    assert c.call("BF.INFO", "f", "CAPACITY") == [50]
    assert c.call("BF.INSERT", "n", "NONSCALING", "CAPACITY", "2", "ITEMS", "a", "b",
                  "c") == [1, 1, ErrorReply(FULL)]
    assert c.call("BF.INFO", "n", "EXPANSION") == [None]


def test_arity_of_every_command(resp2):
    for command in (("BF.ADD", "f"), ("BF.ADD", "f", "a", "b"), ("BF.MADD", "f"),
                    ("BF.EXISTS", "f"), ("BF.EXISTS", "f", "a", "b"), ("BF.MEXISTS", "f"),
                    ("BF.INFO",), ("BF.INFO", "f", "CAPACITY", "SIZE"), ("BF.CARD",),
                    ("BF.CARD", "f", "g"), ("BF.SCANDUMP", "f"), ("BF.SCANDUMP", "f", "0", "1"),
                    ("BF.LOADCHUNK", "f", "1"), ("BF.LOADCHUNK", "f", "1", "x", "y")):
        reply = resp2.call(*command)
        assert isinstance(reply, ErrorReply) and "wrong number of arguments" in reply.text, command
        assert command[0].lower() in reply.text.lower(), command


def test_scandump_iterators(resp2):
    c = resp2
    c.call("BF.MADD", "f", "a", "b")
    assert c.call("BF.SCANDUMP", "f", "x") == ErrorReply("Second argument must be numeric")
    assert c.call("BF.SCANDUMP", "f", "1.5") == ErrorReply("Second argument must be numeric")
    # Before the payload or past its end the dump is over, as RedisBloom answers: (0, "").
    for iterator in ("-1", "-9223372036854775808", str(10**15)):
        assert c.call("BF.SCANDUMP", "f", iterator) == [0, b""], iterator
    header = c.call("BF.SCANDUMP", "f", "0")
    assert header[0] == 1 and len(header[1]) > 0
    assert c.call("BF.SCANDUMP", "missing", "0") == ErrorReply("ERR not found")


def test_loadchunk_refusals(resp2):
    c = resp2
    c.call("BF.MADD", "f", "a", "b")
    header = c.call("BF.SCANDUMP", "f", "0")[1]
    assert c.call("BF.LOADCHUNK", "g", "x", header) == \
        ErrorReply("ERR Second argument must be numeric")
    for iterator in ("0", "-1", "5"):
        assert c.call("BF.LOADCHUNK", "g", iterator, b"data") == ErrorReply("ERR not found")
    assert c.call("BF.LOADCHUNK", "f", "1", header) == ErrorReply("ERR item exists")
    assert c.call("BF.LOADCHUNK", "g", "1", header) == "OK"
    for iterator in ("0", "-1"):
        assert c.call("BF.LOADCHUNK", "g", iterator, b"data") == \
            ErrorReply("ERR received bad data")
    # The refused chunks changed nothing: the copy completes.
    it = 0
    while True:
        it, data = c.call("BF.SCANDUMP", "f", str(it))
        if it == 0:
            break
        if it != 1:
            assert c.call("BF.LOADCHUNK", "g", str(it), data) == "OK"
    assert c.call("BF.MEXISTS", "g", "a", "b") == [1, 1]


def test_half_loaded_key_answers_lookups_false(client):
    c = client
    c.call("BF.MADD", "f", "a", "b")
    header = c.call("BF.SCANDUMP", "f", "0")[1]
    assert c.call("BF.LOADCHUNK", "g", "1", header) == "OK"
    assert c.call("BF.EXISTS", "g", "a") == boolean(c, False)
    assert c.call("BF.MEXISTS", "g", "a", "b") == booleans(c, [False, False])
