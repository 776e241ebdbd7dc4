#include "header_codec.hpp"

#include <bit>
#include <cmath>

#include "bloomkit/kinds.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

static_assert(std::endian::native == std::endian::little,
              "files are little-endian and mapped without conversion");

namespace {

constexpr unsigned char magic[8] = {'B', 'L', 'O', 'O', 'M', 'K', 'I', 'T'};

using detail::file_check;
using detail::file_problem;
using detail::get_le;
using detail::put_le;

// Steps 1-5 of docs/FORMAT.md, "Reading a file": what must hold before the fields mean anything.
file_check check_framing(std::span<const unsigned char> bytes) {
  if (bytes.size() < file_header_size) {
    return file_problem{errc::corrupt_file, "truncated: " + std::to_string(bytes.size()) +
                                                " bytes, a header needs " +
                                                std::to_string(file_header_size)};
  }
  const unsigned char* p = bytes.data();
  if (std::memcmp(p, magic, sizeof magic) != 0) {
    return file_problem{errc::corrupt_file, "not a bloomkit filter file (bad magic)"};
  }
  const auto version = get_le<std::uint32_t>(p, 8);
  if (version != file_format_version) {
    return file_problem{errc::unsupported, "format version " + std::to_string(version) +
                                               " is not supported (this build reads version " +
                                               std::to_string(file_format_version) + ")"};
  }
  if (get_le<std::uint32_t>(p, 12) != file_header_size) {
    return detail::inconsistent_header("header size field is wrong");
  }
  if (get_le<std::uint64_t>(p, detail::header_checksum_offset) !=
      XXH64(p, detail::header_checksum_offset, 0)) {
    return file_problem{errc::corrupt_file, "header checksum mismatch (the header is corrupt)"};
  }
  const auto kind = get_le<std::uint32_t>(p, 16);
  if (!is_known(static_cast<filter_kind>(kind))) {
    return file_problem{errc::unsupported,
                        "filter kind " + std::to_string(kind) + " is not supported"};
  }
  const auto scheme = get_le<std::uint32_t>(p, 20);
  if (!is_known(static_cast<hash_scheme>(scheme))) {
    return file_problem{errc::unsupported,
                        "hash scheme " + std::to_string(scheme) + " is not supported"};
  }
  return {};
}

// The kind's fields as the filter type of the file's kind (and, with `scheme`, its scheme: the
// layouts of one kind differ by scheme, as the windows do) checks them. Returns whether one did.
template <class... Filters>
bool check_fields_of(const file_header& h, filter_list<Filters...>, bool scheme,
                     file_check& problem) {
  bool checked = false;
  const auto try_one = [&]<class Filter>() {
    if (checked || kind_traits<Filter>::kind != h.kind) return;
    if (scheme && !holds_scheme<Filter>(h.scheme)) return;
    checked = true;
    problem = kind_traits<Filter>::check_fields(h);
  };
  (try_one.template operator()<Filters>(), ...);
  return checked;
}

}  // namespace

std::array<unsigned char, file_header_size> encode_header(const file_header& h) {
  std::array<unsigned char, file_header_size> out{};
  unsigned char* p = out.data();
  std::memcpy(p, magic, sizeof magic);
  put_le<std::uint32_t>(p, 8, h.format_version);
  put_le<std::uint32_t>(p, 12, static_cast<std::uint32_t>(file_header_size));
  put_le<std::uint32_t>(p, 16, static_cast<std::uint32_t>(h.kind));
  put_le<std::uint32_t>(p, 20, static_cast<std::uint32_t>(h.scheme));
  put_le<std::uint64_t>(p, 24, h.bits);
  put_le<std::uint32_t>(p, 32, h.hashes);
  put_le<std::uint32_t>(p, 36, h.flags);
  put_le<std::uint64_t>(p, 40, h.capacity);
  put_le<double>(p, 48, h.target_fpp);
  put_le<std::uint64_t>(p, 56, h.inserted);
  put_le<std::uint64_t>(p, 64, h.payload_offset);
  put_le<std::uint64_t>(p, 72, h.payload_length);
  put_le<std::uint64_t>(p, 80, h.payload_checksum);
  for (std::size_t i = 0; i < h.kind_params.size(); ++i) {
    put_le<std::uint64_t>(p, 88 + 8 * i, h.kind_params[i]);
  }
  put_le<std::uint64_t>(p, detail::header_checksum_offset,
                        XXH64(p, detail::header_checksum_offset, 0));
  return out;
}

file_header decode_header(std::span<const unsigned char> bytes, const std::string& source) {
  detail::throw_if(check_framing(bytes), source);
  const unsigned char* p = bytes.data();
  file_header h;
  h.format_version = get_le<std::uint32_t>(p, 8);
  h.kind = static_cast<filter_kind>(get_le<std::uint32_t>(p, 16));
  h.scheme = static_cast<hash_scheme>(get_le<std::uint32_t>(p, 20));
  h.bits = get_le<std::uint64_t>(p, 24);
  h.hashes = get_le<std::uint32_t>(p, 32);
  h.flags = get_le<std::uint32_t>(p, 36);
  h.capacity = get_le<std::uint64_t>(p, 40);
  h.target_fpp = get_le<double>(p, 48);
  h.inserted = get_le<std::uint64_t>(p, 56);
  h.payload_offset = get_le<std::uint64_t>(p, 64);
  h.payload_length = get_le<std::uint64_t>(p, 72);
  h.payload_checksum = get_le<std::uint64_t>(p, 80);
  for (std::size_t i = 0; i < h.kind_params.size(); ++i) {
    h.kind_params[i] = get_le<std::uint64_t>(p, 88 + 8 * i);
  }
  detail::throw_if(detail::check_common_fields(h), source);
  detail::throw_if(detail::check_kind_fields(h), source);
  return h;
}

namespace detail {

file_check check_common_fields(const file_header& h) {
  if (h.capacity < 1) return inconsistent_header("capacity is 0");
  if (!std::isfinite(h.target_fpp) || !(h.target_fpp > 0) || !(h.target_fpp < 1)) {
    return inconsistent_header("target fpp is not in (0, 1)");
  }
  if (h.payload_offset < file_header_size || h.payload_offset % payload_alignment != 0) {
    return inconsistent_header("payload offset " + std::to_string(h.payload_offset) +
                               " is not a multiple of 64 at or past the header");
  }
  return {};
}

file_check check_kind_fields(const file_header& h) {
  file_check problem;
  if (!check_fields_of(h, native_filters{}, true, problem)) {
    check_fields_of(h, native_kinds{}, false, problem);
  }
  return problem;
}

file_check check_file_size(const file_header& h, std::uint64_t file_size) {
  const std::uint64_t expected = h.payload_offset + h.payload_length;
  if (file_size < expected) {
    return file_problem{errc::corrupt_file, "truncated: " + std::to_string(file_size) +
                                                " bytes, the header announces " +
                                                std::to_string(expected)};
  }
  if (file_size > expected) {
    return file_problem{errc::corrupt_file, std::to_string(file_size - expected) +
                                                " unexpected bytes after the payload"};
  }
  return {};
}

}  // namespace detail
}  // namespace bloomkit
