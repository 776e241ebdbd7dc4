#!/usr/bin/env python3
"""Runs two builds of bench/single_key_bench.cpp alternately and prints the medians per row.

    bench/single_key_pairs.py BEFORE AFTER N ROUNDS PAIRS

BEFORE and AFTER are the bench built against two versions of the library (the same source:
it uses only the public API). Each pair runs BEFORE then AFTER, each with ROUNDS rounds at N
keys, so that a noisy shared machine hits both alike; the medians are over every round of
every pair (docs/PERFORMANCE.md, "Loads and the single-key path").
"""
import statistics
import subprocess
import sys


def run(binary, n, rounds):
    out = subprocess.run([binary, str(n), str(rounds)], check=True, capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        row, _, ns = line.split()
        yield row, float(ns)


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    before, after, n, rounds, pairs = sys.argv[1:]
    samples = {}
    for _ in range(int(pairs)):
        for label, binary in (("before", before), ("after", after)):
            for row, ns in run(binary, n, rounds):
                samples.setdefault(row, {}).setdefault(label, []).append(ns)
    print(f"n = {n}: median ns per key ({pairs} pairs x {rounds} rounds)")
    print(f"{'row':<20} {'before':>8} {'after':>8} {'after/before':>13}")
    for row, by in samples.items():
        b, a = statistics.median(by["before"]), statistics.median(by["after"])
        print(f"{row:<20} {b:8.2f} {a:8.2f} {a / b:13.2f}")


if __name__ == "__main__":
    main()
