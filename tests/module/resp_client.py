"""A raw RESP client for the conformance tests: sends commands as RESP arrays and returns each
reply with its wire type kept, in RESP2 or, after HELLO 3, RESP3 (booleans '#', maps '%',
nulls '_', doubles ',', sets '~', big numbers '(', verbatim strings '=', attributes '|').
redis-py 4.3.4 speaks RESP2 only and strips error codes; this client shows what the server sent."""

import socket


class SimpleString(str):
    """A '+' reply (a bulk string is returned as bytes)."""


class ErrorReply:
    """A '-' (or '!') reply, returned rather than raised so that arrays can hold one."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return f"ErrorReply({self.text!r})"

    def __eq__(self, other):
        return isinstance(other, ErrorReply) and other.text == self.text


class Push(list):
    """A '>' reply."""


class RespClient:
    def __init__(self, port, protocol=2, host="127.0.0.1", timeout=30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = b""
        if protocol == 3:
            hello = self.call("HELLO", "3")
            assert isinstance(hello, dict), hello

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def call(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for a in args:
            data = a if isinstance(a, bytes) else str(a).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(parts))
        return self._reply()

    def _fill(self):
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buffer += chunk

    def _line(self):
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exact(self, n):
        while len(self.buffer) < n + 2:
            self._fill()
        data, self.buffer = self.buffer[:n], self.buffer[n + 2:]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return SimpleString(rest.decode())
        if kind == b"-":
            return ErrorReply(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            return None if n < 0 else self._exact(n)
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._reply() for _ in range(n)]
        if kind == b"_":
            return None
        if kind == b"#":
            assert rest in (b"t", b"f"), line
            return rest == b"t"
        if kind == b",":
            return float(rest)
        if kind == b"(":
            return int(rest)
        if kind == b"%":
            return {self._key(): self._reply() for _ in range(int(rest))}
        if kind == b"~":
            return set(self._key() for _ in range(int(rest)))
        if kind == b"=":
            return self._exact(int(rest))[4:]
        if kind == b"!":
            return ErrorReply(self._exact(int(rest)).decode())
        if kind == b">":
            return Push(self._reply() for _ in range(int(rest)))
        if kind == b"|":
            for _ in range(int(rest)):  # attributes precede the reply they describe
                self._reply()
                self._reply()
            return self._reply()
        raise AssertionError(f"unknown RESP type in {line!r}")

    def _key(self):
        key = self._reply()
        return tuple(key) if isinstance(key, list) else key
