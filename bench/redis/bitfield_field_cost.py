#!/usr/bin/env python3
"""Redis's server CPU per BITFIELD_RO GET field, by field type (issue 14).

Could a window lookup read only the span of a key's mask instead of a whole 64-bit word? Starts a
redis-server on a free port in a temporary directory, makes a 16 MiB string, and sends COMMANDS
BITFIELD_RO commands of FIELDS `GET <type> <offset>` fields each at random word offsets,
pipelined over one socket, for each type in turn. Prints the server CPU (delta of INFO's
used_cpu_user + used_cpu_sys) per field in microseconds, one line per round.

  bench/redis/bitfield_field_cost.py [--rounds 3] [--commands 2000] [--fields 1000]
"""

import argparse
import os
import random

from module_bench import encode, redis_server, server_cpu

TYPES = ["u1", "u8", "u16", "u32", "u48", "u63", "i64"]
STRING_BITS = 1 << 27


def cost_per_field(conn, field_type, commands, fields):
    payload = []
    for _ in range(commands):
        args = ["BITFIELD_RO", "k"]
        for _ in range(fields):
            args += ["GET", field_type, random.randrange(STRING_BITS // 64) * 64]
        payload.append(encode(*args))
    payload = b"".join(payload)
    header = b"*%d\r\n" % fields
    cpu0 = server_cpu(conn)
    conn.sock.sendall(payload)
    received = b""
    while received.count(header) < commands:
        received += conn.sock.recv(1 << 22)
    return (server_cpu(conn) - cpu0) * 1e6 / (commands * fields)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--fields", type=int, default=1000)
    o = parser.parse_args()
    random.seed(1)
    with redis_server() as conn:
        conn.command("SETRANGE", "k", STRING_BITS // 8 - 1, "x")
        print(f"load average {os.getloadavg()}; server CPU µs per GET field")
        for _ in range(o.rounds):
            print(" ".join(f"{t}: {cost_per_field(conn, t, o.commands, o.fields):.3f}"
                           for t in TYPES), flush=True)


if __name__ == "__main__":
    main()
