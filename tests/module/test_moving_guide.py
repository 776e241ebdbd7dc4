"""docs/REDIS.md, "Moving from RedisBloom": every command of the guide, run in order against real
servers (port, paths and directories substituted). RedisBloom's part is played by its recorded
data (tests/data/redisbloom, or BLOOMKIT_REDISBLOOM_VECTORS): its keys are RESTOREd from the DUMP
payloads it made into a server of bloomkit's drop-in, which serves them byte for byte as
RedisBloom did (module.redisbloom_data); `/path/to/redisbloom.so` beside COEXIST is the stand-in
module of module.coexist. The guide's last line starts RedisBloom itself, which is not here: the
test checks the file it would load instead."""

import os
import re
import shlex
import signal
import subprocess
from pathlib import Path

import redis

from conftest import (ModuleServer, cli_path, fake_module_path, free_port, module_path,
                      wait_for)
from redisbloom_vectors import vectors

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "REDIS.md"
# The guide's keys and the recorded RedisBloom keys they stand for.
KEYS = {"users": 0, "orders": 1, "sessions": 2}
PROBES = ["alice", "mallory"]


def guide_blocks():
    """The ```sh blocks of the guide's section, each a list of command lines."""
    text = GUIDE.read_text()
    section = text[text.index("### Moving from RedisBloom"):]
    section = section[:section.index("\n### ", 1)]
    return [block.strip().splitlines() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


def wait_ready(port):
    client = redis.Redis(host="127.0.0.1", port=port)

    def answers():
        try:
            return client.ping()
        except (redis.ConnectionError, redis.BusyLoadingError):
            return False

    wait_for(answers, f"a server on port {port}")
    return client


def wait_gone(pid):
    def gone():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(gone, f"redis-server {pid} to stop")


def answers(client, key):
    items = [*PROBES, *vectors()[KEYS[key]].items[:200]]
    return client.execute_command("BF.MEXISTS" if client.type(key) == b"MBbloom--" else
                                  "BK.MEXISTS", key, *items)


def test_every_command_of_the_guide_runs(tmp_path):
    bloomkit = cli_path()
    fake = fake_module_path()
    main_dir, coexist_dir = tmp_path / "redis", tmp_path / "redis-coexist"
    main_dir.mkdir()
    coexist_dir.mkdir()
    ports = {"6379": str(free_port()), "6380": str(free_port())}
    pids = []

    # RedisBloom's server, before the swap: its keys as it DUMPed them, and one add it answered.
    before = ModuleServer(main_dir)
    before.stop()
    before.port = int(ports["6379"])
    before.start()
    r = before.client()
    for key, index in KEYS.items():
        r.restore(key, 0, vectors()[index].dump)
    r.execute_command("BF.ADD", "users", "alice")
    expected = {key: answers(r, key) for key in KEYS}
    sessions_dump = r.dump("sessions")
    assert expected["users"][0] == 1

    def substitute(line):
        line = line.replace("/usr/lib/bloomkit/bloomkit_redis_module.so", module_path())
        line = line.replace("/path/to/redisbloom.so", fake)
        line = line.replace("/var/lib/redis-coexist", str(coexist_dir))
        line = line.replace("/var/lib/redis", str(main_dir))
        for documented, real in ports.items():
            line = line.replace(documented, real)
        words = shlex.split(line)
        return [bloomkit, *words[1:]] if words[0] == "bloomkit" else words

    def run(words):
        if words[0] == "redis-server":
            subprocess.run(words, check=True, timeout=30)
            wait_ready(int(words[words.index("--port") + 1]))
            pidfile = Path(words[words.index("--pidfile") + 1])
            pids.append(int(pidfile.read_text()))
            return ""
        p = subprocess.run(words, cwd=tmp_path, capture_output=True, text=True, timeout=60)
        if words[-2:] != ["SHUTDOWN", "SAVE"]:
            assert p.returncode == 0 and "ERR" not in p.stdout, (words, p.stdout, p.stderr)
        return p.stdout

    blocks = guide_blocks()
    assert len(blocks) == 4
    try:
        # 1. Swap the module: the keys stay RedisBloom's and answer as before.
        run(substitute(blocks[0][0]))
        before.proc.wait(timeout=20)
        for line in blocks[0][1:]:
            run(substitute(line))
        swapped = wait_ready(int(ports["6379"]))
        assert swapped.type("users") == b"MBbloom--"
        assert {key: answers(swapped, key) for key in KEYS} == expected
        assert swapped.execute_command("BF.EXISTS", "users", "carol") == 1

        # 2. Convert: bloomkit's type, the same answers.
        for line in blocks[1]:
            run(substitute(line))
        assert swapped.type("users") == b"bloomkit1" and swapped.type("orders") == b"bloomkit1"
        assert answers(swapped, "orders") == expected["orders"]
        assert answers(swapped, "users")[1:] == expected["users"][1:]

        # 3. Beside RedisBloom: a copy of `sessions` in bloomkit's type answers as RedisBloom's.
        for line in blocks[2]:
            run(substitute(line))
        beside = wait_ready(int(ports["6380"]))
        assert beside.type("sessions") == b"bloomkit1"
        assert answers(beside, "sessions") == expected["sessions"]

        # 4. Roll back: the saved file holds RedisBloom's bytes of the key never converted (a
        # DUMP payload is the RDB value between its type byte and its 10-byte trailer).
        shutdown, start_redisbloom = blocks[3]
        assert "/path/to/redisbloom.so" in start_redisbloom
        run(substitute(shutdown))
        wait_gone(pids.pop(0))
        assert sessions_dump[1:-10] in (main_dir / "dump.rdb").read_bytes()
        again = ModuleServer(main_dir)
        try:
            assert {key: answers(again.client(), key) for key in ("orders", "sessions")} == {
                key: expected[key] for key in ("orders", "sessions")}
        finally:
            again.kill()
    finally:
        before.kill()
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
