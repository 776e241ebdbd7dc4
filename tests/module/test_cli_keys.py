"""`bloomkit redis add | query | info` on keys of the module's type: the CLI reaches module
filters (the module's windows included) as it reaches the client-side layouts, with the same
output lines, and refuses what does not apply to them."""

import pytest

from conftest import url

KEYS = [f"https://example.com/{i}" for i in range(5000)]


def lines(keys):
    return "".join(k + "\n" for k in keys)


@pytest.mark.parametrize("reserve", [
    ("BF.RESERVE", "m", 0.01, 1000),
    # A window's slice holds capacity / S keys at its rate: all of KEYS go into one slice here.
    ("BK.RESERVE", "m", 40000, 0.01, "KIND", "window", "WINDOW", "7d", "SLICES", 4),
    ("BK.RESERVE", "m", 10000, 0.01, "KIND", "counting"),
], ids=["scalable", "window", "counting"])
def test_add_query_info_on_a_module_key(r, shared_server, bloomkit, reserve):
    r.execute_command(*reserve)
    u = url(shared_server)
    assert bloomkit("redis", "--url", u, "add", "m", "a", "b").stdout == "added 2 new of 2 keys\n"
    # More than one command's worth of keys (1000 per BF.INSERT), in one round trip.
    out = bloomkit("redis", "--url", u, "add", "m", stdin=lines(KEYS)).stdout
    assert out.startswith("added ") and out.endswith(f" new of {len(KEYS)} keys\n")
    assert int(out.split()[1]) >= 0.97 * len(KEYS)  # a false positive is not new: p = 0.01
    # What the CLI added, the module's own commands find, and the reverse.
    assert r.bf().mexists("m", *KEYS) == [1] * len(KEYS)
    r.bf().madd("m", "c")
    probe = ["a", "c"] + [f"absent-{i}" for i in range(2000)]
    q = bloomkit("redis", "--url", u, "query", "m", stdin=lines(probe))
    expected = r.bf().mexists("m", *probe)
    assert q.stdout == "".join(f"{e}\t{k}\n" for e, k in zip(expected, probe))
    assert expected[:2] == [1, 1] and sum(expected[2:]) < 80  # p = 0.01 over 2000 absent keys
    q = bloomkit("redis", "--url", u, "query", "m", "--count", stdin=lines(KEYS))
    assert q.stdout == f"present={len(KEYS)} absent=0\n"
    info = bloomkit("redis", "--url", u, "info", "m").stdout
    assert info.startswith(f"name: m\nurl: {u}\nlayout: module\nkind: ")
    info = bloomkit("redis", "--url", u, "info", "m", "--json").stdout
    assert '"layout": "module"' in info and '"inserted": ' in info


def test_print_new_on_a_module_window(r, shared_server, bloomkit):
    r.execute_command("BK.RESERVE", "w", 1000, 0.01, "KIND", "window", "WINDOW", "7d")
    u = url(shared_server)
    p = bloomkit("redis", "--url", u, "add", "w", "--print-new", stdin="u1\nu2\nu1\n")
    assert (p.stdout, p.stderr) == ("u1\nu2\n", "added 2 new of 3 keys\n")
    p = bloomkit("redis", "--url", u, "add", "w", "--print-new", "u2", "u3")
    assert p.stdout == "u3\n"


def test_a_burst_into_a_module_window_warns(r, shared_server, bloomkit):
    # KIND window is the grouped window (as the CLI's --kind window): a slice past its share
    # (4000 / 4 = 1000 keys) grows overflow parts and keeps its FPP, so a burst warns only past
    # what they take (64 parts), as for a file; within it, it does not.
    r.execute_command("BK.RESERVE", "burst", 4000, 0.01, "KIND", "window", "WINDOW", "1h",
                      "SLICES", 4)
    u = url(shared_server)
    p = bloomkit("redis", "--url", u, "add", "burst", stdin=lines(KEYS[:4000]))
    assert p.stderr == ""
    assert r.bf().mexists("burst", *KEYS[:4000]) == [1] * 4000
    more = [f"burst{i}" for i in range(70_000)]
    p = bloomkit("redis", "--url", u, "add", "burst", stdin=lines(more))
    assert p.stderr.startswith("bloomkit: warning: redis module window 'burst' (a window of "
                               "capacity 4000) has a slice that holds about "), p.stderr
    assert "past its capacity 1000: its false-positive rate is now about " in p.stderr


def test_refusals_name_the_problem(r, shared_server, bloomkit):
    u = url(shared_server)
    r.execute_command("BK.RESERVE", "w", 1000, 0.01, "KIND", "window", "WINDOW", "7d")
    # The module's windows age by the server's clock: --now does not apply.
    p = bloomkit("redis", "--url", u, "add", "w", "a", "--now", 1700000000, check=False)
    assert p.returncode == 2
    assert "'w' is a module key, whose windows age by the server's clock" in p.stderr
    assert r.bf().exists("w", "a") == 0
    # A full NONSCALING filter: the keys before the refusal are in, exit 1 naming the key.
    r.execute_command("BF.RESERVE", "full", 0.01, 3, "NONSCALING")
    p = bloomkit("redis", "--url", u, "add", "full", "k1", "k2", "k3", "k4", "k5", check=False)
    assert p.returncode == 1
    assert p.stderr == ("bloomkit: error: module key 'full': ERR non scaling filter is full "
                        "(3 keys before it were added)\n")
    assert r.bf().mexists("full", "k1", "k2", "k3") == [1, 1, 1]
    # No key at all is still the native layout's message, and nothing is created.
    p = bloomkit("redis", "--url", u, "add", "none", "a", check=False)
    assert p.returncode == 1 and "filter 'none' does not exist" in p.stderr
    assert r.exists("none") == 0


def test_expire_and_drop_a_module_key(r, shared_server, bloomkit):
    u = url(shared_server)
    r.execute_command("BK.RESERVE", "w", 1000, 0.01, "KIND", "window", "WINDOW", "7d")
    p = bloomkit("redis", "--url", u, "expire", "w", 3600)
    assert p.stdout == "expire w: 1 keys expire in 3600 s\n"
    assert 3590 <= r.ttl("w") <= 3600
    assert bloomkit("redis", "--url", u, "drop", "w").stdout == "dropped w\n"
    assert r.exists("w") == 0
    # Gone: both are the native layout's "does not exist", exit 1.
    for args in (("drop", "w"), ("expire", "w", 60)):
        p = bloomkit("redis", "--url", u, *args, check=False)
        assert p.returncode == 1 and "filter 'w' does not exist" in p.stderr
