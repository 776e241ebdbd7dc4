"""`bloomkit redis pull` of a module key and `bloomkit redis push --module`: every kind the
module holds goes to a file of its kind and back, keys answer the same on both sides, and the
refusals (existing target, no module, a kind the module lacks, not a module key) are clear."""

import os

import pytest

from conftest import raw, url

KEYS = [f"key{i}" for i in range(3000)]
ABSENT = [f"absent{i}" for i in range(3000)]


# (how to make the key, the kind of the file pull writes)
KINDS = [
    (("BK.RESERVE", "f", 500, 0.01, "KIND", "scalable"), "scalable"),  # grows past 500 keys
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "classic"), "classic"),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "blocked"), "blocked"),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "counting"), "counting"),
    (("BK.RESERVE", "f", 5000, 0.01, "KIND", "window", "WINDOW", "100000", "SLICES", 4),
     "window"),
]


# Files of every kind of bloomkit's own go into module keys and answer there as in the file:
# a chain of classic filters and the grouped window too (`create --kind scalable | window`).
@pytest.mark.parametrize("kind,options", [("scalable", ()), ("window", ("--window", "1h"))])
def test_push_of_every_native_kind(r, shared_server, bloomkit, tmp_path, kind, options):
    path = tmp_path / "f.bloom"
    bloomkit("create", "--kind", kind, *options, "--capacity", 5000, "--fpp", 0.01, path)
    bloomkit("add", path, stdin="\n".join(KEYS) + "\n")
    out = bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "g").stdout
    assert out.startswith(f"pushed {path} to g: module key, {kind}, ")
    assert r.bf().mexists("g", *KEYS) == [1] * len(KEYS)
    back = tmp_path / "back.bloom"
    bloomkit("redis", "--url", url(shared_server), "pull", "g", back)
    assert back.read_bytes() == path.read_bytes()


@pytest.mark.parametrize("reserve,kind", KINDS, ids=[k for _, k in KINDS])
def test_pull_then_push_round_trips_every_kind(r, shared_server, bloomkit, tmp_path, reserve,
                                               kind):
    r.execute_command(*reserve)
    r.bf().madd("f", *KEYS)
    info = raw(r, "BF.INFO", "f")
    dump = [r.bf().scandump("f", 0)]
    path = tmp_path / "f.bloom"

    out = bloomkit("redis", "--url", url(shared_server), "pull", "f", path).stdout
    filters = raw(r, "BF.INFO", "f", "FILTERS")[0]
    assert out.startswith(f"pulled f to {path}: module key, {kind}, ")
    assert f" {filters} filters, " in out
    # The file is bloomkit's own: info names the kind, query answers every key added.
    assert bloomkit("info", "--json", path).stdout.count(f'"kind": "{kind}"') == 1
    present = bloomkit("query", "--count", path, stdin="\n".join(KEYS) + "\n", check=False)
    assert present.stdout.startswith(f"present={len(KEYS)} absent=0"), present.stdout

    out = bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "g").stdout
    assert out.startswith(f"pushed {path} to g: module key, {kind}, ")
    assert r.type("g") == b"bloomkit1"
    assert r.bf().mexists("g", *KEYS) == [1] * len(KEYS)
    assert r.bf().mexists("g", *ABSENT) == r.bf().mexists("f", *ABSENT)
    assert raw(r, "BF.INFO", "g") == info
    # The same image as the key it was pulled from, but for NONSCALING, which files do not
    # record (the module's flags, byte 8 of the image's prefix; the file's bytes follow it).
    pushed = r.bf().scandump("g", 0)[1]
    assert pushed[8] == 0
    assert pushed[:8] + pushed[9:] == dump[0][1][:8] + dump[0][1][9:]
    for iterator in range(1, 2):
        assert r.bf().scandump("g", iterator) == r.bf().scandump("f", iterator)


def test_pull_of_a_large_filter_in_several_chunks(r, shared_server, bloomkit, tmp_path):
    r.execute_command("BK.RESERVE", "big", 20_000_000, 0.01, "KIND", "blocked")
    r.bf().madd("big", *KEYS)
    path = tmp_path / "big.bloom"
    bloomkit("redis", "--url", url(shared_server), "pull", "big", path)
    assert os.path.getsize(path) > 16 << 20  # more than two 8 MiB chunks
    bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "copy")
    assert r.bf().mexists("copy", *KEYS) == [1] * len(KEYS)
    assert raw(r, "BF.INFO", "copy") == raw(r, "BF.INFO", "big")


def test_push_refusals(r, shared_server, bloomkit, tmp_path):
    r.bf().madd("f", *KEYS[:10])
    path = tmp_path / "f.bloom"
    bloomkit("redis", "--url", url(shared_server), "pull", "f", path)

    p = bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "f", check=False)
    assert p.returncode == 1
    assert p.stderr == "bloomkit: error: module key 'f' exists\n"
    r.set("s", "x")
    p = bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "s", check=False)
    assert p.returncode == 1 and "module key 's' exists" in p.stderr
    assert r.get("s") == b"x"

    # A peer's scheme is not a kind the module holds (the module holds every kind of bloomkit's
    # own: a chain of classic filters and the grouped window went in before this file did).
    peer = os.path.join(os.path.dirname(__file__), "..", "data", "golden",
                        "classic_guava_mitz64_long_flag.bloom")
    p = bloomkit("redis", "--url", url(shared_server), "push", "--module", peer, "c",
                 check=False)
    assert p.returncode == 1
    assert "guava-murmur128-mitz-64" in p.stderr and "the module cannot hold it" in p.stderr
    assert r.exists("c") == 0

    p = bloomkit("redis", "--url", url(shared_server), "push", "--module", tmp_path / "none",
                 "n", check=False)
    assert p.returncode == 1 and r.exists("n") == 0


def test_pull_refusals(r, shared_server, bloomkit, tmp_path):
    path = tmp_path / "x.bloom"
    # Not a module key: the native layout answers as before (no such filter).
    p = bloomkit("redis", "--url", url(shared_server), "pull", "nothing", path, check=False)
    assert p.returncode == 1 and not path.exists()
    # A key still being loaded is refused, and no file is written.
    r.execute_command("BK.RESERVE", "f", 100, 0.01, "KIND", "scalable")
    r.bf().madd("f", *KEYS[:10])
    _, header = r.bf().scandump("f", 0)
    r.bf().loadchunk("loading", 1, header)
    p = bloomkit("redis", "--url", url(shared_server), "pull", "loading", path, check=False)
    assert p.returncode == 1 and "being loaded" in p.stderr, p.stderr
    assert not path.exists()


def test_push_without_the_module_is_refused(bloomkit, tmp_path):
    from conftest import ModuleServer
    directory = tmp_path / "plain"
    directory.mkdir()

    class PlainServer(ModuleServer):
        def command_line(self):
            return [a for a in super().command_line()
                    if a not in ("--loadmodule", os.environ.get("BLOOMKIT_REDIS_MODULE"))]

    server = PlainServer(directory)
    try:
        path = tmp_path / "f.bloom"
        bloomkit("create", "--kind", "blocked", "--capacity", 100, "--fpp", 0.01, path)
        p = bloomkit("redis", "--url", url(server), "push", "--module", path, "f", check=False)
        assert p.returncode == 1
        assert "has no bloomkit module" in p.stderr
        assert server.client().exists("f") == 0
    finally:
        server.kill()


@pytest.mark.parametrize("reserve", [("BF.RESERVE", "f", 0.01, 500),
                                     ("BF.RESERVE", "f", 0.001, 5000, "NONSCALING")],
                         ids=["scaling", "NONSCALING"])
def test_pull_then_push_round_trips_a_bf_chain(r, shared_server, bloomkit, tmp_path, reserve):
    # BF.* keys (bkbloom--) pull into a redisbloom file of scheme redisbloom-xxh3 and push back.
    r.execute_command(*reserve)
    r.bf().madd("f", *KEYS)
    assert r.type("f") == b"bkbloom--"
    path = tmp_path / "f.bloom"
    out = bloomkit("redis", "--url", url(shared_server), "pull", "f", path).stdout
    assert out.startswith(f"pulled f to {path}: module key, redisbloom, "), out
    info = bloomkit("info", "--json", path).stdout
    assert '"kind": "redisbloom"' in info and "redisbloom-xxh3" in info, info
    present = bloomkit("query", "--count", path, stdin="\n".join(KEYS) + "\n", check=False)
    assert present.stdout.startswith(f"present={len(KEYS)} absent=0"), present.stdout
    bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "g")
    assert r.type("g") == b"bkbloom--"
    assert r.execute_command("DEBUG", "DIGEST-VALUE", "g") == \
        r.execute_command("DEBUG", "DIGEST-VALUE", "f")
    assert raw(r, "BF.INFO", "g") == raw(r, "BF.INFO", "f")


# BK.RESERVE KIND blocked sizes as `create --kind blocked` does, the layouts of high and low p
# included (docs/VARIANTS.md, "Layouts at every p"): the pulled file shows the layout and the
# bits `size` computes, answers every key, and pushes back to a key that answers the same.
@pytest.mark.parametrize("fpp,layout",
                         [(0.2, "one-line"), (0.01, "split-block"), (1e-6, "two-line")])
def test_blocked_keys_take_the_layout_of_their_p(r, shared_server, bloomkit, tmp_path, fpp,
                                                 layout):
    r.execute_command("BK.RESERVE", "lp", 20000, fpp, "KIND", "blocked")
    r.bf().madd("lp", *KEYS)
    path = tmp_path / "lp.bloom"
    bloomkit("redis", "--url", url(shared_server), "pull", "lp", path)
    info = bloomkit("info", path).stdout
    assert f"layout: {layout}\n" in info
    sized = bloomkit("size", "--kind", "blocked", "--capacity", 20000, "--fpp", fpp).stdout
    assert sized.split("bits: ")[1].split("\n")[0] == info.split("bits: ")[1].split("\n")[0]
    present = bloomkit("query", "--count", path, stdin="\n".join(KEYS) + "\n", check=False)
    assert present.stdout.startswith(f"present={len(KEYS)} absent=0"), present.stdout
    bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "lp2")
    assert r.bf().mexists("lp2", *KEYS) == [1] * len(KEYS)
    r.delete("lp", "lp2")


def test_push_of_a_spark_filter_answers_as_spark(r, shared_server, bloomkit, tmp_path):
    # A file imported from Spark (V2, seed 1234567) makes a module key of Spark's filter: BF.MEXISTS
    # answers every probe as Spark did, BF.ADD hashes with the seed, and pull gives back the filter
    # (exported: Spark's bytes). Spark's own file goes through import first.
    import json
    import pathlib
    root = pathlib.Path(os.environ.get("BLOOMKIT_SPARK_VECTORS") or (
        pathlib.Path(__file__).resolve().parents[1] / "data" / "spark"))
    manifest = json.loads((root / "v2_seed1234567_string_n100_p0.01.json").read_text())
    spark_file = root / manifest["serialized"]["file"]
    path = tmp_path / "s.bloom"
    bloomkit("import", spark_file, path, "--from", "spark")
    out = bloomkit("redis", "--url", url(shared_server), "push", "--module", path, "s").stdout
    assert out.startswith(f"pushed {path} to s: module key, classic, ")
    assert raw(r, "BK.INFO", "s")[3] == b"spark-v2"
    for group in manifest["probe_groups"]:
        keys = group["items"]["list"]
        trues = set(group.get("true_indexes", []))
        expected = [1 if group["all_true"] or i in trues else 0 for i in range(len(keys))]
        assert r.bf().mexists("s", *keys) == expected, group["name"]
    back = tmp_path / "back.bloom"
    bloomkit("redis", "--url", url(shared_server), "pull", "s", back)
    bloomkit("export", back, tmp_path / "back.bin", "--to", "spark")
    assert (tmp_path / "back.bin").read_bytes() == spark_file.read_bytes()
    p = bloomkit("redis", "--url", url(shared_server), "push", "--module", spark_file, "t",
                 check=False)
    assert p.returncode == 2 and "--from spark" in p.stderr and r.exists("t") == 0
    # BF.MADD sets Spark's own bits: an empty filter of the same header, filled with the items
    # Spark put by BF.MADD, exports as Spark's bytes.
    data = spark_file.read_bytes()
    header = len(manifest["serialized"]["header_hex"]) // 2
    (tmp_path / "empty.bin").write_bytes(data[:header] + bytes(len(data) - header))
    bloomkit("import", tmp_path / "empty.bin", tmp_path / "empty.bloom", "--from", "spark")
    bloomkit("redis", "--url", url(shared_server), "push", "--module", tmp_path / "empty.bloom", "e")
    put = next(g for g in manifest["probe_groups"] if g["name"] == "put_items")["items"]["list"]
    assert len(put) == manifest["items_put"]
    added = r.bf().madd("e", *put)
    assert manifest["items_put"] - sum(added) == manifest["put_returned_false_count"]
    bloomkit("redis", "--url", url(shared_server), "pull", "e", tmp_path / "e.bloom")
    bloomkit("export", tmp_path / "e.bloom", tmp_path / "e.bin", "--to", "spark")
    assert (tmp_path / "e.bin").read_bytes() == data
