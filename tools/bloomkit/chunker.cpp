#include "chunker.hpp"

#include <algorithm>
#include <cstring>

namespace bloomkit::cli {

std::size_t chunk_size_for(std::uint64_t bytes, unsigned workers) {
  constexpr std::uint64_t min_chunk = 256 * 1024;
  constexpr std::uint64_t max_chunk = 8 * 1024 * 1024;
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(bytes / (workers * 8ull + 1), min_chunk, max_chunk));
}

bool for_each_chunk(std::string_view bytes, std::size_t chunk_size,
                    const std::function<bool(std::string_view)>& emit) {
  std::size_t begin = 0;
  while (begin < bytes.size()) {
    std::size_t end = std::min(bytes.size(), begin + std::max<std::size_t>(chunk_size, 1));
    if (end < bytes.size()) {
      const auto* newline = static_cast<const char*>(
          std::memchr(bytes.data() + end - 1, '\n', bytes.size() - end + 1));
      end = newline ? static_cast<std::size_t>(newline - bytes.data()) + 1 : bytes.size();
    }
    if (!emit(bytes.substr(begin, end - begin))) return false;
    begin = end;
  }
  return true;
}

}  // namespace bloomkit::cli
