"""RedisBloom's cuckoo-filter vectors (tests/data/redisbloom-cuckoo/README.md: made with the real
RedisBloom) and the checks that a key answers as RedisBloom answered. The directory is
BLOOMKIT_REDISBLOOM_CUCKOO_VECTORS when set (hidden tests use other vectors of the same schema),
tests/data/redisbloom-cuckoo otherwise. Replies are compared typed, as the vectors record them
(resp_client.py keeps what the server sent: simple strings, errors, nil, RESP3 booleans and
maps)."""

import functools
import json
import shutil
from pathlib import Path

from redisbloom_vectors import find_vectors
from resp_client import ErrorReply, RespClient, SimpleString

BATCH = 100  # probes per CF.MEXISTS, as the vectors were recorded
PIPELINE = 2000  # commands sent before their replies are read


def vectors_dir():
    return find_vectors("BLOOMKIT_REDISBLOOM_CUCKOO_VECTORS", "redisbloom-cuckoo",
                        "RedisBloom cuckoo vectors")


class CuckooVector:
    """One key's file (keys/<name>.json), its byte strings decoded."""

    def __init__(self, data):
        self.data = data
        self.key = data["key"]
        self.final = data["final"]
        self.commands = data["commands"]
        self.probes = data["probes"]
        self.items = [bytes.fromhex(p["item_hex"]) for p in self.probes]
        self.dump = bytes.fromhex(self.final["dump_hex"])
        # (iterator, data) of every CF.SCANDUMP reply but the last [0, nil].
        self.chunks = [(c["iterator"], bytes.fromhex(c["data_hex"]))
                       for c in data["scandump"] if c["iterator"] != 0]


@functools.lru_cache(maxsize=1)
def cuckoo_vectors():
    return [CuckooVector(json.loads(p.read_text()))
            for p in sorted((vectors_dir() / "keys").glob("*.json"))]


@functools.lru_cache(maxsize=1)
def sessions():
    return json.loads((vectors_dir() / "sessions.json").read_text())


def rdb_keys():
    return json.loads((vectors_dir() / "rdb_keys.json").read_text())


def copy_rdb(directory):
    """Puts the vectors' dump.rdb where a server started in `directory` loads it."""
    shutil.copy(vectors_dir() / "dump.rdb", Path(directory) / "dump.rdb")


def argv_of(command, key=None):
    """A logged command's full argument vector (items last), on `key` instead of its own."""
    argv = [a.encode() for a in command["argv"]] + [bytes.fromhex(h) for h in
                                                     command["items_hex"]]
    if key is not None:
        argv[1] = key.encode() if isinstance(key, str) else key
    return argv


def typed(reply):
    """A reply in the vectors' JSON form (README, "Conventions")."""
    if isinstance(reply, ErrorReply):
        return {"error": reply.text}
    if isinstance(reply, SimpleString):
        return {"simple": str(reply)}
    if isinstance(reply, bytes):
        return {"bulk_hex": reply.hex()}
    if isinstance(reply, list):
        return [typed(r) for r in reply]
    if isinstance(reply, dict):
        return {"map": [[typed(k), typed(v)] for k, v in reply.items()]}
    return reply  # int, bool, None


def encode(argv):
    parts = [b"*%d\r\n" % len(argv)]
    for a in argv:
        data = a if isinstance(a, bytes) else str(a).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


def pipeline(client, commands):
    """Sends every argv in `commands` and returns their replies, typed, in order."""
    out = []
    for start in range(0, len(commands), PIPELINE):
        batch = commands[start:start + PIPELINE]
        client.sock.sendall(b"".join(encode(a) for a in batch))
        out.extend(typed(client._reply()) for _ in batch)
    return out


def replay(client, v, key=None):
    """Runs the key's command log; returns the indices whose reply differs from RedisBloom's."""
    got = pipeline(client, [argv_of(c, key) for c in v.commands])
    return [i for i, c in enumerate(v.commands) if got[i] != c["reply"]]


def probe_answers(client, key, v, exists_and_count=True):
    """(exists, mexists, count) answers of every probe, pipelined."""
    items = v.items
    mexists_commands = [[b"CF.MEXISTS", key, *items[i:i + BATCH]]
                        for i in range(0, len(items), BATCH)]
    mexists = [a for reply in pipeline(client, mexists_commands) for a in reply]
    if not exists_and_count:
        return None, mexists, None
    exists = pipeline(client, [[b"CF.EXISTS", key, item] for item in items])
    count = pipeline(client, [[b"CF.COUNT", key, item] for item in items])
    return exists, mexists, count


def check_probes(client, key, v, exists_and_count=True):
    exists, mexists, count = probe_answers(client, key, v, exists_and_count)
    want_mexists = [p["mexists"] for p in v.probes]
    wrong = [i for i in range(len(want_mexists)) if mexists[i] != want_mexists[i]]
    assert not wrong, f"{v.key}: {len(wrong)} CF.MEXISTS answers differ, first {wrong[0]}"
    if exists_and_count:
        assert exists == [p["exists"] for p in v.probes], f"{v.key}: CF.EXISTS"
        assert count == [p["count"] for p in v.probes], f"{v.key}: CF.COUNT"


def scandump(client, key):
    """The (iterator, data) pairs CF.SCANDUMP gives, up to [0, nil] excluded."""
    chunks, iterator = [], 0
    while True:
        iterator, data = client.call("CF.SCANDUMP", key, iterator)
        if iterator == 0:
            assert data is None
            return chunks
        chunks.append((iterator, data))


def check_state(client, key, v):
    """CF.INFO (typed, wire order), CF.DEBUG, DUMP bytes and the SCANDUMP sequence."""
    assert typed(client.call("CF.INFO", key)) == v.final["cf_info_reply"], v.key
    assert client.call("CF.DEBUG", key) == v.final["cf_debug"].encode(), v.key
    assert client.call("TYPE", key) == "MBbloomCF", v.key
    assert client.call("DUMP", key) == v.dump, f"{v.key}: DUMP differs from RedisBloom's"
    assert scandump(client, key) == v.chunks, f"{v.key}: CF.SCANDUMP differs"
    usage = client.call("MEMORY", "USAGE", key)
    assert usage <= v.final["memory_usage"], f"{v.key}: MEMORY USAGE {usage}"


def load_chunks(client, key, v):
    for iterator, data in v.chunks:
        assert client.call("CF.LOADCHUNK", key, iterator, data) == "OK", v.key


def connect(server, protocol=2):
    return RespClient(server.port, protocol=protocol)
