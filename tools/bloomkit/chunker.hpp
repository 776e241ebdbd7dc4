#pragma once
// Cutting a mapped input into chunks of whole lines for parallel workers (parallel_fill.hpp).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace bloomkit::cli {

// Chunk length for splitting `bytes` of input among `workers`: big enough that queue traffic is
// negligible, small enough that every worker gets several chunks.
std::size_t chunk_size_for(std::uint64_t bytes, unsigned workers);

// Calls emit(chunk) for successive chunks of `bytes` of about `chunk_size` bytes, each extended
// to just past a line end (the last one to the end of `bytes`). Stops early, returning false,
// when emit returns false.
bool for_each_chunk(std::string_view bytes, std::size_t chunk_size,
                    const std::function<bool(std::string_view)>& emit);

}  // namespace bloomkit::cli
