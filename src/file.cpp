#include "bloomkit/file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "classic_file.hpp"
#include "file/atomic_file.hpp"
#include "file/unique_fd.hpp"
#include "file_format.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

static_assert(std::endian::native == std::endian::little,
              "files are little-endian and mapped without conversion");

namespace {

constexpr unsigned char magic[8] = {'B', 'L', 'O', 'O', 'M', 'K', 'I', 'T'};
constexpr std::size_t header_checksum_offset = 120;

std::string describe(const std::filesystem::path& path) {
  return path.string();
}

using detail::fail_errno;
using detail::fail_file;
using detail::unique_fd;

// Little-endian field access at fixed offsets.
template <class T>
void put(unsigned char* out, std::size_t offset, T value) {
  std::memcpy(out + offset, &value, sizeof value);
}
template <class T>
T get(const unsigned char* in, std::size_t offset) {
  T value;
  std::memcpy(&value, in + offset, sizeof value);
  return value;
}

void read_all(int fd, void* data, std::size_t size, std::uint64_t offset,
              const std::string& source) {
  auto* p = static_cast<unsigned char*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, std::min<std::size_t>(size, std::size_t{1} << 30),
                              static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(source, "cannot read");
    }
    if (n == 0) fail_file(errc::corrupt_file, source, "truncated: unexpected end of file");
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

// Checks of the fields every kind has; the kind's own fields are checked by check_kind_fields.
void check_consistency(const file_header& h, const std::string& source) {
  if (h.capacity < 1) fail_file(errc::corrupt_file, source, "inconsistent header: capacity is 0");
  if (!std::isfinite(h.target_fpp) || !(h.target_fpp > 0) || !(h.target_fpp < 1)) {
    fail_file(errc::corrupt_file, source, "inconsistent header: target fpp is not in (0, 1)");
  }
  if (h.payload_offset < file_header_size || h.payload_offset % detail::payload_alignment != 0) {
    fail_file(errc::corrupt_file, source,
              "inconsistent header: payload offset " + std::to_string(h.payload_offset) +
                  " is not a multiple of 64 at or past the header");
  }
}

void check_kind_fields(const file_header& h, const std::string& source) {
  switch (h.kind) {
    case filter_kind::classic:
      detail::check_classic_fields(h, source);
      return;
    case filter_kind::blocked:
      detail::check_blocked_fields(h, source);
      return;
    case filter_kind::counting:
      detail::check_counting_fields(h, source);
      return;
    case filter_kind::scalable:
      detail::check_scalable_fields(h, source);
      return;
  }
}

void check_size(const file_header& h, std::uint64_t file_size, const std::string& source) {
  const std::uint64_t expected = h.payload_offset + h.payload_length;
  if (file_size < expected) {
    fail_file(errc::corrupt_file, source,
              "truncated: " + std::to_string(file_size) + " bytes, the header announces " +
                  std::to_string(expected));
  }
  if (file_size > expected) {
    fail_file(errc::corrupt_file, source,
              std::to_string(file_size - expected) + " unexpected bytes after the payload");
  }
}

void check_payload_checksum(const file_header& h, const unsigned char* payload,
                            const std::string& source) {
  if (XXH64(payload, h.payload_length, 0) != h.payload_checksum) {
    fail_file(errc::corrupt_file, source,
              "payload checksum mismatch (the filter's bits are corrupt)");
  }
}

}  // namespace

bool is_known(filter_kind kind) noexcept {
  return kind == filter_kind::classic || kind == filter_kind::blocked ||
         kind == filter_kind::counting || kind == filter_kind::scalable;
}

std::string_view to_string(filter_kind kind) noexcept {
  switch (kind) {
    case filter_kind::classic:
      return "classic";
    case filter_kind::blocked:
      return "blocked";
    case filter_kind::counting:
      return "counting";
    case filter_kind::scalable:
      return "scalable";
  }
  return "unknown";
}

std::array<unsigned char, file_header_size> encode_header(const file_header& h) {
  std::array<unsigned char, file_header_size> out{};
  unsigned char* p = out.data();
  std::memcpy(p, magic, sizeof magic);
  put<std::uint32_t>(p, 8, h.format_version);
  put<std::uint32_t>(p, 12, static_cast<std::uint32_t>(file_header_size));
  put<std::uint32_t>(p, 16, static_cast<std::uint32_t>(h.kind));
  put<std::uint32_t>(p, 20, static_cast<std::uint32_t>(h.scheme));
  put<std::uint64_t>(p, 24, h.bits);
  put<std::uint32_t>(p, 32, h.hashes);
  put<std::uint32_t>(p, 36, h.flags);
  put<std::uint64_t>(p, 40, h.capacity);
  put<double>(p, 48, h.target_fpp);
  put<std::uint64_t>(p, 56, h.inserted);
  put<std::uint64_t>(p, 64, h.payload_offset);
  put<std::uint64_t>(p, 72, h.payload_length);
  put<std::uint64_t>(p, 80, h.payload_checksum);
  for (std::size_t i = 0; i < h.kind_params.size(); ++i) {
    put<std::uint64_t>(p, 88 + 8 * i, h.kind_params[i]);
  }
  put<std::uint64_t>(p, header_checksum_offset, XXH64(p, header_checksum_offset, 0));
  return out;
}

file_header decode_header(std::span<const unsigned char> bytes, const std::string& source) {
  if (bytes.size() < file_header_size) {
    fail_file(errc::corrupt_file, source,
              "truncated: " + std::to_string(bytes.size()) + " bytes, a header needs " +
                  std::to_string(file_header_size));
  }
  const unsigned char* p = bytes.data();
  if (std::memcmp(p, magic, sizeof magic) != 0) {
    fail_file(errc::corrupt_file, source, "not a bloomkit filter file (bad magic)");
  }
  file_header h;
  h.format_version = get<std::uint32_t>(p, 8);
  if (h.format_version != file_format_version) {
    fail_file(errc::unsupported, source,
              "format version " + std::to_string(h.format_version) +
                  " is not supported (this build reads version " +
                  std::to_string(file_format_version) + ")");
  }
  if (get<std::uint32_t>(p, 12) != file_header_size) {
    fail_file(errc::corrupt_file, source, "inconsistent header: header size field is wrong");
  }
  if (get<std::uint64_t>(p, header_checksum_offset) != XXH64(p, header_checksum_offset, 0)) {
    fail_file(errc::corrupt_file, source, "header checksum mismatch (the header is corrupt)");
  }
  h.kind = static_cast<filter_kind>(get<std::uint32_t>(p, 16));
  if (!is_known(h.kind)) {
    fail_file(errc::unsupported, source,
              "filter kind " + std::to_string(get<std::uint32_t>(p, 16)) + " is not supported");
  }
  h.scheme = static_cast<hash_scheme>(get<std::uint32_t>(p, 20));
  if (!is_known(h.scheme)) {
    fail_file(errc::unsupported, source,
              "hash scheme " + std::to_string(get<std::uint32_t>(p, 20)) + " is not supported");
  }
  h.bits = get<std::uint64_t>(p, 24);
  h.hashes = get<std::uint32_t>(p, 32);
  h.flags = get<std::uint32_t>(p, 36);
  h.capacity = get<std::uint64_t>(p, 40);
  h.target_fpp = get<double>(p, 48);
  h.inserted = get<std::uint64_t>(p, 56);
  h.payload_offset = get<std::uint64_t>(p, 64);
  h.payload_length = get<std::uint64_t>(p, 72);
  h.payload_checksum = get<std::uint64_t>(p, 80);
  for (std::size_t i = 0; i < h.kind_params.size(); ++i) {
    h.kind_params[i] = get<std::uint64_t>(p, 88 + 8 * i);
  }
  check_consistency(h, source);
  check_kind_fields(h, source);
  return h;
}

// --- shared machinery (file_format.hpp) -----------------------------------------------------

namespace detail {

void fail_file(errc code, const std::string& source, const std::string& problem) {
  throw error(code, source + ": " + problem);
}

void fail_errno(const std::string& source, const std::string& action) {
  fail_file(errc::io_error, source, action + ": " + std::strerror(errno));
}

void write_filter_file(const std::filesystem::path& path, file_header header,
                       std::span<const std::span<const unsigned char>> parts) {
  const std::string source = describe(path);
  XXH64_state_t state;
  XXH64_reset(&state, 0);
  header.payload_length = 0;
  for (const auto& part : parts) {
    XXH64_update(&state, part.data(), part.size());
    header.payload_length += part.size();
  }
  header.payload_checksum = XXH64_digest(&state);
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

void check_classic_fields(const file_header& h, const std::string& source) {
  try {
    validate_params(h.bits, h.hashes);
  } catch (const error& e) {
    fail_file(errc::corrupt_file, source, std::string("inconsistent header: ") + e.what());
  }
  if ((h.flags & ~file_flag_int64_keys) != 0) {
    fail_file(errc::unsupported, source,
              "header flags " + std::to_string(h.flags) + " are not supported");
  }
  const std::uint64_t expected = bytes_for_bits(h.bits);
  if (h.payload_length != expected) {
    fail_file(errc::corrupt_file, source,
              "inconsistent header: payload length " + std::to_string(h.payload_length) + " for " +
                  std::to_string(h.bits) + " bits (expected " + std::to_string(expected) + ")");
  }
  // kind_params[0] of a redis_sharded_xxh3 file is its shard count (equal shards of whole words,
  // each at most a Redis string of 2^32 bits; docs/REDIS.md); every other reserved field is 0.
  std::size_t used = 0;
  if (h.scheme == hash_scheme::redis_sharded_xxh3) {
    const std::uint64_t shards = h.kind_params[0];
    if (shards < 2 || h.bits % shards != 0 || h.bits / shards % 64 != 0 ||
        h.bits / shards > (std::uint64_t{1} << 32)) {
      fail_file(errc::corrupt_file, source,
                "inconsistent header: " + std::to_string(shards) + " shards for " +
                    std::to_string(h.bits) +
                    " bits (need 2 or more equal shards of whole 64-bit words, at most 2^32 bits "
                    "each)");
    }
    used = 1;
  }
  for (std::size_t i = used; i < h.kind_params.size(); ++i) {
    if (h.kind_params[i] != 0) {
      fail_file(errc::corrupt_file, source, "inconsistent header: reserved fields are set");
    }
  }
}

void check_tail_bits(const file_header& h, const unsigned char* payload,
                     const std::string& source) {
  if (h.bits % 64 == 0) return;
  const auto last = get<std::uint64_t>(payload, h.payload_length - 8);
  if (last >> (h.bits % 64) != 0) {
    fail_file(errc::corrupt_file, source, "inconsistent payload: bits set past the filter's size");
  }
}

filter_file::filter_file(const std::filesystem::path& path) : source_(describe(path)) {
  unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno(source_, "cannot open");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(source_, "cannot stat");
  if (!S_ISREG(st.st_mode)) fail_file(errc::io_error, source_, "not a regular file");
  size_ = static_cast<std::uint64_t>(st.st_size);
  unsigned char bytes[file_header_size];
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(size_, sizeof bytes));
  read_all(fd.get(), bytes, n, 0, source_);
  header_ = decode_header({bytes, n}, source_);
  check_size(header_, size_, source_);
  fd_ = fd.release();
}

filter_file::~filter_file() {
  if (fd_ >= 0) ::close(fd_);
}

void filter_file::require(filter_kind kind, hash_scheme scheme) const {
  if (header_.kind != kind) {
    fail_file(errc::unsupported, source_,
              "holds a " + std::string(to_string(header_.kind)) + " filter, not a " +
                  std::string(to_string(kind)) + " one");
  }
  if (header_.scheme != scheme) {
    fail_file(errc::unsupported, source_,
              "uses hash scheme " + std::string(to_string(header_.scheme)) + ", not " +
                  std::string(to_string(scheme)));
  }
}

void filter_file::read_payload(std::span<unsigned char> dest) const {
  if (dest.size() != header_.payload_length) {
    fail_file(errc::corrupt_file, source_, "inconsistent header: payload length");
  }
  read_all(fd_, dest.data(), dest.size(), header_.payload_offset, source_);
  check_payload_checksum(header_, dest.data(), source_);
}

mapped_payload filter_file::map_payload(verify check) const {
  auto file = std::make_shared<mapped_file>(fd_, size_, source_);
  // A writer overwriting the file in place (cp) rewrites the header first, so the header
  // checksum, which covers the payload's checksum too, tells any other contents from these.
  const auto header = encode_header(header_);
  file->watch(header_checksum_offset, get<std::uint64_t>(header.data(), header_checksum_offset));
  const unsigned char* payload = file->data() + header_.payload_offset;
  if (check == verify::full) {
    try {
      check_payload_checksum(header_, payload, source_);
    } catch (const error&) {
      file->check();  // a file that changed while it was read says so, rather than "corrupt"
      throw;
    }
  }
  file->check();
  return {payload, std::move(file)};
}

}  // namespace detail

// --- the classic filter ------------------------------------------------------------------

void save(const bloom_filter& filter, const std::filesystem::path& path) {
  detail::save_classic(filter, path);
}

file_header read_header(const std::filesystem::path& path) {
  return detail::filter_file(path).header();
}

raw_filter load_raw(const std::filesystem::path& path) {
  const detail::filter_file file(path);
  const file_header& h = file.header();
  if (h.kind != filter_kind::classic) {
    fail_file(errc::unsupported, file.source(),
              "holds a " + std::string(to_string(h.kind)) + " filter, not a classic one");
  }
  bit_array storage(h.bits);
  auto words = storage.mutable_words();
  const std::span<unsigned char> bytes(reinterpret_cast<unsigned char*>(words.data()),
                                       words.size_bytes());
  file.read_payload(bytes);
  detail::check_tail_bits(h, bytes.data(), file.source());
  return {h, std::move(storage)};
}

void save_raw(const file_header& header, const bit_array& bits, const std::filesystem::path& path) {
  const std::string source = describe(path);
  if (bits.size() != header.bits || header.kind != filter_kind::classic) {
    throw error(errc::invalid_argument, source + ": " + std::to_string(bits.size()) +
                                            " bits for a header of a " +
                                            std::string(to_string(header.kind)) + " filter of " +
                                            std::to_string(header.bits) + " bits");
  }
  file_header h = header;
  h.payload_offset = file_header_size;
  h.payload_length = bits.byte_size();
  check_consistency(h, source);
  check_kind_fields(h, source);
  const auto words = bits.words();
  const std::span<const unsigned char> parts[] = {
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()}};
  detail::write_filter_file(path, h, parts);
}

template <>
bloom_filter load<bloom_filter>(const std::filesystem::path& path) {
  return detail::load_classic<xxh3_probe_policy>(detail::filter_file(path));
}

template <>
bloom_filter map<bloom_filter>(const std::filesystem::path& path, verify check) {
  return detail::map_classic<xxh3_probe_policy>(detail::filter_file(path), check);
}

}  // namespace bloomkit
