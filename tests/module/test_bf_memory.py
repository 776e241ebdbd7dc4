"""What BF.RESERVE / BF.ADD / BF.INSERT create costs against RedisBloom's (issue 29).

Those keys are RedisBloom's chain with bloomkit's hashing (type bkbloom--): RedisBloom's sizing
link for link, its 32-byte chain and 64-byte links, so MEMORY USAGE is never above RedisBloom's.
RedisBloom's figures: each vector key (tests/data/redisbloom, or BLOOMKIT_REDISBLOOM_VECTORS)
records MEMORY USAGE, BF.INFO Size and BF.DEBUG's bytes per link; elsewhere its formula: a link
of n keys at error e takes ceil(trunc(n * -ln e / ln^2 2) / 64) words, the first link of a chain
e = p / 2 (p when NONSCALING) and each next one n * EXPANSION keys at half the error, and BF.INFO
Size is 32 bytes of chain plus 64 per link plus the links' bytes. MEMORY USAGE is BF.INFO Size
plus Redis's cost of the key, as RedisBloom's."""

import json
import math

import pytest
import redis

from redisbloom_vectors import info, vectors_dir

ResponseError = redis.exceptions.ResponseError

LN2_SQUARED = 0.480453013918201  # RedisBloom's constant


def vector_files():
    files = sorted((vectors_dir() / "keys").glob("*.json"))
    if not files:
        pytest.skip(f"no RedisBloom vectors in {vectors_dir()}")
    return files


def redisbloom_link_bytes(n, error):
    bits = int(n * (-math.log(error) / LN2_SQUARED))
    return (bits + 63) // 64 * 8


def debug_links(lines):
    """BF.DEBUG's links: (capacity, bytes) of "bytes:<b> bits:<m> ... capacity:<n> ..."."""
    links = []
    for line in lines[1:]:
        if isinstance(line, bytes):
            line = line.decode()
        fields = dict(field.split(":", 1) for field in line.split())
        links.append((int(fields["capacity"]), int(fields["bytes"])))
    return links


def replay(r, vector):
    items = [bytes.fromhex(h) for h in vector["items_hex"]]
    for command in vector["commands"]:
        first, count = command["items"]
        try:
            r.execute_command(*command["argv"], *items[first:first + count])
        except ResponseError as e:
            # Other false positives than RedisBloom's: a NONSCALING key may fill sooner.
            assert "non scaling filter is full" in str(e), e


@pytest.mark.parametrize("path", vector_files(), ids=lambda p: p.stem)
def test_vector_key_costs_at_most_redisbloom(r, path):
    vector = json.loads(path.read_text())
    key = vector["key"]  # the same name: the same cost of the key in Redis
    replay(r, vector)
    assert r.type(key) == b"bkbloom--"
    usage = r.memory_usage(key)
    ours = info(r, key)
    # The bar: MEMORY USAGE at most RedisBloom's recorded figure.
    assert usage <= vector["memory_usage"], (usage, vector["memory_usage"])
    assert ours["Size"] <= vector["info"]["Size"]
    # MEMORY USAGE = BF.INFO Size + the key's own cost, as RedisBloom's figures relate.
    assert usage - ours["Size"] == vector["memory_usage"] - vector["info"]["Size"]
    # RedisBloom's links, sized alike: every link both chains hold is as large.
    theirs = debug_links(vector["debug"])
    mine = debug_links(r.execute_command("BF.DEBUG", key))
    assert mine[:len(theirs)] == theirs[:len(mine)]
    assert ours["Size"] == 32 + 64 * len(mine) + sum(b for _, b in mine)


GRID_P = [10.0 ** -e for e in range(1, 10)]


@pytest.mark.parametrize("capacity", [1000, 100_000])
@pytest.mark.parametrize("nonscaling", [True, False], ids=["NONSCALING", "scaling"])
def test_reserve_costs_at_most_redisbloom_at_every_p(r, capacity, nonscaling):
    key_costs = set()
    for p in GRID_P:
        key = f"grid:{p:.0e}"
        r.execute_command("BF.RESERVE", key, repr(p), capacity,
                          *(["NONSCALING"] if nonscaling else []))
        ours = info(r, key)
        error = p if nonscaling else min(p, 0.25) / 2
        redisbloom_size = 32 + 64 + redisbloom_link_bytes(capacity, error)
        assert ours["Size"] <= redisbloom_size, (p, ours["Size"], redisbloom_size)
        assert ours["Size"] == redisbloom_size  # the same sizing: equal, not merely below
        key_costs.add(r.memory_usage(key) - ours["Size"])
    assert len(key_costs) == 1  # keys of one name length: MEMORY USAGE - Size is the key's cost


@pytest.mark.parametrize("p", [1e-2, 1e-4, 1e-6])
def test_a_growing_chain_costs_redisbloom_bytes_per_link(r, p):
    # 3500 keys into 1000: links of 1000, 2000 and 4000 keys at p/2, p/4, p/8 in both modules.
    r.execute_command("BF.RESERVE", "chain", p, 1000)
    keys = [f"key:{i}" for i in range(3500)]
    for start in range(0, len(keys), 500):
        r.execute_command("BF.MADD", "chain", *keys[start:start + 500])
    ours = info(r, "chain")
    assert ours["Number of filters"] == 3
    links = [redisbloom_link_bytes(1000 << i, p / 2 ** (i + 1)) for i in range(3)]
    assert ours["Size"] == 32 + 64 * 3 + sum(links)
    assert r.execute_command("BF.MEXISTS", "chain", *keys) == [1] * len(keys)


def absent_positives(r, key, count=40_000):
    absent = [f"absent:{i}" for i in range(count)]
    found = 0
    for start in range(0, count, 2000):
        found += sum(r.execute_command("BF.MEXISTS", key, *absent[start:start + 2000]))
    return found / count


@pytest.mark.parametrize("expansion", [0, 1, 2, 1024, 1025, 32768])
def test_every_expansion_redisbloom_accepts_creates_and_grows_within_its_bound(r, expansion):
    p, capacity = 0.01, 200
    # RedisBloom takes EXPANSION 0..32768: a refusal fails the test.
    r.execute_command("BF.RESERVE", "x", p, capacity, "EXPANSION", expansion)
    keys = [f"key:{i}" for i in range(5 * capacity)]
    answered = []
    for start in range(0, len(keys), 100):
        answered += r.execute_command("BF.MADD", "x", *keys[start:start + 100])
        if any(isinstance(a, ResponseError) for a in answered):
            break
    refused = [a for a in answered if isinstance(a, ResponseError)]
    info_x = r.bf().info("x")
    if expansion == 0:
        # A chain whose next link would hold no key does not grow: full at its capacity.
        assert len(refused) == 1 and "non scaling filter is full" in str(refused[0])
        keys = keys[:answered.index(refused[0])]
        assert info_x.filterNum == 1 and info_x.insertedNum == capacity
    else:
        assert not refused
        assert info_x.expansionRate == expansion
        room, link, links = capacity, capacity, 1
        while room < info_x.insertedNum:
            link *= expansion
            room, links = room + link, links + 1
        assert info_x.filterNum == links and info_x.capacity == room
        assert links >= (5 if expansion == 1 else 2)
    assert r.execute_command("BF.MEXISTS", "x", *keys) == [1] * len(keys)  # no false negative
    sigma = math.sqrt(p * (1 - p) / 40_000)
    assert absent_positives(r, "x") <= p + 5 * sigma
