#!/usr/bin/env python3
"""Server CPU and keys/s of the Redis module's BF.MADD / BF.MEXISTS (issue 18).

Starts a redis-server with bloomkit_redis_module.so on a free port in a temporary directory,
reserves a filter for N keys at p = 0.01, then sends N keys in commands of BATCH keys: all
commands RESP-encoded before the clock starts and pipelined over one socket, replies read as bytes
(their length is known: an array of BATCH one-digit integers), so the client adds as little as
it can. Server CPU is the delta of INFO's used_cpu_user + used_cpu_sys over the phase. Each
round also sends the same keys as SMISMEMBER on a missing set: Redis's own cost for a command of
BATCH arguments answering BATCH integers, the floor under any module command, measured
interleaved with the module's so that the load of a shared machine hits both alike.

With --window DURATION (issue 14), each round also reserves a window filter for the same N keys
per window (BK.RESERVE ... KIND window WINDOW DURATION SLICES S) and sends the same BF.MADD /
BF.MEXISTS to it, interleaved, and the medians of the per-round ratios window / blocked are
printed: the module's window against the module's own static filter.

  bench/redis/module_bench.py build/release/src/redis_module/bloomkit_redis_module.so \
      [--keys 1000000] [--capacity N] [--batch 1000] [--rounds 3] [--window 7d [--slices 8]]

--capacity sizes both filters for N keys (default: --keys), so that filters larger than the
caches are timed without sending N keys.

With --fpp P1,P2,... (issue 29) it times BF.RESERVE's default layout (a scaling filter for N
keys) at each error rate instead, and reports MEMORY USAGE of that key after the adds and of a
NONSCALING one just reserved (and what used_memory grew by for it); with --baseline OTHER.so the
same runs on a second server with another build of the module (say, main's), the two servers'
rounds interleaved:

  bench/redis/module_bench.py build/release/src/redis_module/bloomkit_redis_module.so \
      --baseline main.so --fpp 0.01,0.0001,0.000001 --rounds 7
"""

import argparse
import contextlib
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def encode(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Connection:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_and_read(self, payload, reply_bytes):
        self.sock.sendall(payload)
        received = 0
        chunks = []
        while received < reply_bytes:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("server closed the connection")
            received += len(chunk)
            chunks.append(chunk)
        return b"".join(chunks)

    def command(self, *args):
        self.sock.sendall(encode(*args))
        data = b""
        while not data.endswith(b"\r\n") or data.startswith(b"$") and data.count(b"\r\n") < 2:
            data += self.sock.recv(1 << 20)
        return data


@contextlib.contextmanager
def redis_server(*extra):
    """A redis-server (with `extra` arguments) on a free 127.0.0.1 port in a temporary directory,
    killed by PID at the end: yields a Connection to it."""
    directory = tempfile.mkdtemp(prefix="bloomkit-redis-bench-")
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", directory, "--save", "", "--appendonly", "no", *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield connect(port)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        shutil.rmtree(directory, ignore_errors=True)


def connect(port, timeout=10):
    """A Connection to the server on `port` once it accepts one (it may still be starting)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return Connection(port)
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def server_cpu(conn):
    info = conn.command("INFO", "CPU").decode()
    fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
    return float(fields["used_cpu_user"]) + float(fields["used_cpu_sys"])


def used_memory(conn):
    info = conn.command("INFO", "MEMORY").decode()
    return int(info.split("used_memory:")[1].split()[0])


def phase(conn, command, key, keys, batch):
    payload = b"".join(encode(command, key, *keys[i:i + batch]) for i in range(0, len(keys), batch))
    reply_bytes = sum(len(b"*%d\r\n" % len(keys[i:i + batch])) + 4 * len(keys[i:i + batch])
                      for i in range(0, len(keys), batch))
    cpu0 = server_cpu(conn)
    t0 = time.perf_counter()
    reply = conn.send_and_read(payload, reply_bytes)
    wall = time.perf_counter() - t0
    cpu = server_cpu(conn) - cpu0
    assert b"-" not in reply, reply[:200]
    return wall, cpu, reply


def layouts_main(o):
    """--fpp / --baseline: the default layout of BF.RESERVE at each p, in this module and (with
    --baseline) another build of it, each on its own server, their rounds interleaved."""
    capacity = o.capacity or o.keys
    keys = [f"https://example.com/item/{i:09d}".encode() for i in range(o.keys)]
    fpps = [p.strip() for p in o.fpp.split(",")]
    modules = [("new", o.module)] + ([("baseline", o.baseline)] if o.baseline else [])
    payloads = {command: b"".join(encode(command, key, *keys[i:i + o.batch])
                                  for i in range(0, len(keys), o.batch))
                for command, key in (("BF.MADD", "bench"), ("BF.MEXISTS", "bench"),
                                     ("SMISMEMBER", "bench-missing-set"))}
    reply_bytes = sum(len(b"*%d\r\n" % len(keys[i:i + o.batch])) + 4 * len(keys[i:i + o.batch])
                      for i in range(0, len(keys), o.batch))
    with contextlib.ExitStack() as stack:
        conns = {name: stack.enter_context(redis_server("--loadmodule", os.path.abspath(path)))
                 for name, path in modules}
        print(f"{platform.processor() or platform.machine()}; {os.cpu_count()} CPUs; "
              f"load average {os.getloadavg()}")
        print(f"{o.keys} keys, filters reserved for {capacity}, {o.batch} keys per command, "
              f"{o.rounds} rounds; modules: " + ", ".join(f"{n} = {p}" for n, p in modules))
        rows = {}
        memory = {}
        for round in range(o.rounds):
            for p in fpps:
                for name, conn in conns.items():
                    conn.command("DEL", "bench", "bench-ns")
                    used = used_memory(conn)
                    conn.command("BF.RESERVE", "bench-ns", p, capacity, "NONSCALING")
                    memory[(name, p, "NONSCALING, reserved")] = int(
                        conn.command("MEMORY", "USAGE", "bench-ns")[1:].split(b"\r\n")[0])
                    memory[(name, p, "NONSCALING, reserved: used_memory grew by")] = (
                        used_memory(conn) - used)
                    conn.command("BF.RESERVE", "bench", p, capacity)
                    for command in ("BF.MADD", "BF.MEXISTS", "SMISMEMBER"):
                        cpu0 = server_cpu(conn)
                        t0 = time.perf_counter()
                        reply = conn.send_and_read(payloads[command], reply_bytes)
                        wall = time.perf_counter() - t0
                        cpu = server_cpu(conn) - cpu0
                        assert b"-" not in reply, reply[:200]
                        if command == "BF.MEXISTS":
                            assert reply.count(b":1\r\n") == o.keys, "a false negative"
                        rows.setdefault((name, p, command), []).append(
                            (o.keys / wall, cpu * 1e6 / o.keys))
                    memory[(name, p, "scaling, after the adds")] = int(
                        conn.command("MEMORY", "USAGE", "bench")[1:].split(b"\r\n")[0])
            print(f"round {round + 1} done; load average {os.getloadavg()}", flush=True)
        print("| module | p | command | keys/s (median) | server CPU s per 10^6 keys (median) "
              "| rounds' CPU range |")
        print("|---|---|---|---:|---:|---|")
        for (name, p, command), figures in rows.items():
            cpus = [f[1] for f in figures]
            print(f"| {name} | {p} | {command} | {statistics.median(f[0] for f in figures):,.0f} "
                  f"| {statistics.median(cpus):.3f} | {min(cpus):.3f}-{max(cpus):.3f} |")
        print("| module | p | key | MEMORY USAGE |")
        print("|---|---|---|---:|")
        for (name, p, what), usage in memory.items():
            print(f"| {name} | {p} | {what} | {usage:,} |")


def main():

    parser = argparse.ArgumentParser()
    parser.add_argument("module")
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--capacity", type=int, help="keys both filters are sized for")
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--window", help="also time a window filter of this WINDOW (e.g. 7d)")
    parser.add_argument("--slices", type=int, default=8)
    parser.add_argument("--fpp", help="comma-separated error rates: time BF.RESERVE's default "
                        "layout at each (with MEMORY USAGE), interleaved with --baseline")
    parser.add_argument("--baseline", help="another build of the module to time alongside")
    o = parser.parse_args()
    if o.fpp or o.baseline:
        o.fpp = o.fpp or "0.01"
        layouts_main(o)
        return
    capacity = o.capacity or o.keys
    keys = [f"https://example.com/item/{i:09d}".encode() for i in range(o.keys)]
    with redis_server("--loadmodule", os.path.abspath(o.module)) as conn:
        version = conn.command("INFO", "SERVER").decode().split("redis_version:")[1].split()[0]
        print(f"redis-server {version}; {platform.processor() or platform.machine()}; "
              f"{os.cpu_count()} CPUs; load average {os.getloadavg()}")
        print(f"{o.keys} keys, filters sized for {capacity} at p = 0.01, {o.batch} keys per command")
        rows = {}
        phases = [("BF.MADD", "static"), ("BF.MEXISTS", "static"), ("SMISMEMBER", None)]
        if o.window:
            print(f"window: WINDOW {o.window} SLICES {o.slices}, {capacity} keys per window")
            phases += [("BF.MADD", "window"), ("BF.MEXISTS", "window")]
        print("| round | command | keys/s | server CPU s per 1e6 keys |")
        print("|---:|---|---:|---:|")
        for round in range(o.rounds):
            keys_of = {"static": f"bench{round}", "window": f"window{round}", None:
                       "bench-missing-set"}
            conn.command("BF.RESERVE", keys_of["static"], "0.01", capacity)
            if o.window:
                reply = conn.command("BK.RESERVE", keys_of["window"], capacity, "0.01", "KIND",
                                     "window", "WINDOW", o.window, "SLICES", o.slices)
                assert reply.startswith(b"+OK"), reply
            for command, kind in phases:
                wall, cpu, reply = phase(conn, command, keys_of[kind], keys, o.batch)
                if command == "BF.MEXISTS":
                    assert reply.count(b":1\r\n") == o.keys, "a false negative"
                name = command if kind != "window" else f"{command} (window)"
                rows.setdefault(name, []).append((o.keys / wall, cpu * 1e6 / o.keys))
                print(f"| {round + 1} | {name} | {o.keys / wall:,.0f} | "
                      f"{cpu * 1e6 / o.keys:.3f} |", flush=True)
            conn.command("DEL", keys_of["static"], keys_of["window"])
        for command, figures in rows.items():
            print(f"| median | {command} | {statistics.median(f[0] for f in figures):,.0f} | "
                  f"{statistics.median(f[1] for f in figures):.3f} |")
        if o.window:
            print("| window / static (median of rounds) | keys/s | server CPU per key |")
            print("|---|---:|---:|")
            for command in ("BF.MADD", "BF.MEXISTS"):
                pairs = list(zip(rows[f"{command} (window)"], rows[command]))
                speed = statistics.median(w[0] / s[0] for w, s in pairs)
                cost = statistics.median(w[1] / s[1] for w, s in pairs)
                print(f"| {command} | {speed:.2f} | {cost:.2f} |")


if __name__ == "__main__":
    main()
