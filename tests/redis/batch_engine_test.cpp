// The batch engine (src/redis/filters/batch_engine.hpp) over layouts other than the native one,
// against a real redis-server: counting cells (BITFIELD OVERFLOW SAT INCRBY u4) and a window of
// several slices read in one round trip: the shapes the engine must carry besides one u1 string per
// key.
#include "redis/filters/batch_engine.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bloomkit/hashing.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "redis/filters/native_layout.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"

namespace {

using bloomkit::redis::command;
using bloomkit::redis::detail::append_commands;
using bloomkit::redis::detail::batch_layout;
using bloomkit::redis::detail::batch_plan;
using bloomkit::redis::detail::cell_codec;
using bloomkit::redis::detail::cell_op;
using bloomkit::redis::detail::placement_sink;
using bloomkit::redis::detail::run_batch;
using bloomkit::redis::detail::string_check;
using bloomkit::test::redis_server;

constexpr std::uint32_t cells_per_key = 3;

// Three cells of a key among 64 of one string (cell i of a key: bits of its digest).
void cells_of(std::string_view key, std::uint64_t* out) {
  const auto d = bloomkit::xxh3_128(key);
  for (std::uint32_t i = 0; i < cells_per_key; ++i) out[i] = (d.low >> (8 * i)) % 64;
}

// Counters of 4 bits in the one string `cnt`, cells addressed by number (#n).
class counting_layout final : public batch_layout {
 public:
  const cell_codec& codec() const noexcept override { return codec_; }
  string_check check() const noexcept override { return {}; }
  void place(std::string_view key, cell_op, placement_sink& out) const override {
    cells_of(key, out.add(0, cells_per_key));
  }
  std::string string_key(std::uint64_t) const override { return "cnt"; }

 private:
  cell_codec codec_{"u4", true, cell_codec::write_kind::saturating_increment};
};

// A window of two slices, `w:0` (older) and `w:1`: lookups read both, inserts write `write_to`.
class window_layout final : public batch_layout {
 public:
  explicit window_layout(std::uint64_t write_to) : write_to_(write_to) {}
  const cell_codec& codec() const noexcept override { return codec_; }
  string_check check() const noexcept override { return {}; }
  void place(std::string_view key, cell_op op, placement_sink& out) const override {
    if (op == cell_op::write) {
      cells_of(key, out.add(write_to_, cells_per_key));
      return;
    }
    for (std::uint64_t slice : {0, 1}) cells_of(key, out.add(slice, cells_per_key));
  }
  std::string string_key(std::uint64_t slice) const override {
    return std::string("w:").append(std::to_string(slice));
  }

 private:
  std::uint64_t write_to_;
  cell_codec codec_;
};

// One string `mw` of 64-bit words read whole: a key is (word, mask in integer bits).
class masked_word_layout final : public batch_layout {
 public:
  const cell_codec& codec() const noexcept override { return codec_; }
  string_check check() const noexcept override { return {}; }
  void place(std::string_view key, cell_op, placement_sink& out) const override {
    // Word 1; bits 0 (the integer's sign bit), 5 and 63 of it, or 0, 5 and 62.
    const std::uint64_t last = key == "sign" ? 63 : 62;
    const std::uint64_t mask =
        std::uint64_t{1} << 63 | std::uint64_t{1} << 58 | 1ULL << (63 - last);
    *out.add(0, 1, mask) = 1;
  }
  std::string string_key(std::uint64_t) const override { return "mw"; }

 private:
  cell_codec codec_{"u1", false, cell_codec::write_kind::set_one, true};
};

using bloomkit::test::calls_of;

class RedisBatchEngine : public bloomkit::test::single_server_client_test {};

TEST_F(RedisBatchEngine, CountingCellsSaturateAndAnswerLikeBits) {
  const counting_layout layout;
  const std::vector<std::string_view> keys = {"a", "b"};
  EXPECT_EQ(run_batch(*client_, layout, keys, cell_op::write, 16).answers,
            (std::vector<char>{1, 1}));
  EXPECT_EQ(run_batch(*client_, layout, {keys.data(), 1}, cell_op::write, 16).count(), 0u);
  const std::vector<std::string_view> lookups = {"a", "b", "never added"};
  const auto present = run_batch(*client_, layout, lookups, cell_op::read, 16).answers;
  EXPECT_EQ(present[0], 1);
  EXPECT_EQ(present[1], 1);
  // "a" twice: each of its counters is at least 2; 20 more increments saturate at 15.
  std::uint64_t cells[cells_per_key];
  cells_of("a", cells);
  std::string first = std::to_string(cells[0]);
  first.insert(first.begin(), '#');
  EXPECT_GE(server_->raw({"BITFIELD", "cnt", "GET", "u4", first}).elements()[0].integer(), 2);
  for (int i = 0; i < 20; ++i) run_batch(*client_, layout, {keys.data(), 1}, cell_op::write, 16);
  EXPECT_EQ(server_->raw({"BITFIELD", "cnt", "GET", "u4", first}).elements()[0].integer(), 15);
}

TEST_F(RedisBatchEngine, AWindowIsReadOverEverySliceInOneCommandEach) {
  const std::vector<std::string_view> old_keys = {"old"};
  const std::vector<std::string_view> new_keys = {"new"};
  run_batch(*client_, window_layout(0), old_keys, cell_op::write, 16);
  run_batch(*client_, window_layout(1), new_keys, cell_op::write, 16);
  server_->raw({"CONFIG", "RESETSTAT"});
  const std::vector<std::string_view> lookups = {"old", "new", "neither"};
  const auto a = run_batch(*client_, window_layout(1), lookups, cell_op::read, 16);
  EXPECT_EQ(a.answers[0], 1);
  EXPECT_EQ(a.answers[1], 1);
  EXPECT_EQ(a.count(), 2u + a.answers[2]);
  EXPECT_EQ(calls_of(*server_, "bitfield_ro"), 2);  // one per slice, for all three keys
}

// Redis returns a word's first bit as the most significant of the integer (negative when set).
TEST_F(RedisBatchEngine, MaskedWordReadsTestEveryMaskBitOfOneWord) {
  for (const char* bit : {"64", "69", "127"}) server_->raw({"SETBIT", "mw", bit, "1"});
  const masked_word_layout layout;
  const std::vector<std::string_view> keys = {"sign", "other"};
  const auto plan = batch_plan::make(layout, keys, cell_op::read, 16);
  std::vector<command> cs;
  append_commands(layout, plan, cs);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].args, (std::vector<std::string>{"BITFIELD_RO", "mw", "GET", "i64", "#1", "GET",
                                                  "i64", "#1"}));
  EXPECT_EQ(run_batch(*client_, layout, keys, cell_op::read, 16).answers,
            (std::vector<char>{1, 0}));
  server_->raw({"SETBIT", "mw", "126", "1"});
  EXPECT_EQ(run_batch(*client_, layout, keys, cell_op::read, 16).answers,
            (std::vector<char>{1, 1}));
}

TEST(RedisBatchEngineCommands, ANativeKeyIsOneBitfieldThatReadsTheGuardFirst) {
  const auto shards = bloomkit::redis::shard_layout::for_bits(4096, 7, 10);  // 4 shards
  const bloomkit::redis::detail::native_layout layout("f", shards, 3, true);
  const std::vector<std::string_view> one = {"k"};
  const auto plan = batch_plan::make(layout, one, cell_op::write, 16);
  std::vector<command> cs;
  const auto where = append_commands(layout, plan, cs);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(where.bitfields_begin, 0u);
  const auto& args = cs[0].args;
  ASSERT_EQ(args.size(), 2u + 3u + 4u * 7u);
  EXPECT_EQ(args[0], "BITFIELD");
  EXPECT_EQ(args[1].rfind("f:3:", 0), 0u);
  EXPECT_EQ(args[2], "GET");
  EXPECT_EQ(args[4], std::to_string(shards.guard_bit()));
  EXPECT_EQ(args[5], "SET");
  EXPECT_EQ(args[6], "u1");
  EXPECT_EQ(args[8], "1");
}

}  // namespace
