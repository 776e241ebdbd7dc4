"""Where contains_many over a list of str spends its time (bench/RESULTS.md, "Python"): the
phases measured apart, wall and CPU time per key, the median of --rounds interleaved rounds.

    PYTHONPATH=<build>/bindings/python /usr/bin/python3 bench/python/phases.py

  iterate           sum(map(len, keys)): CPython's own walk over the list, reading each str's
                    header (the floor of any pass over 10^7 str objects scattered over ~1 GB)
  list, tiny filter contains_many(keys) on a filter of 1000 keys that stays in L1/L2: reading
                    each str (header and bytes, copied with the GIL), XXH3 and a cached probe
  list, 10^7 filter contains_many(keys) on the 10^7-key filter (12 MB): the above plus the
                    probes' cache misses
  NumPy, tiny / 10^7 the same over a NumPy uint64 array: the batched C++ path without str objects

CPU time (time.process_time) is the cost of the call itself; wall time also holds the time the
process waited for a core, which on a shared machine can double it.
"""

import argparse
import os
import statistics
import time

import numpy as np

import bloomkit


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e7)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    n = int(a.n)
    keys = [f"https://example.com/page/{i:010d}?q={i * 2654435761 % 1000003}" for i in range(n)]
    ints = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    big = bloomkit.BlockedBloomFilter.for_capacity(n, a.p)
    big.add_many(keys)
    big.add_many(ints)
    tiny = bloomkit.BlockedBloomFilter.for_capacity(1000, a.p)
    out = np.zeros(n, dtype=bool)
    phases = [("iterate", lambda: sum(map(len, keys))),
              ("list, tiny filter", lambda: tiny.contains_many(keys)),
              ("list, 10^7 filter", lambda: big.contains_many(keys)),
              ("NumPy, tiny filter", lambda: tiny.contains_many(ints, out=out)),
              ("NumPy, 10^7 filter", lambda: big.contains_many(ints, out=out))]
    wall, cpu = {}, {}
    for _ in range(a.rounds):
        for name, fn in phases:
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            wall.setdefault(name, []).append((time.perf_counter() - t0) / n * 1e9)
            cpu.setdefault(name, []).append((time.process_time() - c0) / n * 1e9)
    assert big.contains_many(keys) == n  # no false negatives
    print(f"n = {n:,}, p = {a.p}, BlockedBloomFilter; median of {a.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f}")
    print("\n| phase | wall ns/key | CPU ns/key |\n|---|---:|---:|")
    for name, _ in phases:
        print(f"| {name} | {statistics.median(wall[name]):.1f} | "
              f"{statistics.median(cpu[name]):.1f} |")


if __name__ == "__main__":
    main()
