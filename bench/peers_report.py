"""The report of bench/compare_peers: the machine, the versions of the peers, a table per n, and
its section of bench/RESULTS.md between the bench/compare_peers markers. Python 3 standard
library only; imported by bench/compare_peers.
"""

import os
import statistics
import subprocess

import summarize  # bench/summarize.py: the machine line, number formats

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BEGIN = "<!-- bench/compare_peers:begin -->"
END = "<!-- bench/compare_peers:end -->"

BLOOMKIT_IMPLS = ["bloomkit-classic", "bloomkit-classic-batch", "bloomkit-blocked",
                  "bloomkit-blocked-batch", "bloomkit-counting", "bloomkit-counting-batch",
                  "bloomkit-cuckoo", "bloomkit-cuckoo-batch", "bloomkit-scalable",
                  "bloomkit-static", "bloomkit-static-batch"]
# The kinds that delete (issue 31): their harness also times removes.
DELETE_PAIRS = [("bloomkit-cuckoo", "bloomkit-counting"),
                ("bloomkit-cuckoo-batch", "bloomkit-counting-batch")]
PEER_IMPLS = ["libbloom", "guava", "bits-and-blooms", "blobloom"]
# Debian packages whose versions the report names.
PACKAGES = ["libbloom-dev", "libguava-java", "openjdk-17-jdk-headless", "golang-go",
            "golang-github-willf-bloom-dev", "golang-github-bits-and-blooms-bitset-dev",
            "golang-github-greatroar-blobloom-dev", "golang-github-cespare-xxhash-dev",
            "redis-server"]


def local_context():
    """The machine, in the shape of Google Benchmark's context that summarize.machine_line reads."""
    ctx = {"num_cpus": os.cpu_count()}
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "model name":
                ctx.setdefault("cpu_model", value)
            elif key == "cpu family":
                ctx.setdefault("_family", value)
            elif key == "model":
                ctx.setdefault("_model", value)
            elif key == "cpu MHz":
                ctx.setdefault("mhz_per_cpu", round(float(value)))
    if "_family" in ctx:
        ctx["cpu_family_model"] = f"{ctx.pop('_family')}/{ctx.pop('_model', '?')}"
    with open("/proc/meminfo") as f:
        ctx["mem_total"] = f.readline().split(":", 1)[1].strip()
    caches, base = [], "/sys/devices/system/cpu/cpu0/cache"
    for entry in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        try:
            def read(name):
                with open(os.path.join(base, entry, name)) as f:
                    return f.read().strip()
            size = read("size")
            scale = {"K": 1024, "M": 1 << 20}.get(size[-1], 1)
            caches.append({"type": read("type"), "level": int(read("level")),
                           "size": int(size.rstrip("KM")) * scale})
        except (OSError, ValueError):
            pass
    ctx["caches"] = caches
    u = os.uname()
    ctx["kernel"] = f"{u.sysname} {u.release}"
    try:
        version = subprocess.run(["g++", "-dumpfullversion"], capture_output=True,
                                 text=True).stdout.strip()
        ctx["compiler"] = f"g++ {version}"
    except OSError:
        pass
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            ctx["thp"] = f.read()
    except OSError:
        pass
    return ctx


def package_versions():
    versions = {}
    for pkg in PACKAGES:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True,
                           text=True)
        version = r.stdout.strip().split(":", 1)[-1]  # without the epoch
        versions[pkg] = version if r.returncode == 0 and version else None
    return versions


def bloomkit_revision():
    def git(*a):
        return subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    rev = git("rev-parse", "--short", "HEAD")
    return rev + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def spread(values):
    med = statistics.median(values)
    return (max(values) - min(values)) / med * 100 if med > 0 and len(values) > 1 else None


def fmt_time(values):
    if not values:
        return "-"
    med, s = statistics.median(values), spread(values)
    return summarize.fmt_ns(med) + (f" ±{s:.0f}%" if s is not None else "")


def size_section(n, queries, p, results, impls):
    rows = []
    out = [f"### n = {summarize.fmt_n(n)} ({n:,} keys; {queries:,} hit and {queries:,} miss "
           f"queries)", ""]
    out.append("| impl | language | library | insert ns/key | hit ns/key | miss ns/key | FPP "
               "| bits/key | peak RSS MiB |")
    out.append("|---|---|---|---:|---:|---:|---:|---:|---:|")
    med = {}
    for impl in impls:
        rs = results.get(impl, [])
        if not rs:
            out.append(f"| {impl} | | | not run | | | | | |")
            continue
        m = {c: statistics.median(r[c] for r in rs)
             for c in ("insert_ns", "hit_ns", "miss_ns", "fpp", "bits_per_key", "rss_mib")}
        med[impl] = m
        out.append(f"| {impl} | {rs[0]['language']} | {rs[0]['library']} | "
                   f"{fmt_time([r['insert_ns'] for r in rs])} | "
                   f"{fmt_time([r['hit_ns'] for r in rs])} | "
                   f"{fmt_time([r['miss_ns'] for r in rs])} | {m['fpp']:.4f} | "
                   f"{m['bits_per_key']:.2f} | {m['rss_mib']:.0f} |")
    # bloomkit against the best peer of each column (lowest; FPP: measured against p).
    cols = [("insert_ns", "insert"), ("hit_ns", "hit"), ("miss_ns", "miss"),
            ("bits_per_key", "bits/key"), ("rss_mib", "peak RSS")]
    best = {}
    for c, _ in cols:
        peers = [(med[i][c], i) for i in PEER_IMPLS if i in med]
        if peers:
            best[c] = min(peers)
    if best and any(i in med for i in BLOOMKIT_IMPLS):
        out.append("")
        out.append("bloomkit / best peer (below 1 = bloomkit better; best peer named per column):")
        out.append("")
        out.append("| bloomkit kind | " + " | ".join(
            f"{label} (best: {best[c][1]} {summarize.fmt_ns(best[c][0])})" if c in best else label
            for c, label in cols) + f" | FPP measured / target {p:g} |")
        out.append("|---|" + "---:|" * (len(cols) + 1))
        for impl in BLOOMKIT_IMPLS:
            if impl not in med:
                continue
            cells = [f"{med[impl][c] / best[c][0]:.2f}x" if c in best and best[c][0] > 0 else "-"
                     for c, _ in cols]
            out.append(f"| {impl} | " + " | ".join(cells) + f" | {med[impl]['fpp']:.4f} / {p:g} |")
    out.append("")
    return out


def static_section(ctx):
    """Issue 30: the static kind's bits per key against log2(1/p), classic and blocked at every
    n and p; its FPP; its batched lookups, build and peak RSS against the blocked filter's."""
    rows = ctx.get("static_sizes") or []
    if not rows:
        return []
    out = ["### The static kind (issue 30)", "",
           "Bits per key at each n and target p (the kinds' own sizing: "
           "`static_filter::bits_for`, and `for_capacity(n, p)` of the classic and blocked "
           "filters; bench/static_sizes.cpp). The static filter's fingerprints are the smallest "
           "b with 2^-b <= p.", "",
           "| n | p | b | log2(1/p) | static | static / bound | classic | blocked "
           "| static / classic | static / blocked |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in (r for r in rows if r["row"] == "size"):
        out.append(f"| {summarize.fmt_n(r['n'])} | {r['p']:.3g} | {r['fingerprint_bits']} | "
                   f"{r['bound_bits_per_key']:.2f} | {r['static_bits_per_key']:.2f} | "
                   f"{r['static_bits_per_key'] / r['bound_bits_per_key']:.3f}x | "
                   f"{r['classic_bits_per_key']:.2f} | {r['blocked_bits_per_key']:.2f} | "
                   f"{r['static_bits_per_key'] / r['classic_bits_per_key']:.3f}x | "
                   f"{r['static_bits_per_key'] / r['blocked_bits_per_key']:.3f}x |")
    fpp = [r for r in rows if r["row"] == "fpp"]
    if fpp:
        out += ["", f"The static filter's FPP, built from {fpp[0]['n']:,} keys, measured on "
                f"{fpp[0]['queries']:,} fresh keys:", "",
                "| p | stated (2^-b) | measured | measured / stated | bits/key |",
                "|---:|---:|---:|---:|---:|"]
        for r in fpp:
            out.append(f"| {r['p']:.3g} | {r['stated_fpp']:.3g} | {r['measured_fpp']:.3g} | "
                       f"{r['measured_fpp'] / r['stated_fpp']:.2f} | {r['bits_per_key']:.2f} |")
    out += ["", f"At p = {ctx['args'].p:g}, from the tables above (medians): batched lookups "
            "of the static filter against the blocked filter's, its build from keys (hashing "
            "included, on every core) and the peak RSS of the process that builds and queries "
            "it.", "",
            "| n | static hit | blocked hit | ratio | static miss | blocked miss | ratio "
            "| static build ns/key (M keys/s) | blocked insert ns/key | static peak RSS MiB "
            "| blocked peak RSS MiB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in ctx["sizes"]:
        res = ctx["results"][n]
        s, b = res.get("bloomkit-static-batch"), res.get("bloomkit-blocked-batch")
        if not s or not b:
            continue
        med = {k: {c: statistics.median(r[c] for r in v)
                   for c in ("insert_ns", "hit_ns", "miss_ns", "rss_mib")}
               for k, v in (("s", s), ("b", b))}
        out.append(f"| {summarize.fmt_n(n)} | {summarize.fmt_ns(med['s']['hit_ns'])} | "
                   f"{summarize.fmt_ns(med['b']['hit_ns'])} | "
                   f"{med['s']['hit_ns'] / med['b']['hit_ns']:.2f}x | "
                   f"{summarize.fmt_ns(med['s']['miss_ns'])} | "
                   f"{summarize.fmt_ns(med['b']['miss_ns'])} | "
                   f"{med['s']['miss_ns'] / med['b']['miss_ns']:.2f}x | "
                   f"{summarize.fmt_ns(med['s']['insert_ns'])} "
                   f"({1e3 / med['s']['insert_ns']:.1f}) | "
                   f"{summarize.fmt_ns(med['b']['insert_ns'])} | {med['s']['rss_mib']:.0f} | "
                   f"{med['b']['rss_mib']:.0f} |")
    out.append("")
    return out


def deletes_section(ctx):
    """Issue 31: the cuckoo filter against the counting filter (the two kinds that delete), in
    the same run: every pass including removes, and the ratios the issue sets targets for."""
    cols = ("insert_ns", "hit_ns", "miss_ns", "remove_ns", "fpp", "bits_per_key", "rss_mib")
    rows, ratios = [], []
    for n in ctx["sizes"]:
        res = ctx["results"][n]
        med = {i: {c: statistics.median(r[c] for r in res[i]) for c in cols}
               for i in (x for pair in DELETE_PAIRS for x in pair) if res.get(i)
               and all(r.get("remove_ns") is not None for r in res[i])}
        for impl in (x for pair in DELETE_PAIRS for x in pair):
            if impl in med:
                rs = res[impl]
                rows.append(f"| {summarize.fmt_n(n)} | {impl} | "
                            + " | ".join(fmt_time([r[c] for r in rs]) for c in cols[:4])
                            + f" | {med[impl]['fpp']:.4f} | {med[impl]['bits_per_key']:.2f} | "
                            f"{med[impl]['rss_mib']:.0f} |")
        for cuckoo, counting in DELETE_PAIRS:
            if cuckoo in med and counting in med:
                a, b = med[cuckoo], med[counting]
                ratios.append(f"| {summarize.fmt_n(n)} | {cuckoo} / {counting} | "
                              + " | ".join(f"{a[c] / b[c]:.2f}x" for c in cols[:4])
                              + f" | {a['bits_per_key'] / b['bits_per_key']:.3f}x | "
                              f"{a['rss_mib'] / b['rss_mib']:.2f}x |")
    if not rows:
        return []
    out = [f"### Deletes: cuckoo against counting (issue 31, p = {ctx['args'].p:g})", "",
           "Each run also removes its min(n, Q) hit keys after the lookups (each inserted once, "
           "every remove must succeed). The counting filter has no remove_many: its `-batch` "
           "row removes one key at a time.", "",
           "| n | impl | insert ns/key | hit ns/key | miss ns/key | remove ns/key | FPP "
           "| bits/key | peak RSS MiB |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    out += rows
    if ratios:
        out += ["", "Cuckoo / counting, medians (below 1 = cuckoo better; targets: bits/key at "
                "most 0.35x at p = 0.01, hit and miss at most 1x):", "",
                "| n | pair | insert | hit | miss | remove | bits/key | peak RSS |",
                "|---:|---|---:|---:|---:|---:|---:|---:|"] + ratios
    out.append("")
    return out


def report(ctx):
    a = ctx["args"]
    mem = ctx["memory_limits"]
    keys = ctx["manifest"]
    v = ctx["versions"]
    lines = [BEGIN, "", "## Side by side with the peers (bench/compare_peers)", ""]
    lines.append(f"Machine: {summarize.machine_line(ctx['machine'])}")
    lines.append("")
    load0, load1 = ctx["load_start"], ctx["load_end"]
    lines.append(f"Run {ctx['started']} UTC, {ctx['minutes']:.1f} minutes; {a.rounds} rounds, "
                 f"p = {a.p:g}; load average at start {', '.join(f'{x:.2f}' for x in load0)}, at "
                 f"end {', '.join(f'{x:.2f}' for x in load1)}.")
    lines.append("")
    def ver(pkg):
        return v.get(pkg) or "not installed"
    lines.append(f"Versions: bloomkit {ctx['bloomkit_version']} ({ctx['revision']}); libbloom "
                 f"{ver('libbloom-dev')}; Guava {ver('libguava-java')} on OpenJDK "
                 f"{ver('openjdk-17-jdk-headless')}; bits-and-blooms/bloom "
                 f"{ver('golang-github-willf-bloom-dev')} (bitset "
                 f"{ver('golang-github-bits-and-blooms-bitset-dev')}), blobloom "
                 f"{ver('golang-github-greatroar-blobloom-dev')} with cespare/xxhash "
                 f"{ver('golang-github-cespare-xxhash-dev')}, on Go {ver('golang-go')} "
                 f"(Debian packages, dpkg-query).")
    lines.append("")
    lines.append(f"Keys: URL-like ASCII, {keys['mean_key_length']:.1f} bytes on average "
                 f"(bench/bench_keys.hpp), one key file of {keys['keys']:,} keys (each n inserts "
                 f"its first n) and one of {keys['misses']:,} never-inserted keys (the misses).")
    lines.append("")
    lines.append(f"Memory limits (1 GiB buffer, median of {mem['repetitions']}): a dependent "
                 f"random access (pointer chase) costs **{mem['dependent_access_ns']:.0f} ns**; "
                 f"an independent random 64-byte line read **{mem['independent_read_ns']:.1f} "
                 f"ns** ({mem['independent_read_l2_prefetch_ns']:.1f} ns with a prefetch into L2 "
                 f"64 reads ahead).")
    lines.append("")
    lines.append(
        "How to read: every figure is wall time per key of one process doing one thing (insert "
        "all n keys; query min(n, Q) inserted keys; query Q never-inserted keys), median over the "
        "rounds, ± the spread (max - min) / median. A single-key lookup in a loop waits for its "
        "own cache misses, so at sizes beyond the caches it costs about one dependent access "
        f"(~{mem['dependent_access_ns']:.0f} ns here) plus hashing; a batched lookup "
        "(`-batch` rows) overlaps the misses of many keys and approaches a few independent line "
        f"reads (~{mem['independent_read_ns']:.0f} ns each) plus hashing. Only the filter calls "
        "are timed; reading keys from the files is not. Peak RSS is the whole process (a JVM's "
        "heap and runtime included). Method: docs/PERFORMANCE.md, \"Peers\".")
    lines.append("")
    for note in ctx["notes"]:
        lines.append(f"Note: {note}")
        lines.append("")
    for n, why in ctx["skipped"]:
        lines.append(f"n = {summarize.fmt_n(n)} not run: {why}.")
        lines.append("")
    for n in ctx["sizes"]:
        lines += size_section(n, ctx["queries"][n], a.p, ctx["results"][n], ctx["impls"])
    lines += static_section(ctx)
    lines += deletes_section(ctx)
    if ctx["failures"]:
        lines.append("**Failed runs** (not in the medians):")
        lines.append("")
        lines += [f"- {f}" for f in ctx["failures"]]
        lines.append("")
    if ctx.get("redis"):
        r = ctx["redis"]
        lines.append("### Redis (bench/redis/run)")
        lines.append("")
        lines.append(f"Run {r['stamp']} UTC, {r['rounds']} rounds, load average at start "
                     f"{', '.join(f'{x:.2f}' for x in r['load_avg_start'])}; {r['machine']}.")
        lines.append("")
        lines.append(r["summary_markdown"])
        lines.append("")
    else:
        lines.append("Redis comparison: not run (--skip-redis); see the Redis section below.")
        lines.append("")
    lines.append(END)
    return "\n".join(lines) + "\n"


def write_report(path, section):
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + section.rstrip("\n") + tail
    elif "\n## Machine" in text:
        head, tail = text.split("\n## Machine", 1)
        text = head + "\n" + section + "\n## Machine" + tail
    else:
        text = text + ("\n" if text else "") + section
    with open(path, "w") as f:
        f.write(text)


# ------------------------------------------------------------------------------------------------
