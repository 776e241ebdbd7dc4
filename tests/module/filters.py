"""Filters of every kind the module serves, filled through every write command, and a snapshot of
what a server answers about them: the persistence and replication tests compare snapshots."""

from conftest import raw

ITEMS = [f"item:{i}" for i in range(3000)]
ABSENT = [f"absent:{i}" for i in range(3000)]

# key -> the command that creates it (None: BF.MADD creates it with RedisBloom's defaults).
FILTERS = {
    "scalable": None,
    "reserved": ("BF.RESERVE", "reserved", 0.001, 500, "EXPANSION", 4),
    "nonscaling": ("BF.RESERVE", "nonscaling", 0.01, 5000, "NONSCALING"),
    "classic": ("BK.RESERVE", "classic", 5000, 0.01, "KIND", "classic"),
    "blocked": ("BK.RESERVE", "blocked", 5000, 0.01, "KIND", "blocked"),
    "counting": ("BK.RESERVE", "counting", 5000, 0.01, "KIND", "counting"),
    "bk_scalable": ("BK.RESERVE", "bk_scalable", 100, 0.01, "KIND", "scalable"),
    "window": ("BK.RESERVE", "window", 5000, 0.01, "KIND", "window", "WINDOW", 100000,
               "SLICES", 4),
    "time_window": ("BK.RESERVE", "time_window", 5000, 0.01, "KIND", "window", "WINDOW", "7d"),
}


def fill(r):
    """Creates every filter and adds ITEMS through BF.ADD, BF.MADD and BF.INSERT."""
    for key, create in FILTERS.items():
        if create:
            r.execute_command(*create)
        third = len(ITEMS) // 3
        for item in ITEMS[:100]:
            r.execute_command("BF.ADD", key, item)
        for start in range(100, third, 500):
            r.execute_command("BF.MADD", key, *ITEMS[start:min(start + 500, third)])
        for start in range(third, len(ITEMS), 1000):
            r.execute_command("BF.INSERT", key, "ITEMS", *ITEMS[start:start + 1000])
    # A key whose BF.LOADCHUNK has received only its header persists as such.
    header = r.execute_command("BF.SCANDUMP", "blocked", 0)[1]
    r.execute_command("BF.LOADCHUNK", "half_loaded", 1, header)


def snapshot(r):
    """What the server says of every filter: digests, BF.INFO / BK.INFO, every answer."""
    out = {"digest": r.execute_command("DEBUG", "DIGEST")}
    for key in FILTERS:
        out[key] = {
            "type": r.type(key),
            "digest": r.execute_command("DEBUG", "DIGEST-VALUE", key),
            "info": raw(r, "BF.INFO", key),
            "bk_info": r.execute_command("BK.INFO", key),
            "present": r.execute_command("BF.MEXISTS", key, *ITEMS),
            "absent": r.execute_command("BF.MEXISTS", key, *ABSENT),
        }
        assert out[key]["present"] == [1] * len(ITEMS), f"{key}: a false negative"
    # BF.* keys are chains of bloomkit's type (bkbloom--), BK.RESERVE's bloomkit1.
    assert {out[key]["type"] for key in ("scalable", "reserved", "nonscaling")} == {b"bkbloom--"}
    assert out["classic"]["type"] == b"bloomkit1"
    out["half_loaded"] = r.execute_command("DEBUG", "DIGEST-VALUE", "half_loaded")
    return out
