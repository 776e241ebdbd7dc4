"""DUMP payloads of RedisBloom's type written here, field by field (the vectors' README,
"Encodings"): any encoding version RedisBloom loads, and hostile ones. A payload is type byte 7,
the module id (0x81 + 8 bytes big-endian: the type name's and the encoding version's bits), the
opcode-tagged fields (2 unsigned, 4 double, 5 string), EOF, the RDB version and Redis's CRC-64.
Also the layout of BF.SCANDUMP's header chunk, for headers written here."""

import struct

RDB_VERSION = 10
# BF.SCANDUMP's header chunk: the chain (items, links, options, growth), then each link (bytes,
# bits, items, error, bits per entry, hashes, entries, n2).
SCANDUMP_HEADER = struct.Struct("<QIII")
SCANDUMP_LINK = struct.Struct("<QQQddIQB")


def _crc64_table():
    poly = 0x95AC9329AC4BC9B5  # Jones' polynomial 0xad93d23594c935a9, reflected
    table = []
    for i in range(256):
        crc = i
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _crc64_table()


def crc64(data):
    crc = 0
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc


def rdb_length(n):
    if n < 1 << 6:
        return bytes([n])
    if n < 1 << 14:
        return bytes([0x40 | n >> 8, n & 0xFF])
    if n < 1 << 32:
        return b"\x80" + n.to_bytes(4, "big")
    return b"\x81" + n.to_bytes(8, "big")


def unsigned(n):
    return b"\x02" + rdb_length(n)


def double(x):
    return b"\x04" + struct.pack("<d", x)


def string(data):
    return b"\x05" + rdb_length(len(data)) + data


def module_id(dump, encver):
    """The id of `dump`'s type (a vector's DUMP payload) at encoding version `encver`."""
    return (int.from_bytes(dump[2:10], "big") & ~1023) | encver


def payload(type_id, fields, rdb_version=RDB_VERSION):
    body = b"\x07\x81" + type_id.to_bytes(8, "big") + b"".join(fields) + b"\x00"
    body += struct.pack("<H", rdb_version)
    return body + struct.pack("<Q", crc64(body))


def links_of(v):
    """A vector's links: its decoded fields and its bit arrays (from the BF.SCANDUMP chunks)."""
    bits = b"".join(data for _, data in v.chunks[1:])
    out, offset = [], 0
    for link in v.data["decoded"]["links"]:
        f = dict(link)
        f["error"] = struct.unpack("<d", int(link["error_bits"], 16).to_bytes(8, "little"))[0]
        f["bpe"] = struct.unpack("<d", int(link["bpe_bits"], 16).to_bytes(8, "little"))[0]
        f["array"] = bits[offset:offset + link["bytes"]]
        offset += link["bytes"]
        out.append(f)
    return out


def chain_fields(v, encver, links=None, **changes):
    """A vector's chain as the fields of encoding version `encver` (RedisBloom's BFRdbSave and
    the versions before: 0 has no options, growth, bits nor n2; 1 adds bits and n2; 2 and 3 add
    options; 4 adds growth). `changes` overrides chain fields (size, nfilters, options,
    growth)."""
    d = v.data["decoded"]
    links = links_of(v) if links is None else links
    head = {"size": d["size"], "nfilters": len(links), "options": d["options"],
            "growth": d["growth"], **changes}
    fields = [unsigned(head["size"]), unsigned(head["nfilters"])]
    if encver >= 2:
        fields.append(unsigned(head["options"]))
    if encver >= 4:
        fields.append(unsigned(head["growth"]))
    for f in links:
        fields += [unsigned(f["entries"]), double(f["error"]), unsigned(f["hashes"]),
                   double(f["bpe"])]
        if encver >= 1:
            fields += [unsigned(f["bits"]), unsigned(f["n2"])]
        fields += [string(f["array"]), unsigned(f["size"])]
    return fields
