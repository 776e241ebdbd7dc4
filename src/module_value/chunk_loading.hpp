#pragma once
// BF.LOADCHUNK past its first chunk, apart from Redis (dump_commands.cpp; the fuzz target): a
// chunk goes to the image a key's value is receiving, at the offset its iterator names.

#include <cstdint>
#include <string_view>

#include "module_value.hpp"

namespace bloomkit::redis_module {

// `iterator` (chunk_iterator.hpp) is 1 + the payload offset just after `data`, perhaps with a
// shape tag and a last-chunk flag (BF.SCANDUMP's). value.loading must be set. Returns false,
// changing nothing, when the chunk is empty or does not start where the bytes received so far
// end. Throws image_error when the payload is bad (past its end, a chunk of a filter of another
// shape than the header's, a last chunk that leaves the image incomplete, or its checksum or
// fields do not hold once complete). After the last chunk value.filter holds the filter and
// value.loading is reset.
bool load_chunk(module_value& value, std::uint64_t iterator, std::string_view data);

}  // namespace bloomkit::redis_module
