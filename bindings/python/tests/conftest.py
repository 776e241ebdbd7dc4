"""Fixtures of the Python tests: the CLI (BLOOMKIT_EXE, set by CTest) and a real redis-server
started on a free 127.0.0.1 port in a temporary directory and stopped by its PID, as the C++
tests do (tests/support/redis_server.cpp)."""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time

import pytest


def pytest_configure(config):
    """Under CTest the suite tests the package pip installed into a venv (BLOOMKIT_PYTHON_VENV,
    CMakeLists.txt here): a bloomkit found anywhere else, the build tree's or the system's, would
    make every test pass for the wrong copy."""
    venv = os.environ.get("BLOOMKIT_PYTHON_VENV")
    if venv:
        import bloomkit
        where = pathlib.Path(bloomkit.__file__).resolve()
        if pathlib.Path(venv).resolve() not in where.parents:
            raise pytest.UsageError(f"bloomkit was imported from {where}, not from {venv}")


@pytest.fixture(scope="session")
def cli():
    exe = os.environ.get("BLOOMKIT_EXE")
    if not exe or not os.path.exists(exe):
        pytest.skip("BLOOMKIT_EXE (the bloomkit CLI) is not set: CTest sets it")

    def run(*args, stdin=None, check=True):
        p = subprocess.run([exe, *map(str, args)], input=stdin, capture_output=True)
        if check and p.returncode != 0:
            raise AssertionError(f"bloomkit {args}: {p.returncode} {p.stderr!r}")
        return p

    return run


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self, directory, *extra):
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed (scripts/setup installs it)")
        for _ in range(5):
            self.port = _free_port()
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                 "--dir", str(directory), "--save", "", "--appendonly", "no", *extra],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._wait_ready():
                return
            self.stop()  # the port was taken between the check and the bind: another
        raise RuntimeError("redis-server did not start")

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def _wait_ready(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return True
            except OSError:
                time.sleep(0.05)
        return False

    def command(self, *args):
        """One command over RESP, its reply as bytes / int / list (an error raises): enough for
        the tests to read a filter's raw keys without a Redis client library."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
            parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
            s.sendall(b"*%d\r\n" % len(parts) +
                      b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
            return _read_reply(s.makefile("rb"))

    def stop(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def _read_reply(f):
    line = f.readline()[:-2]
    kind, rest = line[:1], line[1:]
    if kind == b"+":
        return rest
    if kind == b"-":
        raise RuntimeError(rest.decode())
    if kind == b":":
        return int(rest)
    if kind == b"$":
        return None if int(rest) < 0 else f.read(int(rest) + 2)[:-2]
    if kind == b"*":
        return [_read_reply(f) for _ in range(int(rest))]
    raise RuntimeError(f"unexpected RESP reply {line!r}")


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):
    """A redis-server with bloomkit's module loaded (BLOOMKIT_REDIS_MODULE, set by CTest)."""
    module = os.environ.get("BLOOMKIT_REDIS_MODULE")
    if not module or not os.path.exists(module):
        pytest.skip("BLOOMKIT_REDIS_MODULE (the module's .so) is not set: CTest sets it")
    server = RedisServer(tmp_path_factory.mktemp("redis_module"), "--loadmodule", module)
    yield server
    server.stop()
