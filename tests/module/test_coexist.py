"""bloomkit's module beside another module that registers BF.* (docs/REDIS.md, "Coexisting with
RedisBloom"): fake_bloom_module.so (BLOOMKIT_FAKE_BLOOM_MODULE, set by CTest) stands in for
RedisBloom: module `bf`, bf.add and bf.exists answering +fakebloom:..., a data type MBbloom--.
With COEXIST both load and serve their own keys; without it bloomkit's load is refused and the
server carries on."""

import subprocess
import time

import pytest
import redis

from conftest import ModuleServer, fake_module_path, free_port, module_path, raw

ResponseError = redis.exceptions.ResponseError


class ServerWithModules(ModuleServer):
    """A redis-server loading `modules` (each [path, *arguments]) in order, MODULE LOAD allowed."""

    def __init__(self, directory, modules, *extra):
        self.modules = modules
        super().__init__(directory, *extra)

    def command_line(self):
        line = ModuleServer.command_line(self)
        line = line[:line.index("--loadmodule")] + ["--enable-module-command", "yes"]
        for module in self.modules:
            line += ["--loadmodule", *module]
        return line + self.extra


@pytest.fixture
def start(tmp_path):
    servers = []

    def make(*modules):
        directory = tmp_path / f"server{len(servers)}"
        directory.mkdir()
        servers.append(ServerWithModules(directory, [list(m) for m in modules]))
        return servers[-1]

    yield make
    for server in servers:
        server.kill()


def module_names(r):
    return sorted(m[m.index(b"name") + 1].decode() for m in r.execute_command("MODULE", "LIST"))


def test_coexist_serves_bk_beside_another_bf_module(start):
    # COEXIST in any case, among RedisBloom's own module arguments.
    server = start((fake_module_path(),),
                   (module_path(), "ERROR_RATE", "0.01", "coexist", "INITIAL_SIZE", "100"))
    r = server.client()
    assert module_names(r) == ["bf", "bloomkit"]
    assert r.execute_command("BF.ADD", "theirs", "a") == b"fakebloom:add"
    assert r.execute_command("BF.EXISTS", "theirs", "a") == b"fakebloom:exists"
    assert r.execute_command("BK.ADD", "ours", "a") == 1
    assert r.execute_command("BK.MADD", "ours", "a", "b") == [0, 1]
    assert r.execute_command("BK.INSERT", "ours", "ITEMS", "c") == [1]
    assert r.execute_command("BK.MEXISTS", "ours", "a", "b", "c", "d") == [1, 1, 1, 0]
    assert r.execute_command("BK.CARD", "ours") == 3
    assert r.execute_command("BK.RESERVE", "counted", 100, 0.01, "KIND", "counting") == b"OK"
    assert r.type("theirs") == b"MBbloom--" and r.type("ours") == b"bkbloom--"
    # Only bloomkit's own names: no BF.* of bloomkit's, and its INFO section under its name.
    with pytest.raises(ResponseError, match="unknown command"):
        r.execute_command("BF.MADD", "ours", "x")
    with pytest.raises(ResponseError, match="unknown command"):
        r.execute_command("BF.CARD", "ours")
    assert r.info("bloomkit")["bloomkit_filters"] == 2
    assert "# bloomkit\r\nbloomkit_filters:2\r\n" in raw(r, "INFO", "bloomkit").decode()
    docs = raw(r, "COMMAND", "DOCS", "bk.add")
    assert dict(zip(docs[1][::2], docs[1][1::2]))[b"module"] == b"bloomkit"
    # Both types save and load on one server.
    r.save()
    server.restart()
    r = server.client()
    assert r.execute_command("BK.MEXISTS", "ours", "a", "b", "c") == [1, 1, 1]
    assert r.type("theirs") == b"MBbloom--"
    assert r.execute_command("BF.ADD", "theirs", "b") == b"fakebloom:add"


def test_coexist_aof_rewrite_recreates_keys_with_bk_loadchunk(tmp_path):
    # BF.LOADCHUNK is the other module's beside COEXIST: an AOF rewrite must not name it.
    (tmp_path / "s").mkdir()
    server = ServerWithModules(tmp_path / "s", [[fake_module_path()], [module_path(), "COEXIST"]],
                               "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
    try:
        r = server.client()
        items = [f"item{i}" for i in range(2000)]
        r.execute_command("BK.MADD", "ours", *items)
        r.execute_command("BF.ADD", "theirs", "a")
        rewrites = r.info("persistence")["aof_rewrites"]
        r.bgrewriteaof()
        deadline = time.monotonic() + 20
        while True:
            state = r.info("persistence")
            if state["aof_rewrites"] > rewrites and not state["aof_rewrite_in_progress"]:
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        # The base file the manifest names now holds every key, as commands.
        directory = tmp_path / "s" / "appendonlydir"
        manifest = (directory / "appendonly.aof.manifest").read_text().split("\n")
        (base,) = [line.split()[1] for line in manifest if line.endswith("type b")]
        written = (directory / base).read_bytes()
        assert b"BK.LOADCHUNK" in written and b"BF.LOADCHUNK" not in written, server.log()
        server.restart()
        r = server.client()
        assert r.execute_command("BK.MEXISTS", "ours", *items) == [1] * len(items)
        assert r.type("theirs") == b"MBbloom--"
    finally:
        server.kill()


def test_without_coexist_the_load_is_refused_and_the_server_carries_on(start):
    # RedisBloom's name taken: refused before anything registers.
    server = start((fake_module_path(),))
    r = server.client()
    with pytest.raises(ResponseError):
        r.execute_command("MODULE", "LOAD", module_path())
    assert r.ping() and module_names(r) == ["bf"]
    assert "COEXIST" in server.log()
    # Another name, the same type and commands: refused at RedisBloom's type MBbloom-- (registered
    # before the commands), leaving none of its commands behind.
    server = start((fake_module_path(), "NAME", "other"))
    r = server.client()
    with pytest.raises(ResponseError):
        r.execute_command("MODULE", "LOAD", module_path())
    assert r.ping() and module_names(r) == ["other"]
    assert "cannot register RedisBloom's data type MBbloom--" in server.log()
    assert "bf.add" not in {n.decode() for n in r.execute_command("COMMAND", "LIST", "FILTERBY",
                                                                  "MODULE", "bf")}
    assert raw(r, "COMMAND", "INFO", "bk.add", "bf.madd") == [None, None]
    assert r.execute_command("BF.ADD", "k", "a") == b"fakebloom:add"
    # The same file then loads with COEXIST.
    assert r.execute_command("MODULE", "LOAD", module_path(), "COEXIST") == b"OK"
    assert r.execute_command("BK.ADD", "j", "a") == 1
    assert module_names(r) == ["bloomkit", "other"]


def test_without_coexist_a_server_loading_both_at_start_exits_naming_coexist(tmp_path):
    log = tmp_path / "log"
    p = subprocess.run(["redis-server", "--port", str(free_port()), "--bind", "127.0.0.1",
                        "--dir", str(tmp_path), "--logfile", str(log), "--save", "",
                        "--loadmodule", fake_module_path(), "--loadmodule", module_path()],
                       timeout=30, capture_output=True)
    assert p.returncode != 0
    assert "load bloomkit's module with COEXIST" in log.read_text()


def test_coexist_takes_redisbloom_chunks_into_its_own_keys(start):
    # Moving key by key beside RedisBloom: its BF.SCANDUMP chunks (the vectors' here: the stand-in
    # module has no SCANDUMP) go into BK.LOADCHUNK, which makes a key of bloomkit's own type
    # holding RedisBloom's chain, answering every probe as RedisBloom did.
    from redisbloom_vectors import vectors

    server = start((fake_module_path(),), (module_path(), "COEXIST"))
    r = server.client()
    for v in vectors()[:6]:
        for iterator, data in v.chunks:
            assert r.execute_command("BK.LOADCHUNK", v.key, iterator, data) == b"OK"
        assert r.type(v.key) == b"bloomkit1"
        got = []
        for first in range(0, len(v.items) + len(v.absent), 1000):
            got += r.execute_command("BK.MEXISTS", v.key, *(v.items + v.absent)[first:first + 1000])
        assert got == v.expected(), v.key
        assert r.execute_command("BK.CARD", v.key) == v.data["info"]["Number of items inserted"]
    # They keep answering after a restart (bloomkit's image of the chain).
    r.execute_command("SAVE")
    server.restart()
    r = server.client()
    v = vectors()[0]
    assert r.execute_command("BK.MEXISTS", v.key, *v.items[:50]) == [int(c) for c in
                                                                   v.probes["added_answers"][:50]]
