"""RedisWindowFilter against a real redis-server, checked against the CLI's `bloomkit redis`
on the same keys and clock (--now)."""

import json
import time

import numpy as np
import pytest

import bloomkit

pytestmark = pytest.mark.skipif(not bloomkit.has_redis, reason="built without bloomkit::redis")
KEYS = [f"https://example.com/{i}" for i in range(5000)]
OTHERS = [f"https://other.example/{i}" for i in range(5000)]
WINDOW, SLICES = 3600, 4
CAPACITY = 4 * len(KEYS)  # keys per window: a slice is sized for CAPACITY / SLICES
# Slices expire by EXPIREAT from their own times: a clock far from the server's would have them
# expire at once, so the tests' clock is now, fixed, moved to the middle of its slice: within the
# skew (10 s) of a slice's end the next slice is live too, and listed first (a run that started
# 5 s before a quarter hour failed on it).
SLICE_SECONDS = WINDOW // SLICES
NOW = int(time.time()) // SLICE_SECONDS * SLICE_SECONDS + SLICE_SECONDS // 2


def create(url, name, **kw):
    f = bloomkit.RedisWindowFilter.create(url, name, CAPACITY, 0.01, window=WINDOW, slices=SLICES,
                                          **kw)
    f.set_now(NOW)
    return f


def stdin(keys):
    return "".join(k + "\n" for k in keys).encode()


def test_add_query_and_forget(redis_server):
    f = create(redis_server.url, "w")
    assert f.add(KEYS[0]) and not f.add(KEYS[0])
    assert KEYS[0] in f and f.test_and_add(KEYS[0])
    assert len(KEYS) - 50 <= f.add_many(KEYS) <= len(KEYS) - 1  # "new" may be a false positive
    assert f.contains_many(KEYS) == len(KEYS)
    out = np.zeros(len(KEYS), dtype=bool)
    assert f.contains_many(iter(KEYS), out=out) == len(KEYS) and out.all()
    assert f.contains_many(OTHERS) < 200  # p = 0.01 over the live slices
    ints = np.arange(1, 2001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    assert f.add_many(ints) >= len(ints) - 50
    assert f.contains_many(ints) == len(ints)
    assert f.contains_many([int(i) for i in ints[:100]]) == 100

    g = bloomkit.RedisWindowFilter.open(redis_server.url, "w")
    assert (g.window, g.slices, g.skew, g.capacity) == (WINDOW, SLICES, 10, CAPACITY)
    g.set_now(NOW + WINDOW - 1)  # still within the window
    assert g.now == NOW + WINDOW - 1 and g.contains_many(KEYS) == len(KEYS)
    g.set_now(NOW + WINDOW + WINDOW // SLICES + 10 + 1)  # past W + W/S + skew: forgotten
    assert g.contains_many(KEYS) == 0
    assert g.current_slice == (NOW + WINDOW + WINDOW // SLICES + 11) * SLICES // WINDOW
    assert g.current_slice in g.live_slices()
    assert bloomkit.RedisWindowFilter.is_window(redis_server.url, "w")
    assert f.drop() >= 2
    with pytest.raises(bloomkit.NotFoundError):
        g.contains(KEYS[0])
    assert redis_server.command("KEYS", "w:*") == []


def test_record_many_sets_the_same_bits_and_reads_nothing(redis_server):
    f = create(redis_server.url, "rec")
    g = create(redis_server.url, "ins")
    assert f.record_many(KEYS) is None
    g.add_many(KEYS)
    assert f.contains_many(KEYS) == len(KEYS)
    assert not f.add(KEYS[3])
    names = [k.decode() if isinstance(k, bytes) else k for k in redis_server.command("KEYS", "rec:*")]
    slice_keys = sorted(k for k in names if k != "rec:meta")
    assert slice_keys
    for k in slice_keys:
        other = "ins" + k[len("rec"):]
        assert redis_server.command("GET", k) == redis_server.command("GET", other)
    before = redis_server.command("INFO", "COMMANDSTATS")
    f.record_many(OTHERS[:100])
    after = redis_server.command("INFO", "COMMANDSTATS")

    def calls(text, cmd):
        text = text.decode() if isinstance(text, bytes) else text
        at = text.find(f"cmdstat_{cmd}:calls=")
        return 0 if at < 0 else int(text[at:].split("=", 1)[1].split(",", 1)[0])
    assert calls(after, "bitfield_ro") == calls(before, "bitfield_ro")
    assert calls(after, "bitfield") > calls(before, "bitfield")
    with pytest.raises(TypeError):
        f.record_many(3.5)


def test_same_bits_and_answers_as_cli(redis_server, cli):
    url = redis_server.url
    f = create(url, "wpy")
    cli("redis", "--url", url, "create", "wcli", "--window", f"{WINDOW}s", "--slices", SLICES,
        "--capacity", CAPACITY, "--fpp", 0.01)
    added = f.add_many(KEYS)
    r = cli("redis", "--url", url, "add", "wcli", "--now", NOW, stdin=stdin(KEYS))
    # New keys as the CLI counts them on an empty filter (a false positive is not new to either).
    assert f"added {added} new of {len(KEYS)} keys".encode() in r.stdout
    shards = sorted(k.decode().split(":", 1)[1] for k in redis_server.command("KEYS", "wpy:*:*"))
    assert shards == sorted(k.decode().split(":", 1)[1]
                            for k in redis_server.command("KEYS", "wcli:*:*"))
    assert shards  # the current slice
    for s in shards:
        assert redis_server.command("GET", f"wpy:{s}") == redis_server.command("GET", f"wcli:{s}")

    # Answers: the CLI's on the Python-filled filter and Python's on the CLI-filled one.
    q = cli("redis", "--url", url, "query", "wpy", "--now", NOW, stdin=stdin(KEYS + OTHERS))
    cli_answers = [line.split(b"\t")[0] == b"1" for line in q.stdout.splitlines()]
    out = np.zeros(len(KEYS) + len(OTHERS), dtype=bool)
    g = bloomkit.RedisWindowFilter.open(url, "wcli")
    g.set_now(NOW)
    g.contains_many(KEYS + OTHERS, out=out)
    assert cli_answers == out.tolist() and all(cli_answers[:len(KEYS)])

    info = f.info()
    cli_info = json.loads(cli("redis", "--url", url, "info", "wpy", "--json", "--now", NOW).stdout)
    slice_list = info.pop("slice_list")
    info.pop("slice_ttl"), cli_info.pop("slice_ttl")  # a second may pass between the two
    assert info == cli_info
    assert len(slice_list) == info["live_slices"]
    assert slice_list[0]["exists"] and slice_list[0]["slice"] == info["current_slice"]
    f.drop(), g.drop()


def test_bits_format_and_skew_as_the_cli_makes_them(redis_server, cli):
    url = redis_server.url
    f = create(url, "py", slice_format="bits", skew=60)
    assert (f.slice_format, f.skew) == ("bits", 60)
    assert redis_server.command("HGET", "py:meta", "format_version") == b"1"
    cli("redis", "--url", url, "create", "cl", "--window", f"{WINDOW}s", "--slices", SLICES,
        "--capacity", CAPACITY, "--fpp", 0.01, "--slice-format", "bits", "--skew", 60)
    cli("redis", "--url", url, "add", "cl", "--now", NOW, stdin=stdin(KEYS[:500]))
    assert f.add_many(KEYS[:500]) >= 490
    shards = sorted(k.decode().split(":", 1)[1] for k in redis_server.command("KEYS", "py:*:*"))
    assert shards and shards == sorted(k.decode().split(":", 1)[1]
                                       for k in redis_server.command("KEYS", "cl:*:*"))
    for s in shards:
        assert redis_server.command("GET", f"py:{s}") == redis_server.command("GET", f"cl:{s}")
    g = bloomkit.RedisWindowFilter.open(url, "py")
    # Their slice is past W + W/S from the start of the next one; the skew of 60 (not 10) keeps
    # them 60 s more.
    forgotten = (NOW * SLICES // WINDOW + SLICES + 1) * WINDOW // SLICES + 60
    g.set_now(forgotten - 1)
    assert g.contains_many(KEYS[:500]) == 500
    g.set_now(forgotten + 1)
    assert g.contains_many(KEYS[:500]) == 0
    assert create(url, "w2").slice_format == "words"
    with pytest.raises(bloomkit.InvalidArgumentError, match="slice_format 'bytes'"):
        create(url, "bad", slice_format="bytes")
    f.drop(), bloomkit.RedisWindowFilter.open(url, "cl").drop()


def test_url_from_environment(redis_server, monkeypatch):
    monkeypatch.setenv("BLOOMKIT_REDIS_URL", redis_server.url)
    f = create(None, "env")
    assert f.add("x") and "x" in bloomkit.RedisWindowFilter.open(None, "env")
    f.drop()


def test_errors(redis_server, cli):
    url = redis_server.url
    with pytest.raises(bloomkit.NotFoundError):
        bloomkit.RedisWindowFilter.open(url, "nope")
    for bad in ({"window": 0}, {"window": WINDOW, "slices": 0}, {"window": WINDOW, "slices": 256},
                {"window": WINDOW, "skew": 3601}):
        with pytest.raises(bloomkit.InvalidArgumentError):
            bloomkit.RedisWindowFilter.create(url, "bad", 5000, 0.01, **bad)
    with pytest.raises(bloomkit.InvalidArgumentError):
        bloomkit.RedisWindowFilter.create(url, "bad", 5000, 1.5, window=WINDOW)
    with pytest.raises(TypeError):  # the window is a keyword argument
        bloomkit.RedisWindowFilter.create(url, "bad", 5000, 0.01, WINDOW)

    create(url, "e")
    with pytest.raises(bloomkit.AlreadyExistsError) as e:
        bloomkit.RedisWindowFilter.create(url, "e", CAPACITY, 0.01, window=2 * WINDOW,
                                          slices=SLICES)
    p = cli("redis", "--url", url, "create", "e", "--window", f"{2 * WINDOW}s", "--slices",
            SLICES, "--capacity", CAPACITY, "--fpp", 0.01, check=False)
    assert p.returncode != 0 and str(e.value) in p.stderr.decode()

    bloomkit.RedisFilter.create(url, "native", 100, 0.01)
    with pytest.raises(bloomkit.IncompatibleError):
        bloomkit.RedisWindowFilter.open(url, "native")
    assert not bloomkit.RedisWindowFilter.is_window(url, "native")
    with pytest.raises(bloomkit.UnsupportedError):
        bloomkit.RedisFilter.open(url, "e")
    redis_server.command("SET", "str:meta", "x")  # a meta that is not a hash
    with pytest.raises(bloomkit.WrongTypeError):
        bloomkit.RedisWindowFilter.open(url, "str")

    f = bloomkit.RedisWindowFilter.open(url, "e")
    with pytest.raises(TypeError):
        f.add(1.5)
    f.close()
    with pytest.raises(bloomkit.InvalidArgumentError):
        f.add("x")


def test_add_many_out_answers_per_key_as_add_does(redis_server):
    # "Which of these URLs were not seen within the window", in one round trip per batch.
    batched = create(redis_server.url, "answers-batched")
    looped = create(redis_server.url, "answers-looped")
    first = KEYS[:1500] + KEYS[:200]
    expected = [looped.add(k) for k in first]
    out = np.zeros(len(first), dtype=bool)
    assert batched.add_many(first, out=out) == sum(expected)
    assert out.tolist() == expected and not any(out[1500:])
    # A slice later, keys of the older slice are not new; others are.
    for f in (batched, looped):
        f.set_now(NOW + WINDOW // SLICES)
    later = KEYS[1000:2500]
    expected = [looped.add(k) for k in later]
    out = bytearray(len(later))
    assert batched.add_many(iter(later), out=out) == sum(expected)
    assert [bool(b) for b in out] == expected
    assert not any(out[:500])


def test_an_insert_older_than_the_window_is_refused_not_dropped(redis_server):
    f = create(redis_server.url, "late")
    f.add("kept")
    old = NOW - 2 * WINDOW  # its slice expired by the system clock an hour ago
    f.set_now(old)
    with pytest.raises(ValueError, match=f"time {old} is older than the window.*not stored"):
        f.add("late-event")
    with pytest.raises(ValueError, match=f"time {old} is older than the window"):
        f.add_many(["a", "b"])
    with pytest.raises(ValueError, match="looks like milliseconds"):
        f.set_now(NOW * 1000)
    f.set_now(NOW - WINDOW // 2)  # a backfill into a live slice is stored
    assert f.add("half-a-window-late") and "half-a-window-late" in f
    f.set_now(NOW)
    assert "kept" in f and "half-a-window-late" in f
