// redis_filter::push and pull: a filter's bits between a local filter file and Redis
// (docs/REDIS.md, "Push and pull").
#include <algorithm>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "filter_access.hpp"
#include "filter_image.hpp"
#include "filter_keys.hpp"
#include "filter_lifecycle.hpp"
#include "filter_meta.hpp"
#include "shard_guard.hpp"

namespace bloomkit::redis {

namespace {

// Bytes per GETRANGE / SETRANGE: large enough to amortise a round trip, small enough not to hold
// Redis for more than about a millisecond.
constexpr std::uint64_t transfer_chunk = std::uint64_t{1} << 20;

// Sets every shard's guard bit when it lies in a spare bit of the shard's last byte
// (shard_layout::guard_bit): those bytes are sent, and SETRANGE would clear the bit that
// preallocation set.
void set_guard_bits(unsigned char* bytes, const shard_layout& layout) {
  if (layout.guard_bit() / 8 >= layout.shard_bytes()) return;
  for (std::uint64_t j = 0; j < layout.shard_count; ++j) {
    bytes[j * (layout.shard_bits / 8) + layout.guard_bit() / 8] |=
        static_cast<unsigned char>(0x80u >> (layout.guard_bit() % 8));
  }
}

}  // namespace

redis_filter redis_filter::push(client& c, const std::filesystem::path& file, std::string name,
                                filter_options options) {
  detail::validate_name(name);
  detail::filter_image image = detail::load_image(file);
  detail::filter_meta want = image.meta;
  want.created = static_cast<std::int64_t>(std::time(nullptr));
  const shard_layout layout = want.stored();  // the strings, in bits
  want.guard_generation = layout.has_guard_room() ? want.generation : 0;
  auto* bytes = reinterpret_cast<unsigned char*>(image.bits.mutable_words().data());
  if (want.guarded()) set_guard_bits(bytes, layout);
  const auto fill = [&](const std::vector<std::string>& keys) {
    const std::uint64_t shard_bytes = layout.shard_bytes();
    for (std::uint64_t j = 0; j < layout.shard_count; ++j) {
      const unsigned char* shard = bytes + j * (layout.shard_bits / 8);
      std::vector<command> cs;
      for (std::uint64_t at = 0; at < shard_bytes; at += transfer_chunk) {
        const std::uint64_t n = std::min(transfer_chunk, shard_bytes - at);
        // The shard is preallocated with zeros: all-zero chunks need no write.
        if (std::all_of(shard + at, shard + at + n, [](unsigned char b) { return b == 0; })) {
          continue;
        }
        cs.push_back(command{{"SETRANGE", keys[j], std::to_string(at),
                              std::string(reinterpret_cast<const char*>(shard + at), n)},
                             1});
      }
      for (const auto& r : c.execute_many(cs)) detail::check_reply(r, "SETRANGE " + keys[j]);
    }
  };
  const detail::filter_meta m = detail::create_with(c, name, want, fill);
  return redis_filter(c, std::move(name), m, options);
}

void redis_filter::pull(const std::filesystem::path& file) {
  detail::flush_count(state_);
  client& c = *state_.c;
  const std::string& name = state_.name;
  for (int attempt = 0;; ++attempt) {
    const detail::filter_meta m = detail::require_meta(c, name);
    const shard_layout layout = m.stored();  // the strings, in bits
    detail::require_whole(c, name, detail::shard_keys(name, m.generation, layout.shard_count),
                          layout, m.guarded());
    bit_array bits(layout.total_bits());
    auto* bytes = reinterpret_cast<unsigned char*>(bits.mutable_words().data());
    const std::uint64_t shard_bytes = layout.shard_bytes();
    for (std::uint64_t j = 0; j < layout.shard_count; ++j) {
      const std::string key = detail::shard_key(name, m.generation, j);
      std::vector<command> cs;
      for (std::uint64_t at = 0; at < shard_bytes; at += transfer_chunk) {
        const std::uint64_t n = std::min(transfer_chunk, shard_bytes - at);
        cs.push_back(command{{"GETRANGE", key, std::to_string(at), std::to_string(at + n - 1)}, 1});
      }
      const auto replies = c.execute_many(cs);
      unsigned char* shard = bytes + j * (layout.shard_bits / 8);
      for (std::size_t i = 0; i < replies.size(); ++i) {
        detail::check_reply(replies[i], "GETRANGE " + key);
        const std::string& chunk = replies[i].str();
        const std::uint64_t at = i * transfer_chunk;
        const std::uint64_t n = std::min(transfer_chunk, shard_bytes - at);
        if (chunk.size() != n) {
          throw detail::broken_shard_error(name, key, &c, layout, m.guarded());
        }
        std::memcpy(shard + at, chunk.data(), n);
      }
    }
    // A rebuild that flipped meanwhile: the bits may mix two generations; read again.
    const detail::filter_meta after = detail::require_meta(c, name);
    if (after.generation != m.generation) {
      if (attempt < 3) continue;
      throw error(errc::server_error,
                  "filter '" + name + "' was rebuilt repeatedly while being pulled");
    }
    detail::save_image(m, std::move(bits), file);
    return;
  }
}

}  // namespace bloomkit::redis
