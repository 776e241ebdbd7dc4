// Fuzz target for the Redis module's decoders, without a server: the RDB value
// (value_codec.hpp's decode_value, the module type's rdb_load) and BF.LOADCHUNK (image_loader
// and load_chunk, as dump_commands.cpp drives them). Input: a mode byte, then the value or the
// (iterator, data) chunks in module_bytes.hpp's framing. With bit 1 of the mode set, the
// harness first rewrites the header's checksums, so mutated fields get past them; headers that
// declare more than 64 MiB of payload are then skipped (a real filter may be that large). Images
// of both versions: version 2 (the file format) as the module writes them, version 1 from the
// committed golden images (tests/data/golden/module) among the replay's seeds.
// Any input must end in a usable filter or an image_error; anything else is a bug.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "module_bytes.hpp"
#include "module_value/chunk_loading.hpp"
#include "module_value/value_codec.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace {

using namespace bloomkit::redis_module;
using bloomkit::test::byte_sink;
using bloomkit::test::byte_source;

constexpr std::uint64_t max_fixed_payload = std::uint64_t{64} << 20;

std::uint64_t read_u64(const std::string& s, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, s.data() + at, sizeof v);
  return v;
}

// Sets the header's payload hash (of `payload`) and its own checksum; false when it declares
// too large a payload to fuzz. Version 1: the header ends with payload bytes, payload XXH64,
// header XXH64. Version 2: the file header after the 16-byte prefix has payload length (72),
// payload XXH64 (80) and its own XXH64 of bytes 0..119 (120), docs/FORMAT.md.
bool fix_checksums(std::string& header, std::string_view payload) {
  const std::uint64_t payload_hash = XXH64(payload.data(), payload.size(), 0);
  if (header.size() >= 16 + 128 && header.compare(4, 4, std::string("\2\0\0\0", 4)) == 0) {
    if (read_u64(header, 16 + 72) > max_fixed_payload) return false;
    std::memcpy(header.data() + 16 + 80, &payload_hash, sizeof payload_hash);
    const std::uint64_t own = XXH64(header.data() + 16, 120, 0);
    std::memcpy(header.data() + 16 + 120, &own, sizeof own);
    return true;
  }
  if (header.size() < 24 || read_u64(header, header.size() - 24) > max_fixed_payload) {
    return false;
  }
  std::memcpy(header.data() + header.size() - 16, &payload_hash, sizeof payload_hash);
  const std::uint64_t own = XXH64(header.data(), header.size() - 8, 0);
  std::memcpy(header.data() + header.size() - 8, &own, sizeof own);
  return true;
}

// A decoded value must encode to what decodes to the same image, and a filter must hold a key
// it took.
void check_value(const module_value& v) {
  byte_sink again;
  encode_value(v, again, 7);
  byte_source in(again.out);
  const auto copy = decode_value(in);
  if (header_of(*copy) != header_of(v)) std::abort();
  if (!v.filter) return;
  module_filter f = *v.filter;
  const std::string_view key = "fuzz";
  bool added = false;
  bool present = false;
  try {
    if (add_keys(f, {&key, 1}, {&added, 1}) == 1) {
      find_keys(f, {&key, 1}, {&present, 1});
      if (!present) std::abort();
    }
  } catch (const bloomkit::error& e) {
    // A loaded chain may be at its memory ceiling or at the end of what it can grow to.
    if (e.code() != bloomkit::errc::too_large) std::abort();
  }
  (void)capacity_of(f);
  (void)items_of(f);
  (void)filter_count_of(f);
  (void)memory_of(f);
}

void fuzz_rdb(std::string_view input, bool fix) {
  std::string bytes(input);
  if (fix) {
    // state, then the header string, then the payload length and its pieces.
    try {
      byte_source in(bytes);
      in.read_unsigned();
      const std::string_view header = in.read_string();
      in.read_unsigned();
      std::string payload;
      while (!in.empty()) payload.append(in.read_string());
      std::string fixed(header);
      if (!fix_checksums(fixed, payload)) return;
      std::memcpy(bytes.data() + (header.data() - bytes.data()), fixed.data(), fixed.size());
    } catch (const image_error&) {
    }
  }
  try {
    byte_source in(bytes);
    check_value(*decode_value(in));
  } catch (const image_error&) {
  }
}

void fuzz_loadchunk(std::string_view input, bool fix) {
  try {
    byte_source in(input);
    if (in.read_unsigned() != 1) return;  // LOADCHUNK's first chunk is the header
    std::string header(in.read_string());
    if (fix) {
      std::string payload;
      byte_source chunks = in;
      while (!chunks.empty()) {
        chunks.read_unsigned();
        payload.append(chunks.read_string());
      }
      if (!fix_checksums(header, payload)) return;
    }
    module_value value;
    value.loading = std::make_unique<image_loader>(header);
    while (!in.empty() && value.loading) {
      const std::uint64_t iterator = in.read_unsigned();
      const std::string_view data = in.read_string();
      const std::uint64_t before = value.loading->loaded_bytes();
      if (!load_chunk(value, iterator, data) && value.loading->loaded_bytes() != before) {
        std::abort();  // a refused chunk changed nothing
      }
    }
    check_value(value);
  } catch (const image_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool fix = (data[0] & 2) != 0;
  if ((data[0] & 1) != 0) {
    fuzz_loadchunk(input, fix);
  } else {
    fuzz_rdb(input, fix);
  }
  return 0;
}
