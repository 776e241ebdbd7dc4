#!/usr/bin/env python3
"""Server CPU and keys/s of the module's CF.ADD / CF.INSERT / CF.MEXISTS / CF.DEL (issue 31),
against its own BF.ADD / BF.MADD / BF.MEXISTS at the same capacity, and MEMORY USAGE of CF keys
against RedisBloom's recorded one (the RedisBloom cuckoo vectors).

Method as module_bench.py (whose server and socket helpers it uses): one redis-server with the
module on a free port in a temporary directory; every command RESP-encoded before the clock
starts and pipelined over one socket, replies read as bytes of known length; server CPU is the
delta of INFO's used_cpu_user + used_cpu_sys over the phase. Each round reserves a cuckoo filter
(CF.RESERVE key CAPACITY, RedisBloom's defaults: bucket size 2, 20 iterations, expansion 1) and a
Bloom filter (BF.RESERVE key 0.01 CAPACITY), then sends the same KEYS keys to each: single-key
commands (CF.ADD, BF.ADD, CF.DEL) one key per command, batched ones (CF.INSERT, BF.MADD,
CF.MEXISTS, BF.MEXISTS) BATCH keys per command.

  bench/redis/cf_bench.py build/release/src/redis_module/bloomkit_redis_module.so \
      [--keys 500000] [--capacity 1000000] [--batch 1000] [--rounds 3] \
      [--vectors tests/data/redisbloom-cuckoo]
"""

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

from module_bench import encode, redis_server, server_cpu

ROOT = Path(__file__).resolve().parents[2]


def timed(conn, payload, reply_bytes, n, check):
    cpu0 = server_cpu(conn)
    t0 = time.perf_counter()
    reply = conn.send_and_read(payload, reply_bytes)
    wall = time.perf_counter() - t0
    cpu = server_cpu(conn) - cpu0
    assert check(reply), reply[:200]
    return n / wall, cpu * 1e6 / n


def single(command, key, keys):
    """One key per command; each reply is :1 (4 bytes)."""
    return b"".join(encode(command, key, k) for k in keys), 4 * len(keys)


def batched(command, key, keys, batch, prefix=()):
    payload = b"".join(encode(command, key, *prefix, *keys[i:i + batch])
                       for i in range(0, len(keys), batch))
    reply = sum(len(b"*%d\r\n" % len(keys[i:i + batch])) + 4 * len(keys[i:i + batch])
                for i in range(0, len(keys), batch))
    return payload, reply


def all_ones(reply):
    return b"-" not in reply and b":0" not in reply


def no_error(reply):
    # A Bloom filter's add answers 0 for a false positive.
    return b"-" not in reply


def memory_usage(conn, key):
    return int(conn.command("MEMORY", "USAGE", key)[1:].split(b"\r\n")[0])


def vector_memory(conn, vectors):
    """MEMORY USAGE of each vector key RESTOREd from RedisBloom's DUMP, against RedisBloom's."""
    rows = []
    conn.command("SELECT", 1)  # the vectors' own key names (MEMORY USAGE counts the name)
    for path in sorted((vectors / "keys").glob("*.json")):
        v = json.loads(path.read_text())
        final = v["final"]
        conn.command("RESTORE", v["key"], 0, bytes.fromhex(final["dump_hex"]))
        ours = memory_usage(conn, v["key"])
        info = final["cf_info"]
        rows.append((v["key"], info["Bucket size"], info["Number of filters"], ours,
                     final["memory_usage"]))
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("--keys", type=int, default=500_000)
    parser.add_argument("--capacity", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--vectors", default=str(ROOT / "tests" / "data" / "redisbloom-cuckoo"))
    o = parser.parse_args()
    keys = [f"https://example.com/item/{i:09d}".encode() for i in range(o.keys)]
    with redis_server("--loadmodule", os.path.abspath(o.module)) as conn:
        version = conn.command("INFO", "SERVER").decode().split("redis_version:")[1].split()[0]
        print(f"redis-server {version}; {platform.processor() or platform.machine()}; "
              f"{os.cpu_count()} CPUs; load average {os.getloadavg()}")
        print(f"{o.keys} keys; filters reserved for {o.capacity} (CF: RedisBloom's defaults; "
              f"BF: p = 0.01); {o.batch} keys per batched command; {o.rounds} rounds")
        rows = {}
        for r in range(o.rounds):
            cf, cfi, bf, bfm = (f"cf{r}", f"cfi{r}", f"bf{r}", f"bfm{r}")
            conn.command("CF.RESERVE", cf, o.capacity)
            conn.command("CF.RESERVE", cfi, o.capacity)
            conn.command("BF.RESERVE", bf, "0.01", o.capacity)
            conn.command("BF.RESERVE", bfm, "0.01", o.capacity)
            phases = [
                ("CF.ADD", *single("CF.ADD", cf, keys), all_ones),
                ("BF.ADD", *single("BF.ADD", bf, keys), no_error),
                ("CF.INSERT", *batched("CF.INSERT", cfi, keys, o.batch, ("ITEMS",)), all_ones),
                ("BF.MADD", *batched("BF.MADD", bfm, keys, o.batch), no_error),
                ("CF.MEXISTS", *batched("CF.MEXISTS", cf, keys, o.batch), all_ones),
                ("BF.MEXISTS", *batched("BF.MEXISTS", bf, keys, o.batch), all_ones),
                ("CF.DEL", *single("CF.DEL", cf, keys), all_ones),
            ]
            for name, payload, reply_bytes, check in phases:
                rows.setdefault(name, []).append(
                    timed(conn, payload, reply_bytes, o.keys, check))
            if r == 0:
                memory = {"CF (bucket size 2)": memory_usage(conn, cfi),
                          "BF (p = 0.01)": memory_usage(conn, bfm)}
            conn.command("DEL", cf, cfi, bf, bfm)
            print(f"round {r + 1} done; load average {os.getloadavg()}", flush=True)
        print("| command | keys/s (median) | server CPU s per 10^6 keys (median) | range |")
        print("|---|---:|---:|---|")
        for name, figures in rows.items():
            cpus = [f[1] for f in figures]
            print(f"| {name} | {statistics.median(f[0] for f in figures):,.0f} | "
                  f"{statistics.median(cpus):.3f} | {min(cpus):.3f}-{max(cpus):.3f} |")
        print(f"MEMORY USAGE after {o.keys} adds, reserved for {o.capacity}: " +
              ", ".join(f"{k} {v:,} bytes" for k, v in memory.items()))
        vectors = Path(o.vectors)
        if (vectors / "manifest.json").exists():
            print("| RedisBloom key | bucket size | sub-filters | MEMORY USAGE here | "
                  "RedisBloom's |")
            print("|---|---:|---:|---:|---:|")
            for key, bs, filters, ours, theirs in vector_memory(conn, vectors):
                print(f"| {key} | {bs} | {filters} | {ours:,} | {theirs:,} |")


if __name__ == "__main__":
    main()
