"""bloomkit's Python module against Debian's python3-flor (a C-extension Bloom filter) and a
pure-Python filter, on the same keys in one run (bench/RESULTS.md, "Python").

    PYTHONPATH=<build>/bindings/python /usr/bin/python3 bench/python/bench.py \\
        --cpp <build>/bindings/python/bloomkit_python_cpp_batch      # -DBLOOMKIT_BUILD_BENCH=ON

Run with Debian's /usr/bin/python3, which has python3-flor and python3-numpy. Times are wall
time per key, the median of --rounds rounds (± half their range), the rounds of every
implementation interleaved (the machine is shared and noisy). Keys: URL-like str, ~50 bytes, and
8-byte integers (a NumPy uint64 array) for the comparison with the C++ batched path.
"""

import argparse
import hashlib
import platform
import statistics
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


def timed(fn, count):
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) / count * 1e9


class CppBatch:
    """bloomkit_python_cpp_batch (cpp_batch.cpp): the C++ contains_many over the same 8-byte keys,
    one timed round per request, so that its rounds interleave with the Python ones."""

    def __init__(self, exe, n, p):
        self.proc = subprocess.Popen([exe, str(n), repr(p)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def round(self):
        self.proc.stdin.write("round\n")
        self.proc.stdin.flush()
        classic, blocked = map(float, self.proc.stdout.readline().split())
        return classic, blocked

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def machine():
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    fields = dict(line.split(":", 1) for line in lscpu.splitlines() if ":" in line)
    model = fields.get("Model name", "?").strip()
    cpus = fields.get("CPU(s)", "?").strip()
    return f"{model}; {cpus} CPUs; Python {platform.python_version()}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=float, default=1e7)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--single", type=int, default=200_000, help="single-key lookups timed")
    ap.add_argument("--slow", type=int, default=20_000,
                    help="keys added to and looked up in flor and the pure-Python filter "
                         "(both sized for n; ~40 us per key: all n would take minutes)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cpp", help="bloomkit_python_cpp_batch (built with BLOOMKIT_BUILD_BENCH)")
    a = ap.parse_args()
    n = int(a.n)
    keys = [f"https://example.com/page/{i:010d}?q={i * 2654435761 % 1000003}" for i in range(n)]
    ints = np.arange(n, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    single = keys[: a.single]
    slow = keys[: a.slow]
    print(f"Machine: {machine()}")
    print(f"n = {n:,}, p = {a.p}; bloomkit {bloomkit.__version__}; median of {a.rounds} "
          "interleaved rounds")

    filters = {cls.__name__: cls.for_capacity(n, a.p)
               for cls in (bloomkit.BloomFilter, bloomkit.BlockedBloomFilter)}
    add = {name: timed(lambda: f.add_many(keys), n) for name, f in filters.items()}
    for f in filters.values():
        f.add_many(ints)
    g = flor.BloomFilter(n=n, p=a.p) if flor is not None else None
    encoded = [k.encode() for k in slow]
    pure = PurePythonFilter(n, a.p)
    add["flor"] = timed(lambda: [g.add(k) for k in encoded], len(slow)) if g else None
    add["pure"] = timed(lambda: [pure.add(k) for k in slow], len(slow))
    cpp = CppBatch(a.cpp, n, a.p) if a.cpp else None

    samples = {}  # metric -> one time per round
    out = np.zeros(n, dtype=bool)
    for _ in range(a.rounds):
        for name, f in filters.items():
            samples.setdefault((name, "in"), []).append(
                timed(lambda: sum(k in f for k in single), len(single)))
            samples.setdefault((name, "list"), []).append(timed(lambda: f.contains_many(keys), n))
            samples.setdefault((name, "numpy"), []).append(
                timed(lambda: f.contains_many(ints, out=out), n))
            assert out.all()
        if cpp:
            classic, blocked = cpp.round()
            samples.setdefault(("cpp BloomFilter", "numpy"), []).append(classic)
            samples.setdefault(("cpp BlockedBloomFilter", "numpy"), []).append(blocked)
        if g:
            samples.setdefault(("flor", "in"), []).append(
                timed(lambda: sum(k in g for k in encoded), len(encoded)))
        samples.setdefault(("pure", "in"), []).append(
            timed(lambda: sum(k in pure for k in slow), len(slow)))
    if cpp:
        cpp.close()
    med = {key: statistics.median(v) for key, v in samples.items()}
    spread = {key: (max(v) - min(v)) / 2 / statistics.median(v) * 100 for key, v in samples.items()}

    def cell(key):
        return f"{med[key]:.1f} ±{spread[key]:.0f}%" if key in med else "-"

    print("\n| impl | add ns/key | single `in` ns/key | contains_many(list of str) ns/key "
          "| contains_many(NumPy uint64) ns/key | C++ contains_many, same 8-byte keys, ns/key "
          "| Python / C++ |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in filters:
        ratio = (f"{med[(name, 'numpy')] / med[('cpp ' + name, 'numpy')]:.2f}x"
                 if ("cpp " + name, "numpy") in med else "-")
        print(f"| bloomkit {name} | {add[name]:.1f} | {cell((name, 'in'))} | "
              f"{cell((name, 'list'))} | {cell((name, 'numpy'))} | "
              f"{cell(('cpp ' + name, 'numpy'))} | {ratio} |")
    if g:
        print(f"| flor 1.1.3 (bytes keys; {a.slow:,} keys) | {add['flor']:.1f} | "
              f"{cell(('flor', 'in'))} | - (no batch API) | - | - | - |")
    print(f"| pure Python ({a.slow:,} keys) | {add['pure']:.1f} | {cell(('pure', 'in'))} "
          "| - | - | - | - |")
    base = med[("BloomFilter", "in")]
    if g:
        print(f"\nsingle `in`: flor / bloomkit BloomFilter = {med[('flor', 'in')] / base:.1f}x")
    print(f"single `in`: pure Python / bloomkit BloomFilter = {med[('pure', 'in')] / base:.1f}x")


if __name__ == "__main__":
    main()
