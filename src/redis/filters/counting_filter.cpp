// redis_counting_filter: create, open and remove; everything else is redis_filter's, over u4
// cells (native_layout, counter_removal.cpp).
#include "bloomkit/redis/counting_filter.hpp"

#include <algorithm>
#include <ctime>
#include <utility>
#include <vector>

#include "batch_engine.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "filter_access.hpp"
#include "filter_lifecycle.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis {

redis_counting_filter::redis_counting_filter(client& c, std::string name,
                                             const detail::filter_meta& m, filter_options options)
    : redis_filter(c, std::move(name), m, options) {}

redis_counting_filter redis_counting_filter::create(client& c, std::string name,
                                                    std::uint64_t capacity, double fpp,
                                                    unsigned shard_bits, filter_options options) {
  detail::validate_name(name);
  detail::filter_meta want = detail::meta_for(capacity, fpp, shard_bits, detail::counter_bits);
  want.created = static_cast<std::int64_t>(std::time(nullptr));
  const detail::filter_meta m = detail::create_with(c, name, want, nullptr);
  return redis_counting_filter(c, std::move(name), m, options);
}

redis_counting_filter redis_counting_filter::open(client& c, std::string name,
                                                  filter_options options) {
  detail::validate_name(name);
  const detail::filter_meta m = detail::require_meta(c, name);
  if (m.cell_bits == 1) {
    throw error(errc::incompatible, "filter '" + name +
                                        "' is a bit filter, not a counting one: it cannot "
                                        "remove keys (create it with --kind counting)");
  }
  return redis_counting_filter(c, std::move(name), m, options);
}

bool redis_counting_filter::remove(std::string_view key) {
  std::vector<char> out;
  return detail::remove_keys(state_, {&key, 1}, out) == 1;
}

std::size_t redis_counting_filter::remove_many(std::span<const std::string_view> keys,
                                               std::span<bool> removed) {
  if (!removed.empty())
    bloomkit::detail::require_result_slots(keys.size(), removed.size(), "remove_many");
  return detail::in_round_trips(keys, removed, [&](auto part, std::vector<char>& out) {
    return detail::remove_keys(state_, part, out);
  });
}

}  // namespace bloomkit::redis
