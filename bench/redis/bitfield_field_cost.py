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
import shutil
import signal
import socket
import subprocess
import tempfile
import time

TYPES = ["u1", "u8", "u16", "u32", "u48", "u63", "i64"]
STRING_BITS = 1 << 27


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
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def command(self, *args):
        self.sock.sendall(encode(*args))
        data = b""
        while not data.endswith(b"\r\n") or data.startswith(b"$") and data.count(b"\r\n") < 2:
            data += self.sock.recv(1 << 20)
        return data

    def server_cpu(self):
        info = self.command("INFO", "CPU").decode()
        fields = dict(line.split(":", 1) for line in info.split("\r\n") if ":" in line)
        return float(fields["used_cpu_user"]) + float(fields["used_cpu_sys"])

    def cost_per_field(self, field_type, commands, fields):
        payload = []
        for _ in range(commands):
            args = ["BITFIELD_RO", "k"]
            for _ in range(fields):
                args += ["GET", field_type, random.randrange(STRING_BITS // 64) * 64]
            payload.append(encode(*args))
        payload = b"".join(payload)
        header = b"*%d\r\n" % fields
        cpu0 = self.server_cpu()
        self.sock.sendall(payload)
        received = b""
        while received.count(header) < commands:
            received += self.sock.recv(1 << 22)
        return (self.server_cpu() - cpu0) * 1e6 / (commands * fields)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--commands", type=int, default=2000)
    parser.add_argument("--fields", type=int, default=1000)
    o = parser.parse_args()
    random.seed(1)
    directory = tempfile.mkdtemp(prefix="bloomkit-bitfield-cost-")
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1",
                             "--dir", directory, "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        conn = Connection(port)
        conn.command("SETRANGE", "k", STRING_BITS // 8 - 1, "x")
        print(f"load average {os.getloadavg()}; server CPU µs per GET field")
        for _ in range(o.rounds):
            print(" ".join(f"{t}: {conn.cost_per_field(t, o.commands, o.fields):.3f}"
                           for t in TYPES), flush=True)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
