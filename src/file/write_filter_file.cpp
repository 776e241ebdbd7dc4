#include "write_filter_file.hpp"

#include <algorithm>

#include "atomic_file.hpp"
#include "header_codec.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit::detail {

file_header sealed_header(file_header header,
                          std::span<const std::span<const unsigned char>> parts) {
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  header.payload_length = 0;
  for (const auto& part : parts) {
    XXH64_update(&state, part.data(), part.size());
    header.payload_length += part.size();
  }
  header.payload_checksum = XXH64_digest(&state);
  return header;
}

void write_filter_file(const std::filesystem::path& path, file_header header,
                       std::span<const std::span<const unsigned char>> parts) {
  header = sealed_header(header, parts);
  const auto encoded = encode_header(header);

  atomic_file out(path);
  out.write(encoded);
  const unsigned char zeros[payload_alignment] = {};
  for (std::uint64_t gap = header.payload_offset - file_header_size; gap > 0;) {
    const auto n = std::min<std::uint64_t>(gap, sizeof zeros);
    out.write({zeros, static_cast<std::size_t>(n)});
    gap -= n;
  }
  for (const auto& part : parts) out.write(part);
  out.commit();
}

}  // namespace bloomkit::detail
