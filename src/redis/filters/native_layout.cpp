#include "native_layout.hpp"

#include <utility>

#include "bloomkit/hashing.hpp"
#include "filter_keys.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis::detail {

native_layout::native_layout(std::string name, const shard_layout& shards, std::uint64_t generation,
                             bool guarded, std::uint32_t cell_bits)
    : name_(std::move(name)), shards_(shards), generation_(generation) {
  if (cell_bits != 1) {  // counting: 4-bit counters, the only other cell
    codec_ = {"u4", true, cell_codec::write_kind::saturating_increment};
  }
  const shard_layout stored = stored_layout(shards, cell_bits);
  if (guarded) {
    check_ = {string_check::kind::guard_bit, stored.guard_bit(), 0};
  } else {
    check_ = {string_check::kind::length, 0, stored.shard_bytes()};
  }
}

void native_layout::place(std::string_view key, cell_op, placement_sink& out) const {
  const digest128 d = xxh3_128(key);
  shards_.offsets(d, out.add(shards_.shard_of(d), shards_.hashes));
}

std::string native_layout::string_key(std::uint64_t shard) const {
  return shard_key(name_, generation_, shard);
}

}  // namespace bloomkit::redis::detail
