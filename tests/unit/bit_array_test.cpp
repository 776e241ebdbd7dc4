#include "bloomkit/bit_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/storage_allocator.hpp"

namespace bloomkit {
namespace {

TEST(BitArray, StartsZeroedAndAligned) {
  for (std::uint64_t bits : {1ull, 63ull, 64ull, 65ull, 1000ull, (1ull << 22) + 7}) {
    bit_array a(bits);
    EXPECT_EQ(a.size(), bits);
    EXPECT_EQ(a.word_count(), (bits + 63) / 64);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
    EXPECT_EQ(a.count(), 0u);
  }
}

TEST(BitArray, SetTestCount) {
  bit_array a(1000);
  EXPECT_TRUE(a.set(0));
  EXPECT_FALSE(a.set(0));
  EXPECT_TRUE(a.set_atomic(999));
  EXPECT_FALSE(a.set_atomic(999));
  EXPECT_TRUE(a.set(64));
  EXPECT_TRUE(a.test(0));
  EXPECT_TRUE(a.test(64));
  EXPECT_TRUE(a.test(999));
  EXPECT_FALSE(a.test(1));
  EXPECT_EQ(a.count(), 3u);
  EXPECT_EQ(a.words()[0], 1u);
  EXPECT_EQ(a.words()[1], 1u);
  a.clear();
  EXPECT_EQ(a.count(), 0u);
}

TEST(BitArray, CopyIsDeepMoveIsCheap) {
  bit_array a(5000);
  a.set(4321);
  bit_array b = a;
  b.set(1);
  EXPECT_FALSE(a.test(1));
  EXPECT_TRUE(b.test(4321));
  EXPECT_FALSE(a == b);
  const std::uint64_t* data = b.data();
  bit_array c = std::move(b);
  EXPECT_EQ(c.data(), data);
  EXPECT_EQ(b.size(), 0u);
}

TEST(BitArray, ViewIsReadOnly) {
  alignas(64) std::uint64_t words[2] = {0b101, 0};
  bit_array v = bit_array::view(words, 70, nullptr);
  EXPECT_TRUE(v.read_only());
  EXPECT_TRUE(v.test(0));
  EXPECT_FALSE(v.test(1));
  EXPECT_TRUE(v.test(2));
  EXPECT_EQ(v.count(), 2u);
  EXPECT_THROW(v.mutable_words(), error);
  EXPECT_THROW(v.clear(), error);
  bit_array copy = v;  // a copy of a view is the same view
  EXPECT_EQ(copy.data(), v.data());
}

TEST(BitArray, RefusesImpossibleSizes) {
  try {
    bit_array a(std::uint64_t{1} << 60);
    FAIL() << "allocated 2^60 bits";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::too_large);
  }
}

TEST(BitArray, ClearOfLargeArrayReturnsZeroes) {
  bit_array a(std::uint64_t{1} << 25);  // 4 MiB: the huge-page path
  for (std::uint64_t i = 0; i < a.size(); i += 4099) a.set(i);
  EXPECT_GT(a.count(), 0u);
  a.clear();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_TRUE(a.set(123));
}

}  // namespace
}  // namespace bloomkit

namespace bloomkit {
namespace {

// A size within the format's limit that the machine cannot back (2^46 bits = 8 TiB) is a clear
// errc::too_large, not a bad_alloc or a crash. Only where the kernel refuses such mappings
// (overcommit modes 0 and 2; mode 1 grants anything and faults later).
TEST(BitArray, AllocationFailureIsACleanError) {
  std::ifstream mode_file("/proc/sys/vm/overcommit_memory");
  int mode = -1;
  mode_file >> mode;
  if (mode != 0 && mode != 2) GTEST_SKIP() << "overcommit mode " << mode << " grants any mapping";
  try {
    bit_array a(max_bits);
    FAIL() << "allocated 8 TiB";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::too_large);
    EXPECT_NE(std::string(e.what()).find("cannot allocate"), std::string::npos) << e.what();
  }
}

// The allocation policy (storage_allocator.hpp): a host's allocator serves every new array, gets
// each block back, zeroes on clear(); arrays made before keep the allocator they came from.
class counting_allocator final : public storage_allocator {
 public:
  storage_block allocate(std::size_t bytes) override {
    if (refuse) throw error(errc::too_large, "refused by the host");
    void* base = ::operator new(bytes + 64);
    std::memset(base, 0, bytes + 64);
    const auto addr = (reinterpret_cast<std::uintptr_t>(base) + 63) & ~std::uintptr_t{63};
    ++live;
    held += bytes + 64;
    return {reinterpret_cast<std::uint64_t*>(addr), base, bytes + 64};
  }
  void deallocate(const storage_block& block) noexcept override {
    --live;
    held -= block.bytes;
    ::operator delete(block.base);
  }
  void zero(const storage_block& block, std::size_t bytes) noexcept override {
    ++zeroed;
    storage_allocator::zero(block, bytes);
  }
  int live = 0;
  int zeroed = 0;
  std::size_t held = 0;
  bool refuse = false;
};

TEST(BitArray, AllocatesThroughTheInstalledAllocator) {
  counting_allocator host;
  bit_array before(1000);
  set_storage_allocator(host);
  {
    bit_array a(1000);
    EXPECT_EQ(host.live, 1);
    EXPECT_EQ(a.allocated_bytes(), host.held);
    EXPECT_GE(a.allocated_bytes(), a.byte_size());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a.data()) % 64, 0u);
    a.set(7);
    bit_array copy = a;
    EXPECT_EQ(host.live, 2);
    EXPECT_TRUE(copy.test(7));
    copy.clear();
    EXPECT_EQ(host.zeroed, 1);
    EXPECT_EQ(copy.count(), 0u);
    bit_array moved = std::move(a);
    EXPECT_EQ(host.live, 2);
    host.refuse = true;
    EXPECT_THROW(bit_array(64), error);
    host.refuse = false;
  }
  EXPECT_EQ(host.live, 0);
  EXPECT_EQ(host.held, 0u);
  set_storage_allocator(mapped_memory_allocator());
  // Made before the host's allocator: still the in-process one, and freed there.
  EXPECT_GT(before.allocated_bytes(), 0u);
  before.set(3);
  EXPECT_TRUE(before.test(3));
}

}  // namespace
}  // namespace bloomkit
