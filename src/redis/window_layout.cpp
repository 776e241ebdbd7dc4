#include "window_layout.hpp"

#include <algorithm>
#include <utility>

#include "bloomkit/hashing.hpp"
#include "filter_keys.hpp"

namespace bloomkit::redis::detail {

window_layout::window_layout(std::string name, const shard_layout& shards,
                             std::vector<std::uint64_t> slices)
    : name_(std::move(name)), shards_(shards), slices_(std::move(slices)) {}

void window_layout::place(std::string_view key, cell_op, placement_sink& out) const {
  const digest128 d = xxh3_128(key);
  const std::uint64_t shard = shards_.shard_of(d);
  std::size_t first = 0;  // an index: add() may move the offsets
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    std::uint64_t* offsets = out.add(i * shards_.shard_count + shard, shards_.hashes);
    if (i == 0) {
      shards_.offsets(d, offsets);
      first = static_cast<std::size_t>(offsets - out.offsets.data());
    } else {
      const std::uint64_t* same = out.offsets.data() + first;  // the same bits in every slice
      std::copy(same, same + shards_.hashes, offsets);
    }
  }
}

std::string window_layout::string_key(std::uint64_t string) const {
  return shard_key(name_, slice_of(string), string % shards_.shard_count);
}

}  // namespace bloomkit::redis::detail
