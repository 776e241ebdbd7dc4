#pragma once
// A Redis filter's layout as a local filter file and back (internal; docs/REDIS.md, "Push and
// pull"): a bit filter is a classic file, a counting filter a counting file. A native xxh3-128
// file whose cells fit one Redis string (2^32 bits) is a 1-shard filter; a file of the layout's
// own scheme (sharded_scheme) records its shard count in kind_params[0]. The file code knows
// nothing of shards: push and pull check the shard fields here. Layouts count cells (bits of a
// bit filter, counters of a counting one).

#include <string>

#include "bloomkit/file.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis::detail {

// Bits per cell of a file's kind: 1 (classic), 4 (counting); errc::unsupported for the other
// kinds, naming `source`.
unsigned cell_bits_of_file(const file_header& h, const std::string& source);

// The first problem of a sharded_scheme header's shard fields ("inconsistent header: 3 shards
// for 4096 cells (...)"), or "" when they hold (or the header is of another scheme).
std::string sharded_header_problem(const file_header& h, unsigned cell_bits);

// The layout of the filter in a file: errc::corrupt_file for inconsistent shard fields,
// errc::unsupported for a file that is no Redis filter (another kind or scheme, a native file
// whose cells exceed 2^32 bits). `source` names the file in the errors.
shard_layout layout_of_file(const file_header& h, const std::string& source);

// The header of a file holding a filter of `layout` in cells of `cell_bits` (payload fields left
// to the writer). Throws errc::corrupt_file when the layout cannot be one (it came from a checked
// meta, so that is a bug, not a user's error).
file_header header_for(const shard_layout& layout, unsigned cell_bits);

}  // namespace bloomkit::redis::detail
