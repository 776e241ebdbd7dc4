"""How the module registers itself (docs/REDIS.md, "Registration"): its name and version in MODULE
LIST, every command's COMMAND INFO and COMMAND DOCS (arity, flags, key specs, arguments), a
read-only ACL user, the `bloom` ACL category where the server has it, the BK.* twins of the BF.*
commands, and the INFO section's figures."""

import os
import re

import pytest
import redis

from conftest import raw
from redisbloom_vectors import scandump

ResponseError = redis.exceptions.ResponseError

READS = ["RO", "access"]
INSERTS = ["RW", "insert"]

# name -> (arity, command flags, key-spec flags, top-level argument names); RedisBloom's arities,
# flags and argument shapes for its commands (its command info), written out here apart from the
# module's table so that a change there shows.
TWINNED = {
    "add": (3, {"write", "denyoom"}, INSERTS, ["key", "item"]),
    "madd": (-3, {"write", "denyoom"}, INSERTS, ["key", "item"]),
    "insert": (-4, {"write", "denyoom"}, INSERTS,
               ["key", "capacity", "error", "expansion", "nocreate", "nonscaling", "items",
                "item"]),
    "exists": (3, {"readonly", "fast"}, READS, ["key", "item"]),
    "mexists": (-3, {"readonly", "fast"}, READS, ["key", "item"]),
    "card": (2, {"readonly", "fast"}, READS, ["key"]),
    "scandump": (3, {"readonly", "fast"}, READS, ["key", "iterator"]),
    "loadchunk": (4, {"write", "denyoom"}, ["RW", "update"], ["key", "iterator", "data"]),
}
BF_ONLY = {
    "reserve": (-4, {"write", "denyoom"}, INSERTS,
                ["key", "error_rate", "capacity", "expansion", "nonscaling"]),
    "info": (-2, {"readonly", "fast"}, READS, ["key", "single_value"]),
    "debug": (2, {"readonly"}, READS, ["key"]),
}
BK_ONLY = {
    "reserve": (-4, {"write", "denyoom"}, INSERTS,
                ["key", "capacity", "fpp", "kind", "expansion", "window", "slices"]),
    "remove": (-3, {"write"}, ["RW", "delete"], ["key", "item"]),
    "info": (2, {"readonly"}, READS, ["key"]),
    "convert": (2, {"write"}, ["RW", "update"], ["key"]),
}
# RedisBloom's cuckoo commands (module `bf` only); CF.COMPACT is `write` here (docs/REDIS.md).
CF_INSERT_ARGS = ["key", "capacity", "nocreate", "items", "item"]
CF = {
    "reserve": (-3, {"write", "denyoom"}, INSERTS,
                ["key", "capacity", "bucketsize", "maxiterations", "expansion"]),
    "add": (3, {"write", "denyoom"}, INSERTS, ["key", "item"]),
    "addnx": (3, {"write", "denyoom"}, INSERTS, ["key", "item"]),
    "insert": (-4, {"write", "denyoom"}, INSERTS, CF_INSERT_ARGS),
    "insertnx": (-4, {"write", "denyoom"}, INSERTS, CF_INSERT_ARGS),
    "exists": (3, {"readonly", "fast"}, READS, ["key", "item"]),
    "mexists": (-3, {"readonly", "fast"}, READS, ["key", "item"]),
    "count": (3, {"readonly", "fast"}, READS, ["key", "item"]),
    "del": (3, {"write", "fast"}, ["RW", "delete"], ["key", "item"]),
    "compact": (2, {"write"}, ["RW", "update"], ["key"]),
    "info": (2, {"readonly", "fast"}, READS, ["key"]),
    "debug": (2, {"readonly", "fast"}, READS, ["key"]),
    "scandump": (3, {"readonly", "fast"}, READS, ["key", "iterator"]),
    "loadchunk": (4, {"write", "denyoom"}, ["RW", "update"], ["key", "iterator", "data"]),
}
EXPECTED = {**{f"bf.{n}": v for n, v in {**TWINNED, **BF_ONLY}.items()},
            **{f"bk.{n}": v for n, v in {**TWINNED, **BK_ONLY}.items()},
            **{f"cf.{n}": v for n, v in CF.items()}}
READ_COMMANDS = sorted(n for n, v in EXPECTED.items() if v[2] == READS)
WRITE_COMMANDS = sorted(n for n, v in EXPECTED.items() if v[2] != READS)


def text(value):
    return value.decode() if isinstance(value, bytes) else value


def pairs(flat):
    """A flat [name, value, name, value, ...] reply as a dict with str names."""
    return {text(flat[i]): flat[i + 1] for i in range(0, len(flat), 2)}


def project_version():
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "CMakeLists.txt")) as f:
        major, minor, patch = re.search(r"project\(bloomkit VERSION (\d+)\.(\d+)\.(\d+)",
                                        f.read()).groups()
    return int(major) * 10000 + int(minor) * 100 + int(patch)


def server_version(r):
    return tuple(int(p) for p in r.info("server")["redis_version"].split(".")[:2])


def test_module_list_names_the_module_bf_with_bloomkits_version(r):
    modules = [pairs(m) for m in raw(r, "MODULE", "LIST")]
    assert [text(m["name"]) for m in modules] == ["bf"]
    assert modules[0]["ver"] == project_version()


def test_every_command_is_registered_lower_case(r):
    names = {text(n) for n in raw(r, "COMMAND", "LIST", "FILTERBY", "MODULE", "bf")}
    assert names == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_command_info(r, name):
    arity, flags, key_flags, _ = EXPECTED[name]
    (info,) = raw(r, "COMMAND", "INFO", name.upper())
    assert text(info[0]) == name
    assert info[1] == arity
    assert {text(f) for f in info[2]} == flags | {"module"}
    assert info[3:6] == [1, 1, 1]
    (spec,) = info[8]
    spec = pairs(spec)
    assert [text(f) for f in spec["flags"]] == key_flags
    assert pairs(spec["begin_search"])[("spec")] == [b"index", 1]
    assert pairs(spec["find_keys"])["spec"] == [b"lastkey", 0, b"keystep", 1, b"limit", 0]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_command_docs(r, name):
    docs = raw(r, "COMMAND", "DOCS", name)
    assert text(docs[0]) == name
    doc = pairs(docs[1])
    assert text(doc["group"]) == "module"
    assert text(doc["module"]) == "bf"
    assert text(doc["since"]) == "0.1.0"
    assert len(text(doc["summary"])) > 10 and text(doc["complexity"]).startswith("O(")
    arguments = [pairs(a) for a in doc["arguments"]]
    assert [text(a["name"]) for a in arguments] == EXPECTED[name][3]
    assert text(arguments[0]["type"]) == "key"


def test_arity_is_checked_by_redis_before_the_command(r):
    for command in (("BF.ADD", "f"), ("BK.ADD", "f", "a", "b"), ("BF.CARD",), ("BK.INFO", "f", "x"),
                    ("BF.LOADCHUNK", "f", 1), ("BK.INSERT", "f", "ITEMS")):
        with pytest.raises(ResponseError, match=f"wrong number of arguments for "
                           f"'{command[0].lower()}' command"):
            r.execute_command(*command)


def test_bk_twins_answer_as_their_bf_commands(r):
    items = [f"i{i}" for i in range(200)]
    inserted = {}
    for prefix in ("BF", "BK"):
        key = f"{prefix}-key"
        assert r.execute_command(f"{prefix}.ADD", key, "first") == 1
        assert r.execute_command(f"{prefix}.MADD", key, *items[:100]) == [1] * 100
        inserted[prefix] = r.execute_command(f"{prefix}.INSERT", key, "NOCREATE", "ITEMS", *items)
        # The first 100 are present; a new key may be a false positive (0), rarely.
        assert inserted[prefix][:100] == [0] * 100 and sum(inserted[prefix][100:]) >= 95
        assert r.execute_command(f"{prefix}.EXISTS", key, "i5") == 1
        assert r.execute_command(f"{prefix}.MEXISTS", key, "i5", "first") == [1, 1]
        assert r.execute_command(f"{prefix}.CARD", key) == 101 + sum(inserted[prefix][100:])
    assert inserted["BF"] == inserted["BK"]
    assert r.execute_command("BK.MEXISTS", "BK-key", *items) == \
        r.execute_command("BF.MEXISTS", "BF-key", *items)
    # A dump through BK.SCANDUMP loads through BF.LOADCHUNK, and the reverse.
    for source, target, dump, load in (("BK-key", "copy1", "BK", "BF"),
                                       ("BF-key", "copy2", "BF", "BK")):
        iterator = 0
        while True:
            iterator, data = r.execute_command(f"{dump}.SCANDUMP", source, iterator)
            if iterator == 0:
                break
            r.execute_command(f"{load}.LOADCHUNK", target, iterator, data)
        assert r.execute_command("BK.MEXISTS", target, *items) == [1] * 200
    assert r.execute_command("BK.CARD", "missing") == 0
    with pytest.raises(ResponseError, match="not found"):
        r.execute_command("BK.SCANDUMP", "missing", 0)


def test_read_only_acl_user_reads_and_is_refused_writes(shared_server, r):
    r.execute_command("BF.RESERVE", "f", 0.01, 100)
    r.execute_command("BF.MADD", "f", "a", "b")
    r.execute_command("ACL", "SETUSER", "reader", "on", ">secret", "%R~*",
                      *[f"+{name}" for name in EXPECTED])
    reader = shared_server.client(username="reader", password="secret")
    try:
        assert reader.execute_command("BF.EXISTS", "f", "a") == 1
        assert reader.execute_command("BK.EXISTS", "f", "a") == 1
        assert reader.execute_command("BF.MEXISTS", "f", "a", "z") == [1, 0]
        assert reader.execute_command("BK.MEXISTS", "f", "a", "z") == [1, 0]
        assert reader.execute_command("BF.CARD", "f") == 2
        assert reader.execute_command("BK.CARD", "f") == 2
        assert reader.execute_command("BF.INFO", "f", "ITEMS") == [2]
        assert b"kind" in reader.execute_command("BK.INFO", "f")
        assert reader.execute_command("BF.SCANDUMP", "f", 0)[0] == 1
        assert reader.execute_command("BK.SCANDUMP", "f", 0)[0] == 1
        for command in (("BF.ADD", "f", "c"), ("BK.ADD", "f", "c"), ("BF.MADD", "f", "c"),
                        ("BF.INSERT", "f", "ITEMS", "c"), ("BF.RESERVE", "g", 0.01, 10),
                        ("BK.RESERVE", "g", 10, 0.01), ("BF.LOADCHUNK", "g", 1, "x"),
                        ("BK.LOADCHUNK", "g", 1, "x"), ("BK.REMOVE", "f", "a")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                reader.execute_command(*command)
        assert r.execute_command("BF.CARD", "f") == 2
        assert r.exists("g") == 0
    finally:
        reader.close()
        r.execute_command("ACL", "DELUSER", "reader")


def test_acl_categories_where_the_server_takes_them(r):
    categories = {text(c) for c in r.execute_command("ACL", "CAT")}
    if server_version(r) >= (7, 4):
        members = {text(c) for c in r.execute_command("ACL", "CAT", "bloom")}
        assert members == set(EXPECTED)
    else:
        # Only Redis >= 7.4 lets a module add a category: the module loads without `bloom`.
        assert "bloom" not in categories
        with pytest.raises(ResponseError):
            r.execute_command("ACL", "SETUSER", "nobody", "+@bloom")
    if server_version(r) >= (7, 2):
        for category, names in (("read", READ_COMMANDS), ("write", WRITE_COMMANDS)):
            assert set(names) <= {text(c) for c in r.execute_command("ACL", "CAT", category)}
    else:
        # Redis 7.0 gives module commands no categories at all (grant them by name).
        for name in EXPECTED:
            assert raw(r, "COMMAND", "INFO", name)[0][6] == []


def figures(r):
    section = r.info("bf_bloomkit")
    return {name: section[f"bf_{name}"] for name in ("filters", "bytes", "adds", "lookups",
                                                     "loads")}


def changed(before, after):
    return {name: after[name] - before[name] for name in before}


def test_info_section_follows_the_commands(r):
    assert set(r.info("bf")) == set(r.info("bf_bloomkit"))
    start = figures(r)
    assert start["filters"] == 0 and start["bytes"] == 0  # r flushed every key
    r.execute_command("BF.RESERVE", "f", 0.001, 100000)
    step = figures(r)
    assert changed(start, step)["filters"] == 1
    assert step["bytes"] >= r.execute_command("BF.INFO", "f", "SIZE")[0] * 0.9
    r.execute_command("BF.MADD", "f", *range(300))
    r.execute_command("BK.ADD", "g", "x")
    r.execute_command("BF.INSERT", "g", "ITEMS", "y", "z")
    r.execute_command("BF.MEXISTS", "f", *range(50))
    r.execute_command("BK.EXISTS", "missing", "x")
    delta = changed(step, figures(r))
    assert (delta["filters"], delta["adds"], delta["lookups"], delta["loads"]) == (1, 303, 51, 0)
    # Loads: a RESTORE, and a BF.LOADCHUNK sequence once its last chunk arrives.
    step = figures(r)
    r.restore("restored", 0, r.dump("f"))
    (first, header), *rest = scandump(r, "f")
    r.execute_command("BF.LOADCHUNK", "chunked", first, header)
    assert changed(step, figures(r))["loads"] == 1
    for iterator, data in rest:
        r.execute_command("BF.LOADCHUNK", "chunked", iterator, data)
    delta = changed(step, figures(r))
    assert (delta["filters"], delta["loads"]) == (2, 2)
    # An RDB reload loads every key again; deleting every key gives every byte back.
    step = figures(r)
    r.execute_command("DEBUG", "RELOAD")
    delta = changed(step, figures(r))
    assert (delta["filters"], delta["loads"]) == (0, 4)
    r.flushall()
    end = figures(r)
    assert (end["filters"], end["bytes"]) == (0, 0)
