#!/usr/bin/env python3
"""usec_per_call (INFO commandstats) and server CPU of BF.MADD / BF.MEXISTS of 1000 keys on three
kinds of key in one redis-server with bloomkit's module (issue 29), rounds interleaved:

- bkbloom--: what BF.RESERVE k p 10^6 NONSCALING makes (RedisBloom's chain, bloomkit's hashing);
- MBbloom--: the same chain with RedisBloom's hashing (its BF.SCANDUMP header with option bit 16
  cleared, loaded by BF.LOADCHUNK: a RedisBloom key as the module takes it over);
- classic: BK.RESERVE k 10^6 p KIND classic (bloomkit's own classic filter).

Each round fills the key with 10^6 keys (BF.MADD of 1000, pipelined), then sends 1000 BF.MEXISTS
of 500 present and 500 absent keys. Uses Debian's python3-redis.

  /usr/bin/python3 bench/redis/chain_cpu.py build/release/src/redis_module/bloomkit_redis_module.so [rounds]
"""

import redis, subprocess, sys, time, tempfile, socket, struct, statistics
so = sys.argv[1]; rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
N = 1_000_000
def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0)); return s.getsockname()[1]
port = free_port(); d = tempfile.mkdtemp()
proc = subprocess.Popen(["redis-server", "--port", str(port), "--dir", d, "--save", "", "--loadmodule", so], stdout=subprocess.DEVNULL)
time.sleep(0.5)
r = redis.Redis(port=port)
ADD = [[f"key:{i}" for i in range(s, s + 1000)] for s in range(0, N, 1000)]
LOOK = [[f"key:{i}" for i in range(s, s + 500)] + [f"absent:{i}" for i in range(s, s + 500)] for s in range(0, N, 1000)]
def cpu():
    i = r.info("cpu"); return i["used_cpu_user"] + i["used_cpu_sys"]
def create(kind, p):
    r.flushall()
    if kind == "bkbloom--":
        r.execute_command("BF.RESERVE", "k", p, N, "NONSCALING")
    elif kind == "classic":
        r.execute_command("BK.RESERVE", "k", N, p, "KIND", "classic")
    elif kind == "MBbloom--":
        r.execute_command("BF.RESERVE", "tmp", p, N, "NONSCALING")
        it, hdr = r.execute_command("BF.SCANDUMP", "tmp", 0)
        hdr = bytearray(hdr); opts = struct.unpack_from("<I", hdr, 12)[0]
        struct.pack_into("<I", hdr, 12, opts & ~16)
        r.execute_command("BF.LOADCHUNK", "k", 1, bytes(hdr)); r.delete("tmp")
    assert r.type("k").decode() == {"classic": "bloomkit1"}.get(kind, kind)
def phase(cmd, batches):
    r.config_resetstat(); c0 = cpu()
    pipe = r.pipeline(transaction=False)
    for j, b in enumerate(batches):
        pipe.execute_command(cmd, "k", *b)
        if j % 50 == 49: pipe.execute()
    pipe.execute()
    c1 = cpu()
    s = r.info("commandstats")["cmdstat_" + cmd.lower()]
    return s["usec_per_call"], c1 - c0
res = {}
kinds = ["bkbloom--", "MBbloom--", "classic"]
try:
    for p in [1e-2, 1e-4, 1e-6]:
        for _ in range(rounds):
            for kind in kinds:
                create(kind, p)
                a = phase("BF.MADD", ADD); l = phase("BF.MEXISTS", LOOK)
                res.setdefault((p, kind), []).append((a, l))
        for kind in kinds:
            v = res[(p, kind)]
            print(f"p={p:g} {kind:10s} BF.MADD {statistics.median(x[0][0] for x in v):6.1f} us/call, CPU {statistics.median(x[0][1] for x in v):.3f} s/1e6 keys | "
                  f"BF.MEXISTS {statistics.median(x[1][0] for x in v):6.1f} us/call, CPU {statistics.median(x[1][1] for x in v):.3f} s | rounds MADD {[round(x[0][0]) for x in v]} MEXISTS {[round(x[1][0]) for x in v]}", flush=True)
finally:
    proc.terminate(); proc.wait()
