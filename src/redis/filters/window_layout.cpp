#include "window_layout.hpp"

#include <algorithm>
#include <bit>
#include <utility>

#include "../../storage/word_mask.hpp"
#include "bloomkit/hashing.hpp"
#include "filter_keys.hpp"

namespace bloomkit::redis::detail {

window_layout::window_layout(std::string name, const shard_layout& shards,
                             std::vector<std::uint64_t> slices, window_slice_format format)
    : name_(std::move(name)), shards_(shards), slices_(std::move(slices)), format_(format) {
  codec_.masked_word_reads = format_ == window_slice_format::words;
}

void window_layout::place(std::string_view key, cell_op op, placement_sink& out) const {
  if (format_ == window_slice_format::words) return place_words(key, op, out);
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

void window_layout::place_words(std::string_view key, cell_op op, placement_sink& out) const {
  const digest128 d = xxh3_128(key);
  const std::uint64_t per_shard = shards_.shard_bits / redis_window_word_bits;
  const std::uint64_t word = reduce_range(d.low, per_shard * shards_.shard_count);
  const std::uint64_t shard = word / per_shard;
  const std::uint64_t in_shard = word % per_shard;
  std::uint64_t mask = 0;
  bloomkit::detail::word_mask(d.high, redis_window_word_bits, shards_.hashes, &mask);
  if (op == cell_op::read) {
    // Bit p of the word is the integer's bit 63 - p.
    std::uint64_t read_mask = 0;
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
      read_mask |= std::uint64_t{1} << (63 - std::countr_zero(m));
    }
    for (std::size_t i = 0; i < slices_.size(); ++i) {
      *out.add(i * shards_.shard_count + shard, 1, read_mask) = in_shard;
    }
    return;
  }
  for (std::size_t i = 0; i < slices_.size(); ++i) {
    std::uint64_t* offsets = out.add(i * shards_.shard_count + shard, shards_.hashes);
    for (std::uint64_t m = mask; m != 0; m &= m - 1) {
      *offsets++ = in_shard * redis_window_word_bits + static_cast<unsigned>(std::countr_zero(m));
    }
  }
}

std::string window_layout::string_key(std::uint64_t string) const {
  return shard_key(name_, slice_of(string), string % shards_.shard_count);
}

}  // namespace bloomkit::redis::detail
