#pragma once
// The batch layout of a window filter (internal; docs/REDIS.md, "Window filters"): a list of
// slices, each in shards under the keys N:<slice>:<shard>. A key is placed in every slice of the
// list, in the same shard and at the same offsets of each: a lookup layout lists the live
// slices, an insert's the current one. Missing slices read as empty (never written, or
// expired): no string check.
//
// Two slice formats (window_slice_format):
// - bits: the sharded layout of a native filter; k u1 cells per slice.
// - words: 64-bit words, shard_bits / 64 per shard. Of the key's xxh3_128 digest (h1, h2), h1
//   picks the word among all of a slice's words (multiply-high; the shard is word / words per
//   shard) and h2 seeds word_mask's k bits (one per field). Bit p of word w is Redis bit 64 w + p
//   of its shard: a write sets those k u1 bits, a read is one `GET i64 #w` whose integer holds bit
//   p as bit 63 - p (Redis reads big-endian, MSB first), tested against the reversed mask.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "batch_engine.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "bloomkit/redis/window_filter.hpp"

namespace bloomkit::redis::detail {

class window_layout final : public batch_layout {
 public:
  window_layout(std::string name, const shard_layout& shards, std::vector<std::uint64_t> slices,
                window_slice_format format = window_slice_format::bits);

  const cell_codec& codec() const noexcept override { return codec_; }
  string_check check() const noexcept override { return {}; }
  void place(std::string_view key, cell_op op, placement_sink& out) const override;
  // String s is shard s mod shard_count of slices[s / shard_count].
  std::string string_key(std::uint64_t string) const override;

  const std::vector<std::uint64_t>& slices() const noexcept { return slices_; }
  // The slice of string number `string`.
  std::uint64_t slice_of(std::uint64_t string) const {
    return slices_.at(string / shards_.shard_count);
  }

 private:
  void place_words(std::string_view key, cell_op op, placement_sink& out) const;

  std::string name_;
  shard_layout shards_;
  std::vector<std::uint64_t> slices_;
  window_slice_format format_;
  cell_codec codec_;
};

}  // namespace bloomkit::redis::detail
