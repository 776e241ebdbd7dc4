// The Redis module's filter image (src/module_value/filter_image.hpp) without a server: a header
// gets no memory for the payload it declares until that payload's bytes arrive (a hostile
// BF.LOADCHUNK header or a corrupt RDB value cannot make the server reserve terabytes), and a
// payload sent in pieces of any size still rebuilds the filter.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "file/header_codec.hpp"
#include "module_value/filter_image.hpp"

namespace bloomkit::redis_module {
namespace {

// The process's virtual size (VmSize of /proc/self/status), in bytes: an mmap'd payload counts
// here at once, even before a page is touched.
std::uint64_t virtual_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
  }
  ADD_FAILURE() << "no VmSize in /proc/self/status";
  return 0;
}

template <class T>
void put_at(std::string& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

// The version 1 header of one blocked filter (tests/data/golden/module), claiming `bits` bits
// instead (and the payload length that goes with them), with its checksum made right again.
// Offsets: docs/REDIS.md, "Version 1 images" (magic 4, version 4, kind 1, nonscaling 1, parts 4,
// then the part's cells 8, hashes 4, capacity 8, fpp 8, inserted 8, bits 8; payload length 8,
// payload hash 8, header hash 8).
std::string header_claiming(std::uint64_t bits) {
  std::ifstream in(BLOOMKIT_GOLDEN_DATA "/module/v1_blocked.bkimage", std::ios::binary);
  std::string h(82, '\0');
  in.read(h.data(), static_cast<std::streamsize>(h.size()));
  constexpr std::size_t part = 14;
  EXPECT_EQ(h.size(), part + 44 + 24);
  put_at(h, part, bits);       // cells
  put_at(h, part + 36, bits);  // bits
  put_at(h, part + 44, bits / 8);
  put_at(h, h.size() - 8, static_cast<std::uint64_t>(XXH64(h.data(), h.size() - 8, 0)));
  return h;
}

// The version 2 header of one blocked filter, claiming `bits` bits instead: its file header
// (docs/FORMAT.md) re-encoded with them and the payload length that goes with them.
std::string file_header_claiming(std::uint64_t bits) {
  std::string h = image_header(module_filter{blocked_bloom_filter::with_blocks(1)});
  std::optional<file_header> file = image_file_header(h);
  EXPECT_TRUE(file.has_value());
  file->bits = bits;
  file->payload_length = bits / 8;
  const auto encoded = encode_header(*file);
  h.replace(16, encoded.size(), reinterpret_cast<const char*>(encoded.data()), encoded.size());
  return h;
}

TEST(ModuleImage, HeaderAloneAllocatesNothing) {
  constexpr std::uint64_t bits = std::uint64_t{1} << 37;  // 16 GiB of payload
  for (const std::string& header : {header_claiming(bits), file_header_claiming(bits)}) {
    const std::uint64_t before = virtual_bytes();
    image_loader loader(header);
    EXPECT_EQ(loader.payload_bytes(), bits / 8);
    EXPECT_LT(virtual_bytes(), before + (std::uint64_t{1} << 30))
        << "the header alone reserved the payload";
    EXPECT_TRUE(loader.loaded_payload().empty());
    EXPECT_EQ(loader.allocated_bytes(), 0u);
    // What its first byte would allocate, checked before it is (redis_memory.hpp).
    EXPECT_FALSE(loader.allocations_for(1).empty());
  }
}

TEST(ModuleImage, TerabyteHeaderIsAcceptedAndItsPayloadRefusedWhenItCannotBeHeld) {
  // 2^46 bits = 8 TiB: more than this machine can map, so the header must not try to.
  for (const std::string& header :
       {header_claiming(std::uint64_t{1} << 46), file_header_claiming(std::uint64_t{1} << 46)}) {
    image_loader loader(header);
    EXPECT_EQ(loader.loaded_bytes(), 0u);
    EXPECT_THROW(loader.finish(), image_error);
    // Its first bytes need the part's memory: refused, and nothing is loaded.
    EXPECT_THROW(loader.append(std::string(8, '\0')), image_error);
    EXPECT_EQ(loader.loaded_bytes(), 0u);
  }
}

TEST(ModuleImage, BytesPastThePayloadAreRefused) {
  module_filter f{bloom_filter::for_capacity(1000, 0.01)};
  const std::string header = image_header(f);
  std::string payload;
  for (std::string_view piece : image_payload(f)) payload.append(piece);
  image_loader loader(header);
  EXPECT_THROW(loader.append(payload + "x"), image_error);
  EXPECT_EQ(loader.loaded_bytes(), 0u);
  loader.append(payload);
  EXPECT_THROW(loader.append("x"), image_error);
  EXPECT_TRUE(loader.complete());
}

TEST(ModuleImage, EveryKindRoundTripsInPiecesOfAnySize) {
  scalable_config chain;
  chain.initial_capacity = 50;
  chain.target_fpp = 0.01;
  module_filter filters[] = {
      {scalable_blocked_bloom_filter(chain)},
      {blocked_bloom_filter::for_capacity(500, 0.01), true},
      {bloom_filter::for_capacity(500, 0.01)},
      {counting_bloom_filter::for_capacity(500, 0.01)},
      {blocked_window_filter(window_config{500, 0.01, 100, window_unit::inserts, 4})},
      {scalable_bloom_filter(chain)},
      {window_filter(window_config{500, 0.01, 100, window_unit::inserts, 4})},
      {classic_window_filter(window_config{500, 0.01, 100, window_unit::inserts, 4})},
  };
  for (module_filter& f : filters) {
    for (int i = 0; i < 300; ++i) {
      const std::string key = "key" + std::to_string(i);
      const std::string_view keys[] = {key};
      bool added[1];
      add_keys(f, keys, added);
    }
    std::string payload;
    for (std::string_view piece : image_payload(f)) payload.append(piece);
    for (const std::size_t step :
         {std::size_t{1}, std::size_t{7}, std::size_t{64}, payload.size()}) {
      image_loader loader(image_header(f));
      for (std::size_t at = 0; at < payload.size(); at += step) {
        loader.append(std::string_view(payload).substr(at, step));
        std::string seen;
        for (std::string_view piece : loader.loaded_payload()) seen.append(piece);
        ASSERT_EQ(seen, payload.substr(0, loader.loaded_bytes()));
      }
      const module_filter back = loader.finish();
      EXPECT_EQ(image_header(back), image_header(f));
      // The last keys: the window's oldest have aged out.
      for (int i = 250; i < 300; ++i) {
        const std::string key = "key" + std::to_string(i);
        const std::string_view keys[] = {key};
        bool present[1];
        find_keys(back, keys, present);
        EXPECT_TRUE(present[0]) << key;
      }
    }
  }
}

// The received payload is read in place as an in-memory file: a changed byte is still caught by
// the file format's checksum, for kinds read whole and kinds read in parts alike.
TEST(ModuleImage, AChangedPayloadByteIsRefusedNamingTheImage) {
  scalable_config chain;
  chain.initial_capacity = 50;
  chain.target_fpp = 0.01;
  const module_filter filters[] = {
      {blocked_bloom_filter::for_capacity(500, 0.01)},
      {scalable_blocked_bloom_filter(chain)},
      {window_filter(window_config{500, 0.01, 100, window_unit::inserts, 4})},
  };
  for (const module_filter& f : filters) {
    std::string payload;
    for (std::string_view piece : image_payload(f)) payload.append(piece);
    payload[payload.size() / 2] ^= 0x10;
    image_loader loader(image_header(f));
    loader.append(payload);
    try {
      (void)loader.finish();
      ADD_FAILURE() << "a changed payload byte was loaded";
    } catch (const image_error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("filter image: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("checksum mismatch"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace bloomkit::redis_module
