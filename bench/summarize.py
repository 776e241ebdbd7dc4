#!/usr/bin/env python3
"""Summarize bloomkit_bench JSON output (Google Benchmark, aggregates) as Markdown.

    python3 bench/summarize.py build/bench-results/bloomkit_bench-*-n1e7.json [...]

Prints the machine line, a table of median ns per key (or per memory access) for every
benchmark at every n, with the coefficient of variation over the repetitions, and the ratios the
issue sets targets for (classic filter at n = 1e7, one thread):
  contains_many >= 4x faster than libbloom's check loop (hits and misses),
  contains_many within 1.5x the memory bound (misses ~2 lines, hits k lines),
  contains >= 2x faster than libbloom.
Python 3 standard library only.
"""

import json
import math
import re
import sys

TARGET_N = 10_000_000

ROWS = [
    ("bloomkit/insert", "bloomkit insert (single-key loop)"),
    ("bloomkit/insert_many", "bloomkit insert_many (batches of 1024)"),
    ("bloomkit/contains_hit", "bloomkit contains, hits"),
    ("bloomkit/contains_miss", "bloomkit contains, misses"),
    ("bloomkit/contains_many_hit", "bloomkit contains_many, hits"),
    ("bloomkit/contains_many_miss", "bloomkit contains_many, misses"),
    ("bloomkit/hash_only", "XXH3-128 of the key only"),
    ("blocked/insert", "blocked insert (single-key loop)"),
    ("blocked/insert_many", "blocked insert_many (batches of 1024)"),
    ("blocked/contains_hit", "blocked contains, hits"),
    ("blocked/contains_miss", "blocked contains, misses"),
    ("blocked/contains_many_hit", "blocked contains_many, hits"),
    ("blocked/contains_many_miss", "blocked contains_many, misses"),
    ("blocked/hash_only", "XXH3-64 of the key only (the blocked filter's digest)"),
    ("blocked_portable/contains_miss", "blocked contains, misses, portable path"),
    ("blocked_portable/contains_many_miss", "blocked contains_many, misses, portable path"),
    ("bits12/classic/contains_many_hit", "12 bits/key: classic (k=8) contains_many, hits"),
    ("bits12/classic/contains_many_miss", "12 bits/key: classic (k=8) contains_many, misses"),
    ("bits12/blocked/contains_many_hit", "12 bits/key: blocked contains_many, hits"),
    ("bits12/blocked/contains_many_miss", "12 bits/key: blocked contains_many, misses"),
    ("libbloom/add", "libbloom add loop"),
    ("libbloom/check_hit", "libbloom check loop, hits"),
    ("libbloom/check_miss", "libbloom check loop, misses"),
    ("mem/random_read", "independent random 64 B read, filter-sized buffer"),
    ("mem/random_read_prefetch", "same, prefetch 64 ahead into L1 (prefetcht0)"),
    ("mem/random_read_prefetch_l2", "same, prefetch 64 ahead into L2 (prefetcht1)"),
    ("mem/chase", "dependent random read (chase), filter-sized buffer"),
]


def fmt_n(n):
    e = int(round(math.log10(n)))
    return f"1e{e}" if 10**e == n else str(n)


def fmt_ns(v):
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_ratio(v):
    return "-" if v is None else f"{v:.2f}x"


def load(paths):
    """Returns (medians, cvs, positives, context): dicts keyed by (name, n) / n."""
    medians, cvs, positives = {}, {}, {}
    context = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for key, value in doc.get("context", {}).items():
            context.setdefault(key, value)
        for b in doc.get("benchmarks", []):
            run = b.get("run_name", b["name"])
            m = re.fullmatch(r"(.+)/n:(\d+)", run)
            name, n = (m.group(1), int(m.group(2))) if m else (run, None)
            per_key = b.get("per_key")
            if per_key is None:
                continue
            agg = b.get("aggregate_name")
            if agg == "median" or (agg is None and b.get("run_type") == "iteration"):
                medians[(name, n)] = per_key * 1e9
                if "positive" in b:
                    positives[(name, n)] = b["positive"]
            elif agg == "cv":
                cvs[(name, n)] = per_key * 100.0
    return medians, cvs, positives, context


def hashes_for(context, n):
    m = re.search(r"hashes=(\d+)", context.get(f"filter_n{n}", ""))
    return int(m.group(1)) if m else None


def filter_bytes(context, n):
    m = re.search(r"bytes=(\d+)", context.get(f"filter_n{n}", ""))
    return int(m.group(1)) if m else None


def human_bytes(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024.0
    return str(b)


def machine_line(context):
    mem = context.get("mem_total", "")
    m = re.match(r"(\d+)\s*kB", mem)
    mem_text = f"{int(m.group(1)) / 1024 / 1024:.1f} GiB RAM" if m else mem
    caches = []
    for c in context.get("caches", []):
        if c.get("type") in ("Unified", "Data"):
            suffix = "d" if c.get("type") == "Data" else ""
            caches.append(f"L{c['level']}{suffix} {human_bytes(c['size'])}")
    family = context.get("cpu_family_model", "")
    parts = [
        context.get("cpu_model", "unknown CPU") + (f" (family/model {family})" if family else ""),
        f"{context.get('num_cpus', '?')} cores @ {context.get('mhz_per_cpu', '?')} MHz",
        ", ".join(caches),
        mem_text,
        context.get("kernel", ""),
        context.get("compiler", ""),
        "THP " + context.get("thp", "").strip(),
    ]
    return "; ".join(p for p in parts if p)


def context_value(context, key, field):
    m = re.search(field + r"=([0-9.e+-]+)", context.get(key, ""))
    return float(m.group(1)) if m else None


def blocked_section(sizes, get, bound, positives, context):
    """The blocked filter's ratios against its targets (issue 3) and the equal-memory table."""
    out = ["", "### Blocked filter", ""]
    out.append("Filter per n: " + "; ".join(
        f"n={fmt_n(n)}: {human_bytes(context_value(context, f'blocked_n{n}', 'bytes') or 0)}, "
        f"expected FPP {context_value(context, f'blocked_n{n}', 'expected_fpp')}"
        for n in sizes) + ".")
    out.append("")
    out.append("| ratio | target | " + " | ".join(f"n = {fmt_n(n)}" for n in sizes) + " |")
    out.append("|---|---|" + "---:|" * len(sizes))

    def per_n(fn):
        return " | ".join(fmt_ratio(fn(n)) if fn(n) is not None else "-" for n in sizes)

    def over(name, denominator):
        def fn(n):
            v, d = get(name, n), denominator(n)
            return v / d if v and d else None
        return fn

    floor = lambda n: (get("blocked/hash_only", n) + bound(n)) if get(
        "blocked/hash_only", n) and bound(n) else None
    for name, label in (("blocked/contains_many_hit", "contains_many hits"),
                        ("blocked/contains_many_miss", "contains_many misses"),
                        ("blocked/insert_many", "insert_many")):
        out.append(f"| {label} / one-line memory bound | <= 1.3x at 1e7, 1e8 | "
                   + per_n(over(name, bound)) + " |")
        out.append(f"| {label} / (XXH3-64 + one-line bound) |  | " + per_n(over(name, floor))
                   + " |")
    for name, label in (("blocked/contains_many_miss", "contains_many misses"),
                        ("blocked/contains_many_hit", "contains_many hits"),
                        ("blocked/insert_many", "insert_many")):
        classic = name.replace("blocked/", "bloomkit/")
        out.append(f"| classic {label} / blocked (speedup, p = 0.01) |  | "
                   + per_n(lambda n, c=classic, b=name: get(c, n) / get(b, n)
                           if get(c, n) and get(b, n) else None) + " |")
    out.append("")
    out.append("ns per key at 10 ns target (n = 1e5): "
               + ", ".join(f"{label} {fmt_ns(get(name, min(sizes)))}"
                           for name, label in (("blocked/insert", "insert"),
                                               ("blocked/contains_hit", "contains hits"),
                                               ("blocked/contains_miss", "contains misses")))
               + f"; XXH3-64 alone {fmt_ns(get('blocked/hash_only', min(sizes)))}.")
    out.append("")
    out.append("Equal memory, 12 bits per key (classic k = 8):")
    out.append("")
    out.append("| n | classic ns/key hits / misses | blocked ns/key hits / misses | "
               "classic FPP expected / measured | blocked FPP expected / measured |")
    out.append("|---|---:|---:|---:|---:|")
    for n in sizes:
        key = f"bits12_n{n}"
        cf = positives.get(("bits12/classic/contains_many_miss", n))
        bf = positives.get(("bits12/blocked/contains_many_miss", n))
        ce = context_value(context, key, "classic_expected_fpp")
        be = context_value(context, key, "blocked_expected_fpp")
        out.append(
            f"| {fmt_n(n)} | {fmt_ns(get('bits12/classic/contains_many_hit', n))} / "
            f"{fmt_ns(get('bits12/classic/contains_many_miss', n))} | "
            f"{fmt_ns(get('bits12/blocked/contains_many_hit', n))} / "
            f"{fmt_ns(get('bits12/blocked/contains_many_miss', n))} | "
            f"{ce:.4%} / {cf:.4%} | {be:.4%} / {bf:.4%} |"
            if None not in (ce, cf, be, bf) else f"| {fmt_n(n)} | - | - | - | - |")
    out.append("")
    out.append("Positive rate of the blocked filter's miss queries (measured FPP, target 0.01): "
               + "; ".join(f"n={fmt_n(n)}: "
                           f"{positives.get(('blocked/contains_many_miss', n), float('nan')):.4f}"
                           for n in sizes) + ".")
    return out


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    medians, cvs, positives, context = load(argv[1:])
    sizes = sorted({n for (_, n) in medians if n is not None})
    out = []
    out.append(f"Machine: {machine_line(context)}")
    out.append("")
    out.append(f"bloomkit {context.get('bloomkit_version', '?')}, libbloom "
               f"{context.get('libbloom_version', '?')}, p = {context.get('target_fpp', '?')}, "
               f"URL-like keys of {float(context.get('key_mean_bytes', 'nan')):.1f} bytes on "
               f"average; run {context.get('date', '?')}, load average at start "
               f"{', '.join(f'{x:.2f}' for x in context.get('load_avg', []))}")
    out.append("")
    out.append("Filter per n: " + "; ".join(
        f"n={fmt_n(n)}: k={hashes_for(context, n)}, {human_bytes(filter_bytes(context, n) or 0)}"
        for n in sizes))
    out.append("")

    # The table of medians.
    header = "| benchmark (ns per key / per access, median) | " + " | ".join(
        f"n = {fmt_n(n)}" for n in sizes) + " |"
    out.append(header)
    out.append("|---|" + "---:|" * len(sizes))
    for name, label in ROWS:
        if not any((name, n) in medians for n in sizes):
            continue
        cells = []
        for n in sizes:
            v = medians.get((name, n))
            cv = cvs.get((name, n))
            cells.append(fmt_ns(v) + (f" ±{cv:.0f}%" if v is not None and cv is not None else ""))
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    chase = medians.get(("mem/chase_1GiB", None))
    if chase is not None:
        cv = cvs.get(("mem/chase_1GiB", None))
        out.append("")
        out.append(f"Dependent random read (pointer chase) through 1 GiB: {fmt_ns(chase)} ns"
                   + (f" ±{cv:.0f}%" if cv is not None else "") + " per access.")
    out.append("")
    out.append("(± is the coefficient of variation over the repetitions.) Positive rate of the "
               "miss queries (measured FPP, target 0.01): " + "; ".join(
                   f"n={fmt_n(n)}: bloomkit {positives.get(('bloomkit/contains_many_miss', n), float('nan')):.4f}, "
                   f"libbloom {positives.get(('libbloom/check_miss', n), float('nan')):.4f}"
                   for n in sizes) + ".")
    out.append("")

    # Ratios.
    def get(name, n):
        return medians.get((name, n))

    def speedup(slow, fast, n):
        a, b = get(slow, n), get(fast, n)
        return a / b if a and b else None

    def bound(n):
        vals = [v for v in (get("mem/random_read", n), get("mem/random_read_prefetch", n),
                            get("mem/random_read_prefetch_l2", n)) if v]
        return min(vals) if vals else None

    rows = []  # (label, target, {n: value}, better)
    rows.append(("contains_many vs libbloom check, hits (speedup)", ">= 4x",
                 {n: speedup("libbloom/check_hit", "bloomkit/contains_many_hit", n) for n in sizes},
                 "high", 4.0))
    rows.append(("contains_many vs libbloom check, misses (speedup)", ">= 4x",
                 {n: speedup("libbloom/check_miss", "bloomkit/contains_many_miss", n) for n in sizes},
                 "high", 4.0))
    rows.append(("contains vs libbloom check, hits (speedup)", ">= 2x",
                 {n: speedup("libbloom/check_hit", "bloomkit/contains_hit", n) for n in sizes},
                 "high", 2.0))
    rows.append(("contains vs libbloom check, misses (speedup)", ">= 2x",
                 {n: speedup("libbloom/check_miss", "bloomkit/contains_miss", n) for n in sizes},
                 "high", 2.0))
    rows.append(("insert vs libbloom add (speedup)", "",
                 {n: speedup("libbloom/add", "bloomkit/insert", n) for n in sizes}, None, None))
    rows.append(("insert_many vs libbloom add (speedup)", "",
                 {n: speedup("libbloom/add", "bloomkit/insert_many", n) for n in sizes}, None,
                 None))

    def vs_bound(name, lines_of, n):
        v, b = get(name, n), bound(n)
        lines = lines_of(n)
        return v / (b * lines) if v and b and lines else None

    rows.append(("contains_many hits / (k lines x memory bound)", "<= 1.5x",
                 {n: vs_bound("bloomkit/contains_many_hit", lambda n: hashes_for(context, n), n)
                  for n in sizes}, "low", 1.5))
    rows.append(("contains_many misses / (2 lines x memory bound)", "<= 1.5x",
                 {n: vs_bound("bloomkit/contains_many_miss", lambda n: 2, n) for n in sizes},
                 "low", 1.5))
    rows.append(("contains_many hits / single memory bound", "",
                 {n: vs_bound("bloomkit/contains_many_hit", lambda n: 1, n) for n in sizes}, None,
                 None))
    rows.append(("contains_many misses / single memory bound", "",
                 {n: vs_bound("bloomkit/contains_many_miss", lambda n: 1, n) for n in sizes}, None,
                 None))

    def vs_floor(name, lines, n):
        v, b, h = get(name, n), bound(n), get("bloomkit/hash_only", n)
        return v / (h + lines * b) if v and b and h and lines else None

    rows.append(("contains_many hits / (hash + k lines x bound)", "",
                 {n: vs_floor("bloomkit/contains_many_hit", hashes_for(context, n), n)
                  for n in sizes}, None, None))
    rows.append(("contains_many misses / (hash + 2 lines x bound)", "",
                 {n: vs_floor("bloomkit/contains_many_miss", 2, n) for n in sizes}, None, None))

    out.append("| ratio | target (n = 1e7) | " + " | ".join(f"n = {fmt_n(n)}" for n in sizes)
               + " | at n = 1e7 |")
    out.append("|---|---|" + "---:|" * len(sizes) + "---|")
    for label, target, values, better, limit in rows:
        verdict = ""
        v = values.get(TARGET_N)
        if better and v is not None:
            ok = v >= limit if better == "high" else v <= limit
            verdict = "met" if ok else "**missed**"
        out.append(f"| {label} | {target} | " + " | ".join(fmt_ratio(values.get(n)) for n in sizes)
                   + f" | {verdict} |")
    out.append("")
    out.append("Memory bound = the fastest of the three independent-random-read rows at the same n "
               "(64-byte reads into a buffer of the filter's size, allocated like a filter).")
    if any(name.startswith("blocked/") for (name, _) in medians):
        out.extend(blocked_section(sizes, get, bound, positives, context))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
