#pragma once
// The batch layout of a window filter (internal; docs/REDIS.md, "Window filters"): a list of
// slices, each the sharded layout of a native filter under the keys N:<slice>:<shard>. A key
// is placed in every slice of the list, in the same shard and at the same offsets of each: a
// lookup layout lists the live slices, an insert's the current one. Missing slices read as
// empty (never written, or expired): no string check.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "batch_engine.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis::detail {

class window_layout final : public batch_layout {
 public:
  window_layout(std::string name, const shard_layout& shards, std::vector<std::uint64_t> slices);

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
  std::string name_;
  shard_layout shards_;
  std::vector<std::uint64_t> slices_;
  cell_codec codec_;
};

}  // namespace bloomkit::redis::detail
