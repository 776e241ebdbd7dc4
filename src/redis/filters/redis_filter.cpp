// Lookups and inserts of redis_filter (the engine behind them: filter_access.hpp). create, open,
// expire, drop: filter_lifecycle.cpp; info: filter_info.cpp; rebuild: rebuild.cpp; push and
// pull: transfer.cpp.
#include "bloomkit/redis/redis_filter.hpp"

#include <algorithm>
#include <vector>

#include "batch_engine.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "filter_access.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis {

using detail::max_keys_per_round_trip;

bool redis_filter::insert(std::string_view key) {
  std::vector<char> out;
  return detail::write_keys(state_, {&key, 1}, out) == 1;
}

bool redis_filter::contains(std::string_view key) {
  std::vector<char> out;
  return detail::read_keys(state_, {&key, 1}, out) == 1;
}

bool redis_filter::contains_with(std::string_view key, std::span<const command> also,
                                 std::vector<reply>& also_replies) {
  std::vector<char> out;
  return detail::read_keys(state_, {&key, 1}, out, also, &also_replies) == 1;
}

std::size_t redis_filter::insert_many(std::span<const std::string_view> keys,
                                      std::span<bool> fresh) {
  if (!fresh.empty())
    bloomkit::detail::require_result_slots(keys.size(), fresh.size(), "insert_many");
  return detail::in_round_trips(keys, fresh, [&](auto part, std::vector<char>& out) {
    return detail::write_keys(state_, part, out);
  });
}

std::size_t redis_filter::contains_many(std::span<const std::string_view> keys,
                                        std::span<bool> results) {
  bloomkit::detail::require_result_slots(keys.size(), results.size());
  return detail::in_round_trips(keys, results, [&](auto part, std::vector<char>& out) {
    return detail::read_keys(state_, part, out);
  });
}

void redis_filter::flush() {
  detail::flush_count(state_);
}

std::uint64_t redis_filter::inserted() {
  detail::flush_count(state_);  // the count of the last call goes first
  return detail::require_meta(*state_.c, state_.name).inserted;
}

double redis_filter::estimated_count() {
  return info().estimated_count;
}

}  // namespace bloomkit::redis
