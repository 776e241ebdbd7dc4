// redis_static_filter::push and pull: a static filter file's tables to Redis and back
// (docs/REDIS.md, "Static filters").
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "filter_lifecycle.hpp"
#include "static_store.hpp"
#include "static_strings.hpp"
#include "window_meta.hpp"

namespace bloomkit::redis {

redis_static_filter redis_static_filter::push(client& c, const std::filesystem::path& file,
                                              std::string name, std::uint64_t delta_capacity,
                                              filter_options options) {
  detail::validate_name(name);
  detail::static_image image = detail::load_static_file(file);
  if (detail::read_meta_fields(c, name)) {
    throw error(errc::already_exists, "filter '" + name + "' already exists");
  }
  detail::static_store store;
  store.fpp = image.target_fpp;
  store.static_fpp = detail::fingerprint_fpp(image.generation.fingerprint_bits);
  store.delta_capacity = delta_capacity;
  store.allow_empty = true;  // a file of no keys is what its owner built
  detail::store_static(c, name, std::nullopt, store, options, [&](std::uint64_t& given) {
    given = image.generation.keys;
    return std::move(image);
  });
  return open(c, std::move(name), options);
}

void redis_static_filter::pull(const std::filesystem::path& file) {
  detail::flush_count(state_);
  for (int attempt = 0;; ++attempt) {
    reload();
    const auto g = current_;
    if (const auto broken = detail::broken_strings(*state_.c, state_.name, state_.generation, *g);
        !broken.empty()) {
      throw detail::broken_string_error(state_, *g, broken.front());
    }
    if (g->has_delta()) {
      // A delta that holds keys: a static file cannot hold them, and dropping them would lose
      // keys silently.
      std::vector<command> cs;
      for (const auto& k :
           detail::shard_keys(state_.name, state_.generation, g->delta.shard_count)) {
        cs.push_back(command{{"BITCOUNT", k}, 1});
      }
      std::int64_t set = 0;
      for (const auto& r : state_.c->execute_many(cs)) set += r.is_error() ? 0 : r.integer();
      const auto guards = static_cast<std::int64_t>(g->delta.shard_count);
      if (set > guards) {
        throw error(errc::unsupported,
                    "filter '" + state_.name +
                        "': its delta holds keys added since the last rebuild, which a static "
                        "file cannot hold; rebuild it (its source then holds them) and pull again");
      }
    }
    detail::static_image image;
    image.generation = *g;
    image.target_fpp = target_fpp_;
    image.cells = detail::read_tables(*state_.c, state_, *g);
    const std::uint64_t generation = state_.generation;
    reload();
    // A rebuild that flipped meanwhile: the tables may mix two generations; read again.
    if (state_.generation != generation) {
      if (attempt < 3) continue;
      throw error(errc::server_error,
                  "filter '" + state_.name + "' was rebuilt repeatedly while being pulled");
    }
    detail::save_static_file(image, file);
    return;
  }
}

}  // namespace bloomkit::redis
