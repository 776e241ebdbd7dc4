"""RedisBloom's keys become bloomkit's (docs/REDIS.md, "RedisBloom's keys"): BK.CONVERT
turns a key of RedisBloom's type into one of bloomkit's in place, from its bits alone (its items
are not known), never losing an item: every probe answers as before, through SAVE and restart
too, and it keeps taking keys. `bloomkit redis convert` does the same from the CLI; `bloomkit
redis pull` of a RedisBloom key writes a file of the RedisBloom kind, and `redis push --module`
of that file makes RedisBloom's key again, byte for byte; adds to a loaded key match the CLI's
adds to its file."""

import pytest
import redis

from conftest import url
from redisbloom_vectors import answers, check_answers, check_bytes, vectors

ResponseError = redis.exceptions.ResponseError


def expected(v):
    return v.expected()


def test_convert_keeps_every_answer(server_factory):
    server = server_factory()
    r = server.client()
    for v in vectors():
        r.restore(v.key, 3_600_000, v.dump)
        assert r.execute_command("BK.CONVERT", v.key) == b"OK"
        assert r.type(v.key) == b"bloomkit1"
        assert 0 < r.pttl(v.key) <= 3_600_000  # the time to live stays
        assert answers(r, v.key, v.items + v.absent) == expected(v), v.key
        assert r.execute_command("BF.CARD", v.key) == v.data["card"], v.key
    assert r.save()
    server.restart()
    r = server.client()
    for v in vectors():
        assert r.type(v.key) == b"bloomkit1"
        assert answers(r, v.key, v.items + v.absent) == expected(v), v.key
    # It keeps taking keys, and holds each it took.
    v = vectors()[-1]
    items = [f"new:{i}".encode() for i in range(500)]
    if v.data["config"]["mode"] == "scaling":
        r.execute_command("BF.MADD", v.key, *items)
        assert answers(r, v.key, items) == [1] * len(items)


def test_convert_refusals(r):
    with pytest.raises(ResponseError, match="not found"):
        r.execute_command("BK.CONVERT", "missing")
    r.set("s", "x")
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        r.execute_command("BK.CONVERT", "s")
    r.execute_command("BF.RESERVE", "native", 0.01, 100)
    with pytest.raises(ResponseError, match="bloomkit's already"):
        r.execute_command("BK.CONVERT", "native")
    with pytest.raises(ResponseError):
        r.execute_command("BK.CONVERT")


def test_cli_convert_pull_and_push(r, shared_server, bloomkit, tmp_path):
    v = max(vectors(), key=lambda v: len(v.chunks))
    r.restore("rb", 0, v.dump)
    path = tmp_path / "rb.bloom"
    out = bloomkit("redis", "--url", url(shared_server), "pull", "rb", path).stdout
    assert out.startswith(f"pulled rb to {path}: RedisBloom key, redisbloom, "), out
    assert '"kind": "redisbloom"' in bloomkit("info", "--json", path).stdout
    # The file answers as RedisBloom did.
    items = [i for i in v.items if b"\n" not in i and b"\r" not in i and i.isascii()]
    present = bloomkit("query", "--count", path, stdin=b"\n".join(items).decode() + "\n",
                       check=False)
    assert present.stdout.startswith(f"present={len(items)} absent=0"), present.stdout
    # Pushed back it is RedisBloom's key again, with RedisBloom's bytes.
    out = bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "copy").stdout
    assert out.startswith(f"pushed {path} to copy: RedisBloom key, redisbloom, "), out
    assert r.type("copy") == b"MBbloom--"
    check_answers(r, "copy", v)
    check_bytes(r, "copy", v)
    # Converted in place from the CLI.
    out = bloomkit("redis", "--url", url(shared_server), "convert", "rb").stdout
    assert out.startswith("converted rb: "), out
    assert r.type("rb") == b"bloomkit1"
    assert answers(r, "rb", v.items + v.absent) == expected(v)
    failed = bloomkit("redis", "--url", url(shared_server), "convert", "rb", check=False)
    assert failed.returncode == 1 and "already" in failed.stderr
    # A missing key is an error, never an answer.
    for command in (("convert", "missing"), ("pull", "missing", tmp_path / "missing.bloom")):
        failed = bloomkit("redis", "--url", url(shared_server), *command, check=False)
        assert failed.returncode == 1 and "does not exist" in failed.stderr, failed.stderr
        assert not (tmp_path / "missing.bloom").exists()


def test_adds_after_loading_match_the_chain_in_process(r, shared_server, bloomkit, tmp_path):
    # The module's batched adds on a key RedisBloom made, against the CLI's adds to the same chain
    # in a file: the same keys new, the same count, the same bytes (growing a link on the way).
    v = max((v for v in vectors() if v.data["config"]["mode"] == "scaling"),
            key=lambda v: len(v.absent) - (v.data["info"]["Capacity"] - v.data["card"]))
    r.restore("k", 0, v.dump)
    before, after = tmp_path / "before.bloom", tmp_path / "after.bloom"
    bloomkit("redis", "--url", url(shared_server), "pull", "k", before)
    items = [i for i in v.absent if i and i.isascii() and i.decode().isprintable() and i.strip() == i]
    new = 0
    for start in range(0, len(items), 1000):
        new += sum(r.execute_command("BF.MADD", "k", *items[start:start + 1000]))
    assert r.execute_command("BF.CARD", "k") == v.data["card"] + new
    out = bloomkit("add", before, stdin=b"\n".join(items).decode() + "\n").stdout
    assert out == f"added {new} new of {len(items)} keys\n"
    bloomkit("redis", "--url", url(shared_server), "pull", "k", after)
    assert after.read_bytes() == before.read_bytes()
    assert r.execute_command("BF.INFO", "k", "FILTERS")[0] > v.data["info"]["Number of filters"]
