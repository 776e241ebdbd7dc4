"""bench/issue32/run's report: the before/after table of issue 32 as Markdown.

render(samples, context): samples maps (build label, row name, n) to the row records of every
process (issue32_bench.cpp's JSON lines); context holds the machine line, loads and revisions.
"""

import statistics

import summarize

BEGIN = "<!-- bench/issue32/run:begin -->"
END = "<!-- bench/issue32/run:end -->"

# (row, n key, description, limit description, target kind, target value)
#   n key: "large" or "small" (the run's two sizes); target kinds: "limit" (after / limit at
#   most the value), "ns" (after ns per key at most the value), "gain" (reported only).
TABLES = [
    ("Blocked, batched, 35-byte string keys", [
        ("blocked/insert_many", "large", "insert_many", "hash + read", "limit", 1.15),
        ("blocked/contains_many_hit", "large", "contains_many, hits", "hash + read", "limit", 1.15),
        ("blocked/contains_many_miss", "large", "contains_many, misses", "hash + read", "limit",
         1.15),
        ("blocked/insert_many", "small", "insert_many", "hash + L3 read", "limit", 1.3),
        ("blocked/contains_many_hit", "small", "contains_many, hits", "hash + L3 read", "limit",
         1.3),
        ("blocked/contains_many_miss", "small", "contains_many, misses", "hash + L3 read", "limit",
         1.3),
    ]),
    ("Blocked, batched, 64-bit integer keys", [
        ("blocked_u64/insert_many", "small", "insert_many", "mixer + read", "ns", 4.0),
        ("blocked_u64/contains_many_hit", "small", "contains_many, hits", "mixer + read", "ns",
         4.0),
        ("blocked_u64/contains_many_miss", "small", "contains_many, misses", "mixer + read", "ns",
         4.0),
    ]),
    ("Blocked, one key at a time, 35-byte string keys", [
        ("blocked/contains_hit", "large", "contains, hits", "hash + dependent read", "limit", 1.1),
        ("blocked/contains_miss", "large", "contains, misses", "hash + dependent read", "limit",
         1.1),
        ("blocked/contains_hit", "small", "contains, hits", "hash + dependent read", "gain", None),
        ("blocked/contains_miss", "small", "contains, misses", "hash + dependent read", "gain",
         None),
    ]),
    ("Other kinds, batched, 35-byte string keys", [
        (f"{kind}/{op}", "small", f"{kind} {label}", None, "gain", None)
        for kind in ("classic", "counting", "scalable", "scalable_blocked", "window")
        for op, label in (("insert_many", "insert_many"), ("contains_many_hit", "hits"),
                          ("contains_many_miss", "misses"))
    ]),
]


# The second bound a row's process measures (alt_limit_ns), by row prefix and operation.
ALT_LIMITS = {
    "blocked": {"insert_many": "hash + line write", "contains_hit": "hash + unprefetched read",
                "contains_miss": "hash + unprefetched read"},
    "blocked_u64": {op: "XXH3 of 8 B + read"
                    for op in ("insert_many", "contains_many_hit", "contains_many_miss")},
}


def med(records, field):
    values = [r[field] for r in records if field in r]
    return statistics.median(values) if values else None


def spread(records):
    values = [r["cpu_ns"] for r in records]
    m = statistics.median(values) if values else 0
    if len(values) < 2 or m <= 0:
        return ""
    return f" ±{(max(values) - min(values)) / m * 100:.0f}%"


def fmt(v):
    return summarize.fmt_ns(v)


def ratio(a, b):
    return f"{a / b:.2f}x" if a is not None and b else "-"


def field_values(records, field):
    return [r[field] for r in records if field in r]


def ratio_range(values):
    """A ratio's median over the processes, with their range."""
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


def paired(records):
    """The median over the processes of their paired ratios (limit_rows.hpp, add_paired_limit),
    or None where the row has none."""
    values = field_values(records, "paired_ratio")
    return statistics.median(values) if values else None


def paired_text(records):
    values = field_values(records, "paired_ratio")
    return ratio_range(values) if values else "-"


def verdict(kind, value, after, limit, pair=None):
    """A limit target is judged by the paired ratio where the row has one (the ratio of medians
    otherwise), and says which."""
    if kind == "gain" or after is None:
        return "-"
    if kind == "ns":
        return f"≤ {value:g} ns: {'met' if after <= value else 'not met'}"
    if pair is not None:
        return f"≤ {value:g}x: {'met' if pair <= value else 'not met'} (paired)"
    if limit is None:
        return "-"
    return f"≤ {value:g}x: {'met' if after / limit <= value else 'not met'}"


def n_text(n):
    return summarize.fmt_n(n)


def huge_pages_line(context):
    parts = []
    for label in ("before", "after"):
        procs = [p for p in context["processes"].get(label, [])
                 if p["group"] == "strings" and p.get("filter_bytes")]
        for n in sorted({p["n"] for p in procs}):
            ps = [p for p in procs if p["n"] == n]
            huge = statistics.median(p["anon_huge_kib"] for p in ps) / 1024
            size = ps[0]["filter_bytes"] / 2**20
            parts.append(f"{label} n = {n_text(n)}: {huge:.0f} MiB on huge pages for the filter "
                         f"and the limit's array ({size:.1f} MiB each)")
    return "; ".join(parts)


def render(samples, context):
    sizes = sorted({n for (_, _, n) in samples})
    size_of = {"large": max(sizes) if sizes else None, "small": min(sizes) if sizes else None}
    args = context["args"]
    int_paths = {label: sorted({p["int_path"] for p in procs})
                 for label, procs in context["processes"].items()}
    lines = [
        f"Machine: {context['machine']}",
        "",
        f"Run {context['started']} UTC, {context['minutes']:.1f} minutes "
        f"({context['build_minutes']:.1f} of them building); before = {context['before']}, "
        f"after = {context['after']}; rounds: "
        + (f"{args['large_rounds']} at n = {args['large']}, " if float(args["large"]) > 0 else "")
        + f"{args['rounds']} at n = {args['small']}, each round both builds as adjacent processes in "
        f"random order, {args['reps']} repetitions inside each process. Load average (1 min) at "
        f"start {context['load_start'][0]:.1f}, median over the processes "
        f"{context['load1_median']:.1f}, max {context['load1_max']:.1f}, at end "
        f"{context['load_end'][0]:.1f} (2 cores).",
        "",
        "Figures: thread CPU ns per key, median over the rounds (± the spread (max - min) / "
        "median of the rounds); after/before and after/limit are ratios of those medians. The "
        "limit is measured in the same process, on an array of the filter's size from the "
        "filter's allocator (same page size), with the same keys: inlined XXH3-64 (a "
        "multiply-xorshift mixer for integers) and one random 64-byte line read per key, "
        "prefetched (prefetch distances 16/32/64, into L1 or L2, with the keys read plainly or "
        "as a non-temporal stream: the variant with the least median over the process's "
        "repetitions, as a row's figure is its median; limit_rows.hpp says why not the fastest "
        "single timing, which raw.jsonl keeps as limit_fastest_ns), or one dependent read for "
        "the single-key rows. "
        "The paired column: each batched lookup row's loop timed once more right after the "
        "limit's best variant, on the limit's keys, in every repetition, and each insert row's "
        "fill of a new filter timed once more with every chunk of 2^20 keys right after the "
        "limit's best variant on that chunk's keys; the median over the "
        "processes of each process's median of those ratios (with their range), which a "
        "phase of slow memory on the shared machine moves less than the ratio of medians. "
        "A target against the limit is judged by the paired ratio where the row has one "
        "(the verdict says so), by the ratio of medians otherwise. "
        "Batched lookups and the limits are timed warm, after one untimed pass. The last column is a second bound measured beside it: "
        "for inserts a prefetched line write (read-modify-write of one word), for integers XXH3 "
        "of the 8 bytes instead of the mixer, for single-key lookups the hash and an "
        "unprefetched independent read per key (the reads of successive keys overlap, as they "
        "can in a loop of single-key lookups). Integer keys: before "
        f"{', '.join(int_paths.get('before', ['-']))}; after "
        f"{', '.join(int_paths.get('after', ['-']))}.",
        "",
        f"Huge pages (AnonHugePages of the process): {huge_pages_line(context)}.",
        "",
    ]
    for title, rows in TABLES:
        lines += [f"### {title}", "",
                  "| row | n | before ns/key | after ns/key | after/before | limit ns/key "
                  "| after/limit | paired | target | other bound ns/key |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---|---:|"]
        for row, size_key, label, limit_label, kind, value in rows:
            n = size_of[size_key]
            before = samples.get(("before", row, n), [])
            after = samples.get(("after", row, n), [])
            if not before and not after:
                continue
            b, a = med(before, "cpu_ns"), med(after, "cpu_ns")
            limit = med(after, "limit_ns") or med(before, "limit_ns")
            limit_text = f"{fmt(limit)} ({limit_label})" if limit is not None else "-"
            alt = med(after, "alt_limit_ns") or med(before, "alt_limit_ns")
            alt_text = f"{fmt(alt)} ({ALT_LIMITS[row.split('/')[0]][row.split('/')[1]]})" \
                if alt is not None else "-"
            lines.append(
                f"| {label} | {n_text(n)} | {fmt(b)}{spread(before)} | {fmt(a)}{spread(after)} | "
                f"{ratio(a, b)} | {limit_text} | {ratio(a, limit) if limit else '-'} | "
                f"{paired_text(after)} | {verdict(kind, value, a, limit, paired(after))} | "
                f"{alt_text} |")
        lines.append("")
    lines += notes(samples, size_of)
    return "\n".join(lines) + "\n"


def notes(samples, size_of):
    out = []
    large, small = size_of["large"], size_of["small"]
    fpp = []
    for row in ("blocked/contains_many_miss", "blocked_u64/contains_many_miss"):
        for n in sorted({large, small}):
            recs = samples.get(("after", row, n), [])
            if recs and recs[0].get("queries"):
                fpp.append(f"{row} n = {n_text(n)} {recs[0]['positives'] / recs[0]['queries']:.4f}")
    if fpp:
        out.append("Measured FPP of the misses (after, p = 0.01): " + "; ".join(fpp) + ".")
    fills = []
    for row in ("blocked/insert_many", "blocked_u64/insert_many"):
        for n in sorted({large, small}):
            values = field_values(samples.get(("after", row, n), []), "fill_ratio")
            if values:
                fills.append(f"{row} n = {n_text(n)} {ratio_range(values)}")
    if fills:
        out.append("Paired fills as a whole (after; the chunks' total over their limits' total, "
                   "so with the first chunks' page faults on the new filter's untouched memory, "
                   "which the limit's array, written when it is made, does not pay): "
                   + "; ".join(fills) + ".")
    return [line + "\n" for line in out]
