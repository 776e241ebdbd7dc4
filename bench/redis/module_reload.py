#!/usr/bin/env python3
"""Time to load module keys from an RDB: DEBUG RELOAD of a large filter and a scalable chain.

Starts one redis-server per module given (module_bench.py's helper: a free port, a temporary
directory, killed by PID), reserves in each a blocked filter of CAPACITY keys at p = 0.01 (about
120 MB for 10^8) and a scalable filter grown to several sub-filters, then times DEBUG RELOAD
(save the RDB, empty the server, load it: the module's rdb_save and rdb_load of every key). With
two modules the reloads alternate, so that a shared machine's load hits both alike; the medians
and `used_memory` after each reload are printed.

  bench/redis/module_reload.py BEFORE.so [AFTER.so] [--capacity 100000000] [--rounds 7]
"""

import argparse
import contextlib
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from module_bench import redis_server  # noqa: E402


def used_memory(conn):
    info = conn.command("INFO", "MEMORY").decode()
    fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
    return int(fields["used_memory"])


def fill(conn, capacity):
    conn.command("BF.RESERVE", "big", "0.01", capacity, "NONSCALING")
    conn.command("BF.RESERVE", "chain", "0.01", 1000)
    keys = [b"key:%d" % i for i in range(20000)]
    for start in range(0, len(keys), 1000):
        conn.command("BF.MADD", "big", *keys[start:start + 1000])
        conn.command("BF.MADD", "chain", *keys[start:start + 1000])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modules", nargs="+")
    parser.add_argument("--capacity", type=int, default=100_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    o = parser.parse_args()
    with contextlib.ExitStack() as stack:
        servers = []
        for module in o.modules:
            conn = stack.enter_context(redis_server("--enable-debug-command", "yes", "--loadmodule",
                                                    os.path.abspath(module)))
            fill(conn, o.capacity)
            servers.append((module, conn, [], []))
        for _ in range(o.rounds):
            for _, conn, seconds, memory in servers:
                start = time.perf_counter()
                reply = conn.command("DEBUG", "RELOAD")
                seconds.append(time.perf_counter() - start)
                if not reply.startswith(b"+OK"):
                    raise RuntimeError("DEBUG RELOAD answered %r" % reply)
                memory.append(used_memory(conn))
        for module, _, seconds, memory in servers:
            print("%s: reload median %.3f s (%s), used_memory %.1f MB" %
                  (module, statistics.median(seconds), ", ".join("%.3f" % s for s in seconds),
                   statistics.median(memory) / 1e6))


if __name__ == "__main__":
    main()
