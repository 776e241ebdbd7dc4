#include "bloomkit/scalable_bloom_filter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "exact_double.hpp"

namespace bloomkit {
namespace {

[[noreturn]] void invalid(const std::string& problem) {
  throw error(errc::invalid_argument, "scalable filter: " + problem);
}

std::string describe(std::size_t index, const filter_config& c) {
  return "sub-filter " + std::to_string(index) + " (capacity " + std::to_string(c.capacity) +
         " at fpp " + detail::exact_double(c.target_fpp) + ")";
}

// Removes from keys / origin the keys `f` reports present, marking found[origin] for them
// (when `found` is not empty).
void drop_present(const bloom_filter& f, std::vector<bloom_filter::digest_type>& keys,
                  std::vector<std::size_t>& origin, std::span<bool> found) {
  if (keys.empty()) return;
  auto hits = std::make_unique<bool[]>(keys.size());
  f.contains_many(keys, {hits.get(), keys.size()});
  std::size_t kept = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (hits[i]) {
      if (!found.empty()) found[origin[i]] = true;
      continue;
    }
    keys[kept] = keys[i];
    origin[kept] = origin[i];
    ++kept;
  }
  keys.resize(kept);
  origin.resize(kept);
}

}  // namespace

void scalable_bloom_filter::validate(const scalable_params& p) {
  if (p.initial_capacity < 1) invalid("initial capacity must be at least 1 (got 0)");
  if (!std::isfinite(p.target_fpp) || !(p.target_fpp > 0) || !(p.target_fpp < 1)) {
    invalid("target fpp must be in (0, 1), got " + detail::exact_double(p.target_fpp));
  }
  if (p.growth < 1 || p.growth > max_growth) {
    invalid("growth factor must be in 1.." + std::to_string(max_growth) + ", got " +
            std::to_string(p.growth));
  }
  if (!std::isfinite(p.tightening) || !(p.tightening > 0) || !(p.tightening < 1)) {
    invalid("tightening ratio must be in (0, 1), got " + detail::exact_double(p.tightening));
  }
}

void scalable_bloom_filter::check_growth(const scalable_params& p) {
  if (static_cast<double>(p.growth) * p.tightening < 1) {
    invalid("growth " + std::to_string(p.growth) + " with tightening " +
            detail::exact_double(p.tightening) +
            " cannot hold the FPP bound: sub-filter i must keep p (1 - r) r^i, which shrinks "
            "faster than its capacity n0 s^i grows, and its bits per key would grow without "
            "limit; growth must be at least 1 / tightening (growth 2 or more with tightening 0.5, "
            "tightening 0.5 or more with growth 2)");
  }
}

filter_config scalable_bloom_filter::sub_filter_target(const scalable_params& params,
                                                       std::size_t index) {
  auto too_large = [&](const std::string& problem) {
    throw error(errc::too_large,
                "scalable filter: sub-filter " + std::to_string(index) + " " + problem);
  };
  if (index >= max_sub_filters) {
    too_large("cannot be added: a chain holds at most " + std::to_string(max_sub_filters) +
              " sub-filters");
  }
  std::uint64_t n = params.initial_capacity;
  for (std::size_t i = 0; i < index; ++i) {
    if (n > (std::uint64_t{1} << 63) / params.growth) too_large("would hold more than 2^63 keys");
    n *= params.growth;
  }
  const double p = params.target_fpp * (1 - params.tightening) *
                   std::pow(params.tightening, static_cast<double>(index));
  if (!(p >= std::numeric_limits<double>::min())) {
    too_large("would need a false-positive probability below " +
              detail::exact_double(std::numeric_limits<double>::min()));
  }
  return {0, 0, n, p};
}

filter_config scalable_bloom_filter::sub_filter_config(const scalable_params& params,
                                                       std::size_t index) {
  filter_config config = sub_filter_target(params, index);
  const std::uint64_t n = config.capacity;
  const double p = config.target_fpp;
  try {
    // The fewest bits whose exact FPP at n is at most p_i: the compound bound needs every
    // sub-filter within its own target, small ones included (sizing.hpp).
    const filter_params exact = exact_params(n, p);
    config.bits = exact.bits;
    config.hashes = exact.hashes;
  } catch (const error& e) {
    throw error(errc::too_large, "scalable filter: sub-filter " + std::to_string(index) +
                                     " (capacity " + std::to_string(n) + " at fpp " +
                                     detail::exact_double(p) + "): " + e.what());
  }
  return config;
}

void scalable_bloom_filter::check_chain(const scalable_params& params,
                                        std::span<const filter_config> configs,
                                        std::span<const std::uint64_t> inserted) {
  validate(params);
  if (configs.empty() || configs.size() > max_sub_filters) {
    invalid("a chain holds 1.." + std::to_string(max_sub_filters) + " sub-filters, not " +
            std::to_string(configs.size()));
  }
  if (inserted.size() != configs.size()) invalid("one inserted count per sub-filter is needed");
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const filter_config& c = configs[i];
    filter_config want;
    try {
      want = sub_filter_target(params, i);
    } catch (const error& e) {
      invalid(e.what());
    }
    auto mismatch = [&](const char* what, const std::string& got, const std::string& expected) {
      invalid("sub-filter " + std::to_string(i) + " has " + what + " " + got +
              " where the chain's parameters demand " + expected);
    };
    if (c.capacity != want.capacity) {
      mismatch("capacity", std::to_string(c.capacity), std::to_string(want.capacity));
    }
    if (!(std::fabs(c.target_fpp - want.target_fpp) <= 1e-9 * want.target_fpp)) {
      mismatch("target fpp", detail::exact_double(c.target_fpp),
               detail::exact_double(want.target_fpp));
    }
    try {
      validate_params(c.bits, c.hashes);
    } catch (const error& e) {
      invalid(describe(i, c) + ": " + e.what());
    }
    // Files written before exact sizing hold sub-filters sized by the textbook figure (m raised
    // until it was within the target); both kinds of chain load.
    const double fpp = std::min(expected_fpp(c.bits, c.hashes, c.capacity),
                                exact_fpp(c.bits, c.hashes, c.capacity));
    if (!(fpp <= c.target_fpp * (1 + 1e-9))) {
      invalid(describe(i, c) + " has " + std::to_string(c.bits) + " bits and " +
              std::to_string(c.hashes) + " hashes, an expected FPP of " +
              detail::exact_double(fpp) + " at its capacity, above its target");
    }
    const bool newest = i + 1 == configs.size();
    if (inserted[i] > c.capacity || (!newest && inserted[i] != c.capacity)) {
      invalid(describe(i, c) + " holds " + std::to_string(inserted[i]) + " keys; " +
              (newest ? "at most its capacity fits" : "all but the newest sub-filter are full"));
    }
    bytes += bytes_for_bits(c.bits);
  }
  if (params.memory_ceiling != 0 && bytes > params.memory_ceiling) {
    invalid("sub-filters take " + std::to_string(bytes) +
            " bytes, more than the memory ceiling of " + std::to_string(params.memory_ceiling));
  }
}

scalable_bloom_filter::scalable_bloom_filter(const scalable_params& params) : params_(params) {
  validate(params);
  check_growth(params);
  grow();
}

scalable_bloom_filter::scalable_bloom_filter(const scalable_params& params,
                                             std::vector<bloom_filter> sub_filters)
    : params_(params), sub_filters_(std::move(sub_filters)) {
  std::vector<filter_config> configs;
  std::vector<std::uint64_t> inserted;
  for (const auto& f : sub_filters_) {
    configs.push_back(f.config());
    inserted.push_back(f.inserted());
  }
  check_chain(params_, configs, inserted);
  find_sources();
}

void scalable_bloom_filter::grow() {
  const std::size_t index = sub_filters_.size();
  if (index > 0) check_growth(params_);  // a chain loaded from an older file
  const filter_config config = sub_filter_config(params_, index);
  const std::uint64_t needed = bytes_for_bits(config.bits);
  const std::uint64_t in_use = byte_size();
  if (params_.memory_ceiling != 0 && needed > params_.memory_ceiling - in_use) {
    throw error(errc::too_large,
                "scalable filter: memory ceiling of " + std::to_string(params_.memory_ceiling) +
                    " bytes reached: " + describe(index, config) + " needs " +
                    std::to_string(needed) + " bytes on top of the " + std::to_string(in_use) +
                    " in use (" + std::to_string(in_use + needed) + " in all)");
  }
  bloom_filter next(config, bit_array(config.bits), 0);
  sub_filters_.push_back(std::move(next));
  find_sources();
}

void scalable_bloom_filter::require_writable() const {
  if (read_only()) {
    throw error(errc::read_only,
                "scalable filter is read-only (it maps a file); load it to modify it");
  }
}

// Every sub-filter shares the scheme, so a key is hashed once and its digest asked of each.
bool scalable_bloom_filter::insert(std::string_view key) {
  require_writable();
  const auto digest = bloom_filter::digest_of(key);
  if (contains_digest(digest)) return false;
  if (newest_is_full()) grow();
  sub_filters_.back().insert_digest(digest);
  return true;
}

bool scalable_bloom_filter::contains(std::string_view key) const {
  return contains_digest(bloom_filter::digest_of(key));
}

bool scalable_bloom_filter::contains_digest(const bloom_filter::digest_type& digest) const {
  bool present = false;
  for (auto it = sub_filters_.rbegin(); it != sub_filters_.rend() && !present; ++it) {
    present = it->contains_digest_unchecked(digest);
  }
  check_sources();
  return present;
}

void scalable_bloom_filter::find_sources() noexcept {
  source_ = sub_filters_.front().storage().source();
  sources_differ_ = false;
  for (const bloom_filter& sub : sub_filters_) sources_differ_ |= sub.storage().source() != source_;
}

void scalable_bloom_filter::check_sources() const {
  if (sources_differ_) {
    for (const bloom_filter& sub : sub_filters_) sub.storage().check_source();
  } else if (source_ != nullptr) {
    source_->check();
  }
}

namespace {
std::vector<bloom_filter::digest_type> digests_of(std::span<const std::string_view> keys) {
  std::vector<bloom_filter::digest_type> digests(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) digests[i] = bloom_filter::digest_of(keys[i]);
  return digests;
}
}  // namespace

std::size_t scalable_bloom_filter::insert_many(std::span<const std::string_view> keys) {
  require_writable();
  auto candidates = digests_of(keys);
  std::vector<std::size_t> origin(keys.size());
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = i;
  for (auto it = sub_filters_.rbegin(); it != sub_filters_.rend(); ++it) {
    drop_present(*it, candidates, origin, {});
  }
  // The candidates are new to every sub-filter. The newest takes at most its free room at a
  // time (its insert_many skips keys an earlier candidate already covered, exactly as a loop of
  // insert() would); when it fills up, the rest are checked against it before the next is made.
  std::size_t added = 0;
  std::size_t next = 0;
  while (next < candidates.size()) {
    if (newest_is_full()) {
      std::vector<bloom_filter::digest_type> rest(
          candidates.begin() + static_cast<std::ptrdiff_t>(next), candidates.end());
      std::vector<std::size_t> rest_origin(rest.size());
      drop_present(sub_filters_.back(), rest, rest_origin, {});
      candidates = std::move(rest);
      next = 0;
      if (candidates.empty()) break;
      grow();
    }
    bloom_filter& newest = sub_filters_.back();
    const std::uint64_t room = newest.capacity() - newest.inserted();
    const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(room, candidates.size() - next));
    added += newest.insert_many({candidates.data() + next, take});
    next += take;
  }
  return added;
}

std::size_t scalable_bloom_filter::contains_many(std::span<const std::string_view> keys,
                                                 std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  std::fill(results.begin(), results.end(), false);
  auto pending = digests_of(keys);
  std::vector<std::size_t> origin(keys.size());
  for (std::size_t i = 0; i < origin.size(); ++i) origin[i] = i;
  for (auto it = sub_filters_.rbegin(); it != sub_filters_.rend() && !pending.empty(); ++it) {
    drop_present(*it, pending, origin, results);
  }
  return keys.size() - pending.size();
}

void scalable_bloom_filter::merge(const scalable_bloom_filter&) {
  throw error(errc::unsupported,
              "cannot merge scalable filters: a union of their sub-filters would hold more keys "
              "than the sub-filters' capacities and break the compound FPP bound; insert the other "
              "filter's keys instead");
}

void scalable_bloom_filter::clear() {
  require_writable();
  sub_filters_.erase(sub_filters_.begin() + 1, sub_filters_.end());
  sub_filters_.front().clear();
  find_sources();
}

std::uint64_t scalable_bloom_filter::inserted() const noexcept {
  std::uint64_t total = 0;
  for (const auto& f : sub_filters_) total += f.inserted();
  return total;
}

double scalable_bloom_filter::estimated_fpp() const noexcept {
  double all_negative = 1;
  for (const auto& f : sub_filters_) all_negative *= 1 - f.estimated_fpp();
  return 1 - all_negative;
}

double scalable_bloom_filter::estimated_count() const noexcept {
  double total = 0;
  for (const auto& f : sub_filters_) total += f.estimated_count();
  return total;
}

double scalable_bloom_filter::fill_ratio() const noexcept {
  std::uint64_t set = 0;
  for (const auto& f : sub_filters_) set += f.storage().count();
  return static_cast<double>(set) / static_cast<double>(bits());
}

std::uint64_t scalable_bloom_filter::capacity() const noexcept {
  std::uint64_t total = 0;
  for (const auto& f : sub_filters_) total += f.capacity();
  return total;
}

std::uint64_t scalable_bloom_filter::bits() const noexcept {
  std::uint64_t total = 0;
  for (const auto& f : sub_filters_) total += f.bits();
  return total;
}

std::size_t scalable_bloom_filter::byte_size() const noexcept {
  std::size_t total = 0;
  for (const auto& f : sub_filters_) total += f.byte_size();
  return total;
}

}  // namespace bloomkit
