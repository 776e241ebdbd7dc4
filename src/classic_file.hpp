#pragma once
// Internal: save / load / map of the classic filter for any probe policy (native or interop).
// src/file.cpp instantiates them for the native policy; interop code does for its policies.

#include <cstring>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "file_format.hpp"

namespace bloomkit::detail {

// The bits past m in the last word, which a writer keeps at 0.
void check_tail_bits(const file_header& h, const unsigned char* payload, const std::string& source);

inline filter_config classic_config(const file_header& h) {
  return {h.bits, h.hashes, h.capacity, h.target_fpp};
}

template <class Policy>
file_header classic_header(const basic_bloom_filter<Policy>& f) {
  file_header h;
  h.kind = filter_kind::classic;
  h.scheme = Policy::scheme;
  h.bits = f.bits();
  h.hashes = f.hashes();
  h.capacity = f.capacity();
  h.target_fpp = f.target_fpp();
  h.inserted = f.inserted();
  h.payload_offset = file_header_size;
  return h;
}

template <class Policy>
void save_classic(const basic_bloom_filter<Policy>& f, const std::filesystem::path& path,
                  file_header header) {
  const auto words = f.storage().words();
  const std::span<const unsigned char> parts[] = {
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()}};
  write_filter_file(path, header, parts);
}

template <class Policy>
void save_classic(const basic_bloom_filter<Policy>& f, const std::filesystem::path& path) {
  save_classic(f, path, classic_header(f));
}

template <class Policy>
basic_bloom_filter<Policy> load_classic(const filter_file& file) {
  const file_header& h = file.header();
  file.require(filter_kind::classic, Policy::scheme);
  bit_array storage(h.bits);
  auto words = storage.mutable_words();
  const std::span<unsigned char> bytes(reinterpret_cast<unsigned char*>(words.data()),
                                       words.size_bytes());
  file.read_payload(bytes);
  check_tail_bits(h, bytes.data(), file.source());
  return filter_access::make<basic_bloom_filter<Policy>>(classic_config(h), std::move(storage),
                                                        h.inserted);
}

template <class Policy>
basic_bloom_filter<Policy> map_classic(const filter_file& file, verify check) {
  const file_header& h = file.header();
  file.require(filter_kind::classic, Policy::scheme);
  mapped_payload payload = file.map_payload(check);
  if (check == verify::full) check_tail_bits(h, payload.data, file.source());
  auto storage = bit_array::view(reinterpret_cast<const std::uint64_t*>(payload.data), h.bits,
                                 std::move(payload.owner));
  return filter_access::make<basic_bloom_filter<Policy>>(classic_config(h), std::move(storage),
                                                        h.inserted);
}

}  // namespace bloomkit::detail
