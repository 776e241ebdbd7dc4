#pragma once
// The batch layout of a native sharded filter's generation (internal; docs/REDIS.md, "Shards
// and probes"): a key's k cells are in one shard N:<generation>:<shard>, at the native probes'
// offsets: u1 bits, or for a counting filter u4 counters ("#i", saturating increments); every
// command reads the shard's guard bit first (or, for a generation without guards, a STRLEN
// checks each shard touched).

#include <cstdint>
#include <string>
#include <string_view>

#include "batch_engine.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis::detail {

class native_layout final : public batch_layout {
 public:
  // `shards` counts cells of `cell_bits` bits (1 or 4).
  native_layout(std::string name, const shard_layout& shards, std::uint64_t generation,
                bool guarded, std::uint32_t cell_bits = 1);

  const cell_codec& codec() const noexcept override { return codec_; }
  string_check check() const noexcept override { return check_; }
  void place(std::string_view key, cell_op op, placement_sink& out) const override;
  std::string string_key(std::uint64_t shard) const override;

 private:
  std::string name_;
  shard_layout shards_;
  std::uint64_t generation_;
  cell_codec codec_;
  string_check check_;
};

}  // namespace bloomkit::redis::detail
