// Files of the counting filter (kind 3): the header of the classic filter with m = counters,
// and a payload of 4m bits, the counters exactly as they lie in memory (docs/FORMAT.md).

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/file.hpp"
#include "classic_file.hpp"
#include "file_format.hpp"

namespace bloomkit {
namespace detail {
namespace {

filter_config counting_config(const file_header& h) {
  return {h.bits, h.hashes, h.capacity, h.target_fpp};
}

// Counters past m (nibbles of the last word) are 0: the bit-level check over 4m bits.
void check_counter_tail(const file_header& h, const unsigned char* payload,
                        const std::string& source) {
  file_header as_bits = h;
  as_bits.bits = h.bits * 4;
  check_tail_bits(as_bits, payload, source);
}

}  // namespace

void check_counting_fields(const file_header& h, const std::string& source) {
  try {
    validate_params(h.bits, h.hashes);
  } catch (const error& e) {
    fail_file(errc::corrupt_file, source, std::string("inconsistent header: ") + e.what());
  }
  if (h.bits > counting_bloom_filter::max_counters) {
    fail_file(errc::corrupt_file, source,
              "inconsistent header: " + std::to_string(h.bits) +
                  " counters exceed the maximum of " +
                  std::to_string(counting_bloom_filter::max_counters));
  }
  if (h.flags != 0) {
    fail_file(errc::unsupported, source,
              "header flags " + std::to_string(h.flags) + " are not supported");
  }
  const std::uint64_t expected = bytes_for_bits(h.bits * 4);
  if (h.payload_length != expected) {
    fail_file(errc::corrupt_file, source,
              "inconsistent header: payload length " + std::to_string(h.payload_length) + " for " +
                  std::to_string(h.bits) + " 4-bit counters (expected " + std::to_string(expected) +
                  ")");
  }
  for (std::uint64_t p : h.kind_params) {
    if (p != 0) {
      fail_file(errc::corrupt_file, source, "inconsistent header: reserved fields are set");
    }
  }
}

}  // namespace detail

void save(const counting_bloom_filter& filter, const std::filesystem::path& path) {
  file_header h;
  h.kind = filter_kind::counting;
  h.scheme = filter.scheme();
  h.bits = filter.counters();
  h.hashes = filter.hashes();
  h.capacity = filter.capacity();
  h.target_fpp = filter.target_fpp();
  h.inserted = filter.inserted();
  h.payload_offset = file_header_size;
  const auto words = filter.storage().words();
  const std::span<const unsigned char> parts[] = {
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()}};
  detail::write_filter_file(path, h, parts);
}

template <>
counting_bloom_filter load<counting_bloom_filter>(const std::filesystem::path& path) {
  const detail::filter_file file(path);
  const file_header& h = file.header();
  file.require(filter_kind::counting, counting_bloom_filter::scheme());
  bit_array storage(h.bits * 4);
  auto words = storage.mutable_words();
  const std::span<unsigned char> bytes(reinterpret_cast<unsigned char*>(words.data()),
                                       words.size_bytes());
  file.read_payload(bytes);
  detail::check_counter_tail(h, bytes.data(), file.source());
  return detail::filter_access::make<counting_bloom_filter>(detail::counting_config(h),
                                                           std::move(storage), h.inserted);
}

template <>
counting_bloom_filter map<counting_bloom_filter>(const std::filesystem::path& path, verify check) {
  const detail::filter_file file(path);
  const file_header& h = file.header();
  file.require(filter_kind::counting, counting_bloom_filter::scheme());
  detail::mapped_payload payload = file.map_payload(check);
  if (check == verify::full) detail::check_counter_tail(h, payload.data, file.source());
  auto storage = bit_array::view(reinterpret_cast<const std::uint64_t*>(payload.data), h.bits * 4,
                                 std::move(payload.owner));
  return detail::filter_access::make<counting_bloom_filter>(detail::counting_config(h),
                                                           std::move(storage), h.inserted);
}

}  // namespace bloomkit
