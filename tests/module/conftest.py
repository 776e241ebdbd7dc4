"""Fixtures of the Redis module's tests: real redis-servers with bloomkit_redis_module.so
(BLOOMKIT_REDIS_MODULE, set by CTest) loaded, each on a free 127.0.0.1 port in its own
temporary directory, stopped by PID. A server can be restarted on its directory (and port) to
check what it reloads."""

import os
import shutil
import signal
import socket
import subprocess
import time

import pytest
import redis

READY_TIMEOUT = 20


def built_file(variable, what):
    """The path in environment variable `variable` (a build's output, set by CTest); skips the
    test when it is not set or not there."""
    path = os.environ.get(variable)
    if not path or not os.path.exists(path):
        pytest.skip(f"{variable} ({what}) is not set: CTest sets it")
    return path


def module_path():
    return built_file("BLOOMKIT_REDIS_MODULE", "the module's .so")


def fake_module_path():
    return built_file("BLOOMKIT_FAKE_BLOOM_MODULE", "the stand-in for RedisBloom")


def cli_path():
    return built_file("BLOOMKIT_EXE", "the bloomkit CLI")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, what, timeout=READY_TIMEOUT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


class ModuleServer:
    """One redis-server with the module loaded; its log is `log` in its directory."""

    def __init__(self, directory, *extra):
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed (scripts/setup installs it)")
        self.directory = directory
        self.extra = list(extra)
        self.port = None
        self.proc = None
        self.start()

    @property
    def log_path(self):
        return os.path.join(self.directory, "log")

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def command_line(self):
        return ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.directory), "--logfile", self.log_path,
                "--save", "", "--appendonly", "no", "--enable-debug-command", "yes",
                "--loadmodule", module_path(), *self.extra]

    def start(self, expect_ready=True):
        keep_port = self.port is not None
        for _ in range(5):
            if not keep_port:
                self.port = free_port()
            self.proc = subprocess.Popen(self.command_line(), stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            if not expect_ready:
                return
            if self._wait_ready():
                return
            self.kill()
            if keep_port:
                break
        raise RuntimeError("redis-server did not start:\n" + self.log())

    def _wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if self.client().ping():
                    return True
            except (redis.ConnectionError, redis.BusyLoadingError):
                time.sleep(0.02)
        return False

    def client(self, **kwargs):
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)

    def cli(self, *args):
        """redis-cli's output of one command (errors included, as it prints them)."""
        p = subprocess.run(["redis-cli", "-p", str(self.port), *map(str, args)],
                           capture_output=True, text=True, errors="replace",
                           timeout=30)
        assert p.returncode == 0, p.stderr
        return p.stdout

    def restart(self):
        """Stops gracefully (SHUTDOWN NOSAVE keeps the files as they are) and starts again."""
        self.stop()
        self.start()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.proc = None

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.proc = None


@pytest.fixture
def server_factory(tmp_path):
    servers = []
    counter = [0]

    def make(*extra):
        counter[0] += 1
        directory = tmp_path / f"server{counter[0]}"
        directory.mkdir()
        server = ModuleServer(directory, *extra)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.kill()


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory):
    server = ModuleServer(tmp_path_factory.mktemp("module"))
    yield server
    server.kill()


@pytest.fixture
def r(shared_server):
    client = shared_server.client()
    client.flushall()
    yield client
    client.close()


def raw(r, *command):
    """The reply of a command as the server sent it, without the parsing bf() installs."""
    r.response_callbacks.pop(command[0], None)
    return r.execute_command(*command)


@pytest.fixture(scope="module")
def bloomkit():
    """Runs the bloomkit CLI (BLOOMKIT_EXE): bloomkit(*args, stdin=None, check=True)."""
    exe = cli_path()

    def run(*args, stdin=None, check=True):
        p = subprocess.run([exe, *map(str, args)], input=stdin, capture_output=True, text=True,
                           timeout=60)
        if check:
            assert p.returncode == 0, f"bloomkit {args}: {p.returncode} {p.stderr}"
        return p

    return run


def url(server):
    return f"redis://127.0.0.1:{server.port}"
