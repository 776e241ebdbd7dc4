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

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

static_assert(std::endian::native == std::endian::little,
              "files are little-endian and mapped without conversion");

namespace {

constexpr unsigned char magic[8] = {'B', 'L', 'O', 'O', 'M', 'K', 'I', 'T'};
constexpr std::uint64_t payload_alignment = 64;
constexpr std::size_t header_checksum_offset = 120;

std::string describe(const std::filesystem::path& path) {
  return path.string();
}

[[noreturn]] void fail(errc code, const std::string& source, const std::string& problem) {
  throw error(code, source + ": " + problem);
}

[[noreturn]] void fail_errno(const std::string& source, const std::string& action) {
  fail(errc::io_error, source, action + ": " + std::strerror(errno));
}

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

class unique_fd {
 public:
  explicit unique_fd(int fd) : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

void write_all(int fd, const void* data, std::size_t size, const std::string& source) {
  const auto* p = static_cast<const unsigned char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, std::min<std::size_t>(size, std::size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(source, "cannot write");
    }
    p += n;
    size -= static_cast<std::size_t>(n);
  }
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
    if (n == 0) fail(errc::corrupt_file, source, "truncated: unexpected end of file");
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

struct opened_file {
  unique_fd fd;
  std::uint64_t size;
};

opened_file open_for_reading(const std::filesystem::path& path) {
  const std::string source = describe(path);
  unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno(source, "cannot open");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(source, "cannot stat");
  if (!S_ISREG(st.st_mode)) fail(errc::io_error, source, "not a regular file");
  return {std::move(fd), static_cast<std::uint64_t>(st.st_size)};
}

std::uint64_t expected_payload_length(const file_header& h) {
  switch (h.kind) {
    case filter_kind::classic:
      return bytes_for_bits(h.bits);
  }
  return 0;
}

// kind_params[0] of a redis_sharded_xxh3 file is its shard count (equal shards of whole words,
// each at most a Redis string of 2^32 bits; docs/REDIS.md); every other reserved field is 0.
void check_scheme_params(const file_header& h, const std::string& source) {
  std::size_t used = 0;
  if (h.scheme == hash_scheme::redis_sharded_xxh3) {
    const std::uint64_t shards = h.kind_params[0];
    if (shards < 2 || h.bits % shards != 0 || h.bits / shards % 64 != 0 ||
        h.bits / shards > (std::uint64_t{1} << 32)) {
      fail(errc::corrupt_file, source,
           "inconsistent header: " + std::to_string(shards) + " shards for " +
               std::to_string(h.bits) +
               " bits (need 2 or more equal shards of whole 64-bit words, "
               "at most 2^32 bits each)");
    }
    used = 1;
  }
  for (std::size_t i = used; i < h.kind_params.size(); ++i) {
    if (h.kind_params[i] != 0) {
      fail(errc::corrupt_file, source, "inconsistent header: reserved fields are set");
    }
  }
}

// Header fields that only make sense together; checked after the checksum, so a failure here
// means a writer bug or a deliberately forged file, and is still reported, never trusted.
void check_consistency(const file_header& h, const std::string& source) {
  try {
    validate_params(h.bits, h.hashes);
  } catch (const error& e) {
    fail(errc::corrupt_file, source, std::string("inconsistent header: ") + e.what());
  }
  if (h.capacity < 1) fail(errc::corrupt_file, source, "inconsistent header: capacity is 0");
  if (!std::isfinite(h.target_fpp) || !(h.target_fpp > 0) || !(h.target_fpp < 1)) {
    fail(errc::corrupt_file, source, "inconsistent header: target fpp is not in (0, 1)");
  }
  if (h.flags != 0) {
    fail(errc::unsupported, source,
         "header flags " + std::to_string(h.flags) + " are not supported");
  }
  if (h.payload_offset < file_header_size || h.payload_offset % payload_alignment != 0) {
    fail(errc::corrupt_file, source,
         "inconsistent header: payload offset " + std::to_string(h.payload_offset) +
             " is not a multiple of 64 at or past the header");
  }
  const std::uint64_t expected = expected_payload_length(h);
  if (h.payload_length != expected) {
    fail(errc::corrupt_file, source,
         "inconsistent header: payload length " + std::to_string(h.payload_length) + " for " +
             std::to_string(h.bits) + " bits (expected " + std::to_string(expected) + ")");
  }
  check_scheme_params(h, source);
}

void check_size(const file_header& h, std::uint64_t file_size, const std::string& source) {
  const std::uint64_t expected = h.payload_offset + h.payload_length;
  if (file_size < expected) {
    fail(errc::corrupt_file, source,
         "truncated: " + std::to_string(file_size) + " bytes, the header announces " +
             std::to_string(expected));
  }
  if (file_size > expected) {
    fail(errc::corrupt_file, source,
         std::to_string(file_size - expected) + " unexpected bytes after the payload");
  }
}

// Reads the header of an open file, decodes and validates it, and checks the file's size.
file_header read_checked_header(const opened_file& file, const std::string& source) {
  unsigned char bytes[file_header_size];
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(file.size, sizeof bytes));
  read_all(file.fd.get(), bytes, n, 0, source);
  const file_header h = decode_header({bytes, n}, source);
  check_size(h, file.size, source);
  return h;
}

// The payload's checksum, and the bits past m in the last word, which a writer keeps at 0.
void check_payload(const file_header& h, const unsigned char* payload, const std::string& source) {
  if (XXH64(payload, h.payload_length, 0) != h.payload_checksum) {
    fail(errc::corrupt_file, source, "payload checksum mismatch (the filter's bits are corrupt)");
  }
  if (h.bits % 64 != 0) {
    const auto last = get<std::uint64_t>(payload, h.payload_length - 8);
    if (last >> (h.bits % 64) != 0) {
      fail(errc::corrupt_file, source, "inconsistent payload: bits set past the filter's size");
    }
  }
}

file_header header_of(const bloom_filter& f) {
  file_header h;
  h.kind = filter_kind::classic;
  h.scheme = bloom_filter::scheme();
  h.bits = f.bits();
  h.hashes = f.hashes();
  h.capacity = f.capacity();
  h.target_fpp = f.target_fpp();
  h.inserted = f.inserted();
  h.payload_offset = file_header_size;
  h.payload_length = f.byte_size();
  return h;
}

filter_config config_of(const file_header& h) {
  return {h.bits, h.hashes, h.capacity, h.target_fpp};
}

void require_classic(const file_header& h, const std::string& source) {
  if (h.kind != filter_kind::classic) {
    fail(errc::unsupported, source,
         "holds a " + std::string(to_string(h.kind)) + " filter, not a classic one");
  }
  if (h.scheme != bloom_filter::scheme()) {
    fail(errc::unsupported, source,
         "uses hash scheme " + std::string(to_string(h.scheme)) + ", not " +
             std::string(to_string(bloom_filter::scheme())));
  }
}

void write_filter_file(const std::filesystem::path& path, file_header header,
                       std::span<const unsigned char> payload) {
  const std::string source = describe(path);
  header.payload_checksum = XXH64(payload.data(), payload.size(), 0);
  const auto encoded = encode_header(header);

  std::filesystem::path dir = path.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmp_name = ".";
  tmp_name += path.filename().string();
  tmp_name += ".tmp-XXXXXX";
  std::string tmp = (dir / tmp_name).string();
  unique_fd fd(::mkstemp(tmp.data()));
  if (fd.get() < 0) fail_errno(source, "cannot create a temporary file in " + dir.string());
  try {
    write_all(fd.get(), encoded.data(), encoded.size(), source);
    const unsigned char zeros[payload_alignment] = {};
    write_all(fd.get(), zeros, header.payload_offset - file_header_size, source);
    write_all(fd.get(), payload.data(), payload.size(), source);
    if (::fchmod(fd.get(), 0644) != 0) fail_errno(source, "cannot set permissions");
    if (::fsync(fd.get()) != 0) fail_errno(source, "cannot fsync");
    if (::close(fd.release()) != 0) fail_errno(source, "cannot close");
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail_errno(source, "cannot rename into place");
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  // Persist the rename itself.
  unique_fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() >= 0) ::fsync(dir_fd.get());
}

}  // namespace

bool is_known(filter_kind kind) noexcept {
  return kind == filter_kind::classic;
}

std::string_view to_string(filter_kind kind) noexcept {
  switch (kind) {
    case filter_kind::classic:
      return "classic";
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
    fail(errc::corrupt_file, source,
         "truncated: " + std::to_string(bytes.size()) + " bytes, a header needs " +
             std::to_string(file_header_size));
  }
  const unsigned char* p = bytes.data();
  if (std::memcmp(p, magic, sizeof magic) != 0) {
    fail(errc::corrupt_file, source, "not a bloomkit filter file (bad magic)");
  }
  file_header h;
  h.format_version = get<std::uint32_t>(p, 8);
  if (h.format_version != file_format_version) {
    fail(errc::unsupported, source,
         "format version " + std::to_string(h.format_version) +
             " is not supported (this build reads version " + std::to_string(file_format_version) +
             ")");
  }
  if (get<std::uint32_t>(p, 12) != file_header_size) {
    fail(errc::corrupt_file, source, "inconsistent header: header size field is wrong");
  }
  if (get<std::uint64_t>(p, header_checksum_offset) != XXH64(p, header_checksum_offset, 0)) {
    fail(errc::corrupt_file, source, "header checksum mismatch (the header is corrupt)");
  }
  h.kind = static_cast<filter_kind>(get<std::uint32_t>(p, 16));
  if (!is_known(h.kind)) {
    fail(errc::unsupported, source,
         "filter kind " + std::to_string(get<std::uint32_t>(p, 16)) + " is not supported");
  }
  h.scheme = static_cast<hash_scheme>(get<std::uint32_t>(p, 20));
  if (!is_known(h.scheme)) {
    fail(errc::unsupported, source,
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
  return h;
}

void save(const bloom_filter& filter, const std::filesystem::path& path) {
  const auto words = filter.storage().words();
  write_filter_file(path, header_of(filter),
                    {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()});
}

file_header read_header(const std::filesystem::path& path) {
  return read_checked_header(open_for_reading(path), describe(path));
}

raw_filter load_raw(const std::filesystem::path& path) {
  const std::string source = describe(path);
  opened_file file = open_for_reading(path);
  const file_header h = read_checked_header(file, source);
  bit_array storage(h.bits);
  auto words = storage.mutable_words();
  read_all(file.fd.get(), words.data(), words.size_bytes(), h.payload_offset, source);
  check_payload(h, reinterpret_cast<const unsigned char*>(words.data()), source);
  return {h, std::move(storage)};
}

void save_raw(const file_header& header, const bit_array& bits, const std::filesystem::path& path) {
  if (bits.size() != header.bits) {
    throw error(errc::invalid_argument, describe(path) + ": " + std::to_string(bits.size()) +
                                            " bits for a header of " + std::to_string(header.bits) +
                                            " bits");
  }
  file_header h = header;
  h.payload_offset = file_header_size;
  h.payload_length = bits.byte_size();
  check_consistency(h, describe(path));
  const auto words = bits.words();
  write_filter_file(path, h,
                    {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()});
}

bloom_filter load(const std::filesystem::path& path) {
  raw_filter raw = load_raw(path);
  require_classic(raw.header, describe(path));
  return bloom_filter(config_of(raw.header), std::move(raw.bits), raw.header.inserted);
}

bloom_filter map(const std::filesystem::path& path, verify check) {
  const std::string source = describe(path);
  opened_file file = open_for_reading(path);
  const file_header h = read_checked_header(file, source);
  require_classic(h, source);
  void* addr = ::mmap(nullptr, file.size, PROT_READ, MAP_SHARED, file.fd.get(), 0);
  if (addr == MAP_FAILED) fail_errno(source, "cannot map");
  const std::size_t length = file.size;
  std::shared_ptr<const void> mapping(
      addr, [length](const void* p) { ::munmap(const_cast<void*>(p), length); });
  auto* base = static_cast<unsigned char*>(addr);
  ::madvise(base, length, MADV_WILLNEED);
  const unsigned char* payload = base + h.payload_offset;
  if (check == verify::full) check_payload(h, payload, source);
  auto storage =
      bit_array::view(reinterpret_cast<const std::uint64_t*>(payload), h.bits, std::move(mapping));
  return bloom_filter(config_of(h), std::move(storage), h.inserted);
}

}  // namespace bloomkit
