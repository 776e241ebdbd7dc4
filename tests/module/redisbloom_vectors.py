"""RedisBloom's BF vectors (tests/data/redisbloom/README.md: made with the real RedisBloom) and
the checks that a key answers as RedisBloom answered. The directory is BLOOMKIT_REDISBLOOM_VECTORS
when set (hidden tests use other vectors of the same schema), tests/data/redisbloom otherwise."""

import functools
import json
import os
import shutil
from pathlib import Path

import pytest

BATCH = 1000


def find_vectors(variable, name, what):
    """A vector set's directory: $variable when set, tests/data/<name> otherwise. Skips the test
    when it holds no manifest.json."""
    given = os.environ.get(variable)
    path = Path(given) if given else Path(__file__).resolve().parents[1] / "data" / name
    if not (path / "manifest.json").exists():
        pytest.skip(f"no {what} at {path}")
    return path


def vectors_dir():
    return find_vectors("BLOOMKIT_REDISBLOOM_VECTORS", "redisbloom", "RedisBloom vectors")


class Vector:
    """One key's file (keys/<name>.json), its byte strings decoded."""

    def __init__(self, data):
        self.data = data
        self.key = data["key"]
        self.items = [bytes.fromhex(h) for h in data["items_hex"]]
        self.probes = data["probes"]
        self.absent = [bytes.fromhex(h) for h in self.probes["absent_hex"]]
        self.dump = bytes.fromhex(data["dump_hex"])
        # (iter_out, data) of every BF.SCANDUMP reply but the last (0, "").
        self.chunks = [(c["iter_out"], bytes.fromhex(c["data_hex"]))
                       for c in data["scandump"] if c["iter_out"] != 0]

    def expected(self):
        """RedisBloom's answers, in the order of self.items + self.absent."""
        return [int(c) for c in self.probes["added_answers"] + self.probes["absent_answers"]]


@functools.lru_cache(maxsize=1)
def vectors():
    return [Vector(json.loads(p.read_text()))
            for p in sorted((vectors_dir() / "keys").glob("*.json"))]


def rdb_facts():
    return json.loads((vectors_dir() / "rdb.json").read_text())


def copy_rdb(directory):
    """Puts the vectors' dump.rdb where a server started in `directory` loads it."""
    shutil.copy(vectors_dir() / "dump.rdb", Path(directory) / "dump.rdb")


def answers(r, key, items):
    """BF.MEXISTS answers for items, in batches, pipelined."""
    pipe = r.pipeline(transaction=False)
    for start in range(0, len(items), BATCH):
        pipe.execute_command("BF.MEXISTS", key, *items[start:start + BATCH])
    out = []
    for reply in pipe.execute():
        out.extend(int(a) for a in reply)
    return out


def info(r, key):
    """BF.INFO as a name -> value dict (RESP2 nil as None)."""
    reply = r.execute_command("BF.INFO", key)
    return {reply[i].decode(): reply[i + 1] for i in range(0, len(reply), 2)}


def info_single(r, key):
    out = {}
    for field in ("CAPACITY", "SIZE", "FILTERS", "ITEMS", "EXPANSION"):
        out[field] = r.execute_command("BF.INFO", key, field)[0]
    return out


def scandump(r, key):
    """The (iterator, data) pairs BF.SCANDUMP gives, up to (0, "") excluded."""
    chunks, iterator = [], 0
    while True:
        iterator, data = r.execute_command("BF.SCANDUMP", key, iterator)
        if iterator == 0:
            assert data == b""
            return chunks
        chunks.append((iterator, data))


def check_answers(r, key, v):
    """Every probe answer, BF.INFO (both forms), BF.CARD and BF.DEBUG as RedisBloom's."""
    got = answers(r, key, v.items + v.absent)
    want = v.expected()
    wrong = [i for i in range(len(want)) if got[i] != want[i]]
    assert not wrong, f"{v.key}: {len(wrong)} answers differ from RedisBloom's, first at {wrong[0]}"
    assert info(r, key) == v.data["info"], v.key
    assert info_single(r, key) == v.data["info_single"], v.key
    assert r.execute_command("BF.CARD", key) == v.data["card"], v.key
    assert [line.decode() for line in r.execute_command("BF.DEBUG", key)] == v.data["debug"], v.key


def check_bytes(r, key, v):
    """DUMP and the BF.SCANDUMP sequence byte for byte as RedisBloom's."""
    assert r.dump(key) == v.dump, f"{v.key}: DUMP differs from RedisBloom's"
    assert scandump(r, key) == v.chunks, f"{v.key}: BF.SCANDUMP differs from RedisBloom's"


def load_chunks(r, key, v):
    for iterator, data in v.chunks:
        assert r.execute_command("BF.LOADCHUNK", key, iterator, data) == b"OK"
