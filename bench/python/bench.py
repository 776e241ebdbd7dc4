"""bloomkit's Python module against Debian's python3-flor (a C-extension Bloom filter) and a
pure-Python filter, on the same keys in one run (bench/RESULTS.md, "Python").

    PYTHONPATH=build/release/bindings/python /usr/bin/python3 bench/python/bench.py [--n 1e7]

Run with Debian's /usr/bin/python3, which has python3-flor and python3-numpy. Times are wall
time per key, the best of --rounds rounds. Keys: URL-like str, ~40 bytes.
"""

import argparse
import hashlib
import platform
import subprocess
import time

import numpy as np

import bloomkit

try:
    import flor
except ImportError:  # python3-flor is Debian's; scripts/setup installs it
    flor = None


class PurePythonFilter:
    """A textbook filter in plain Python: k indexes from one blake2b digest (double hashing)."""

    def __init__(self, n, p):
        f = bloomkit.BloomFilter.for_capacity(n, p)  # the same m and k
        self.m, self.k = f.bits, f.hashes
        self.bits = bytearray((self.m + 7) // 8)

    def _indexes(self, key):
        d = hashlib.blake2b(key.encode(), digest_size=16).digest()
        h1, h2 = int.from_bytes(d[:8], "little"), int.from_bytes(d[8:], "little") | 1
        return [(h1 + i * h2) % self.m for i in range(self.k)]

    def add(self, key):
        for i in self._indexes(key):
            self.bits[i >> 3] |= 1 << (i & 7)

    def __contains__(self, key):
        return all(self.bits[i >> 3] >> (i & 7) & 1 for i in self._indexes(key))


def best(rounds, fn, count):
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) / count * 1e9


def machine():
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in lscpu.splitlines() if ":" in line)
    model = fields.get("Model name", "?").strip()
    cpus = fields.get("CPU(s)", "?").strip()
    return f"{model}; {cpus} CPUs; Python {platform.python_version()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e6)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--single", type=int, default=200_000, help="single-key lookups timed")
    ap.add_argument("--pure", type=int, default=20_000, help="keys for the pure-Python filter")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    n = int(a.n)
    keys = [f"https://example.com/page/{i:010d}?q={i * 2654435761 % 1000003}" for i in range(n)]
    ints = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    single = keys[: a.single]
    print(f"Machine: {machine()}")
    print(f"n = {n:,}, p = {a.p}; bloomkit {bloomkit.__version__}")
    rows = []

    for cls in (bloomkit.BloomFilter, bloomkit.BlockedBloomFilter):
        f = cls.for_capacity(n, a.p)
        add = best(1, lambda: f.add_many(keys), n)
        f.add_many(ints)
        lookup_in = best(a.rounds, lambda: sum(k in f for k in single), len(single))
        many = best(a.rounds, lambda: f.contains_many(keys), n)
        out = np.zeros(n, dtype=bool)
        arr = best(a.rounds, lambda: f.contains_many(ints, out=out), n)
        assert out.all() and f.contains_many(keys) == n
        rows.append((f"bloomkit {cls.__name__}", add, lookup_in, many, arr))

    if flor is not None:
        g = flor.BloomFilter(n=n, p=a.p)
        encoded = [k.encode() for k in keys]
        t0 = time.perf_counter()
        for k in encoded:
            g.add(k)
        add = (time.perf_counter() - t0) / n * 1e9
        enc_single = encoded[: a.single]
        lookup_in = best(a.rounds, lambda: sum(k in g for k in enc_single), len(enc_single))
        many = best(1, lambda: sum(k.encode() in g for k in keys), n)  # flor has no batch
        rows.append(("flor 1.1.3 (bytes keys)", add, lookup_in, many, None))

    pure = PurePythonFilter(n, a.p)
    subset = keys[: a.pure]
    t0 = time.perf_counter()
    for k in subset:
        pure.add(k)
    add = (time.perf_counter() - t0) / len(subset) * 1e9
    lookup_in = best(1, lambda: sum(k in pure for k in subset), len(subset))
    rows.append((f"pure Python (first {a.pure:,} keys)", add, lookup_in, None, None))

    print("\n| impl | add ns/key | single `in` ns/key | contains_many(list of str) ns/key "
          "| contains_many(NumPy uint64) ns/key |")
    print("|---|---:|---:|---:|---:|")
    fmt = lambda v: "-" if v is None else f"{v:.1f}"  # noqa: E731
    for name, *vals in rows:
        print(f"| {name} | " + " | ".join(fmt(v) for v in vals) + " |")
    if flor is not None:
        print(f"\nsingle `in`: flor / bloomkit BloomFilter = {rows[-2][2] / rows[0][2]:.2f}x")


if __name__ == "__main__":
    main()
