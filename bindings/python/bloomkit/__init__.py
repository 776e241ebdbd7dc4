"""bloomkit: Bloom filters at C++ speed, with stable hashing and the same files and Redis
filters as the C++ library and the `bloomkit` CLI.

    import bloomkit
    f = bloomkit.BloomFilter.for_capacity(1_000_000, 0.01)
    f.add("https://example.com/a")          # True: the key was new
    "https://example.com/a" in f            # True
    f.add_many(urls); f.contains_many(urls)
    f.save("urls.bloom")                    # the CLI reads it: bloomkit query urls.bloom ...
    g = bloomkit.open_mapped("urls.bloom")  # zero-copy, shared by every process that maps it

Errors derive from bloomkit.Error (with .code, a bloomkit.ErrorCode) and from the fitting
built-in: ValueError for bad parameters, OSError for files, ConnectionError for an unreachable
Redis, ...
"""

from ._bloomkit import *  # noqa: F401,F403
from ._bloomkit import __version__, has_redis  # noqa: F401

__all__ = [name for name in dir() if not name.startswith("_")]
