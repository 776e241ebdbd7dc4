// Files of the blocked filter (kind 2, docs/FORMAT.md): the classic layout (the bits as
// little-endian u64 words at offset 128) with a size in whole 256-bit blocks and k = 8.

#include <string>
#include <utility>

#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/file.hpp"
#include "file_format.hpp"

namespace bloomkit {

namespace detail {

void check_blocked_fields(const file_header& h, const std::string& source) {
  // The payload is a bit array like the classic kind's; what the classic checks accept
  // (m and k in range, flags 0, payload of ceil(m / 64) words, reserved fields 0) is required.
  check_classic_fields(h, source);
  if (h.bits % blocked_block_bits != 0) {
    fail_file(errc::corrupt_file, source,
              "inconsistent header: bits " + std::to_string(h.bits) +
                  " of a blocked filter are not a multiple of " +
                  std::to_string(blocked_block_bits));
  }
  if (h.hashes != blocked_hashes) {
    fail_file(errc::corrupt_file, source,
              "inconsistent header: hashes " + std::to_string(h.hashes) +
                  " of a blocked filter are not " + std::to_string(blocked_hashes));
  }
}

}  // namespace detail

namespace {

filter_config blocked_config(const file_header& h) {
  return {h.bits, h.hashes, h.capacity, h.target_fpp};
}

}  // namespace

void save(const blocked_bloom_filter& f, const std::filesystem::path& path) {
  file_header h;
  h.kind = filter_kind::blocked;
  h.scheme = blocked_bloom_filter::scheme();
  h.bits = f.bits();
  h.hashes = f.hashes();
  h.capacity = f.capacity();
  h.target_fpp = f.target_fpp();
  h.inserted = f.inserted();
  h.payload_offset = file_header_size;
  const auto words = f.storage().words();
  const std::span<const unsigned char> parts[] = {
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()}};
  detail::write_filter_file(path, h, parts);
}

template <>
blocked_bloom_filter load<blocked_bloom_filter>(const std::filesystem::path& path) {
  const detail::filter_file file(path);
  file.require(filter_kind::blocked, blocked_bloom_filter::scheme());
  const file_header& h = file.header();
  bit_array storage(h.bits);
  auto words = storage.mutable_words();
  file.read_payload({reinterpret_cast<unsigned char*>(words.data()), words.size_bytes()});
  return detail::filter_access::make<blocked_bloom_filter>(blocked_config(h), std::move(storage),
                                                          h.inserted);
}

template <>
blocked_bloom_filter map<blocked_bloom_filter>(const std::filesystem::path& path, verify check) {
  const detail::filter_file file(path);
  file.require(filter_kind::blocked, blocked_bloom_filter::scheme());
  const file_header& h = file.header();
  detail::mapped_payload payload = file.map_payload(check);
  auto storage = bit_array::view(reinterpret_cast<const std::uint64_t*>(payload.data), h.bits,
                                 std::move(payload.owner));
  return detail::filter_access::make<blocked_bloom_filter>(blocked_config(h), std::move(storage),
                                                          h.inserted);
}

}  // namespace bloomkit
