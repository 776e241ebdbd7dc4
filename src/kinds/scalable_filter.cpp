#include "bloomkit/scalable_filter.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "../core/digest_batches.hpp"
#include "../core/exact_double.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_rules.hpp"
#include "sub_filter_sizing.hpp"

namespace bloomkit {
namespace {

// What errors of a chain's parameters start with.
constexpr const char* invalid_prefix = "scalable filter: ";

[[noreturn]] void invalid(const std::string& problem) {
  throw error(errc::invalid_argument, invalid_prefix + problem);
}

std::string describe(std::size_t index, const filter_config& c) {
  return "sub-filter " + std::to_string(index) + " (capacity " + std::to_string(c.capacity) +
         " at fpp " + detail::exact_double(c.target_fpp) + ")";
}

template <class Sub>
using chain_sizing = detail::sub_filter_sizing<Sub>;

// The sum of get(f) over the sub-filters f.
template <class Total, class Subs, class Get>
Total sum_over(const Subs& subs, Get get) noexcept {
  Total total = 0;
  for (const auto& f : subs) total += get(f);
  return total;
}

}  // namespace

template <class Sub>
void basic_scalable_filter<Sub>::validate(const scalable_config& p) {
  std::string problem =
      detail::capacity_and_fpp_problem("initial capacity", p.initial_capacity, p.target_fpp);
  if (problem.empty()) problem = detail::range_problem("growth factor", p.growth, 1, max_growth);
  if (!problem.empty()) invalid(problem);
  if (!detail::in_open_unit_interval(p.tightening)) {
    invalid("tightening ratio must be in (0, 1), got " + detail::exact_double(p.tightening));
  }
}

template <class Sub>
void basic_scalable_filter<Sub>::check_growth(const scalable_config& p) {
  if (p.growth != 1 && static_cast<double>(p.growth) * p.tightening < 1) {
    invalid("growth " + std::to_string(p.growth) + " with tightening " +
            detail::exact_double(p.tightening) +
            " cannot hold the FPP bound: sub-filter i must keep p (1 - r) r^i, which shrinks "
            "faster than its capacity n0 s^i grows, and its bits per key would grow without "
            "limit; growth must be 1 or at least 1 / tightening (growth 2 or more with "
            "tightening 0.5, tightening 0.5 or more with growth 2)");
  }
}

template <class Sub>
filter_config basic_scalable_filter<Sub>::sub_filter_target(const scalable_config& params,
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

template <class Sub>
filter_config basic_scalable_filter<Sub>::sub_filter_config(const scalable_config& params,
                                                            std::size_t index) {
  filter_config config = sub_filter_target(params, index);
  const std::uint64_t n = config.capacity;
  const double p = config.target_fpp;
  // The fewest bits whose exact FPP at n is at most p_i: the compound bound needs every
  // sub-filter within its own target, small ones included (sizing.hpp).
  const filter_params sized = detail::with_context(
      errc::too_large,
      [&] {
        return "scalable filter: sub-filter " + std::to_string(index) + " (capacity " +
               std::to_string(n) + " at fpp " + detail::exact_double(p) + "): ";
      },
      [&] { return chain_sizing<Sub>::size(n, p); });
  config.cells = sized.bits;
  config.hashes = sized.hashes;
  return config;
}

template <class Sub>
void basic_scalable_filter<Sub>::check_chain(const scalable_config& params,
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
    const filter_config want = detail::with_context(
        errc::invalid_argument, [] { return invalid_prefix; },
        [&] { return sub_filter_target(params, i); });
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
    detail::with_context(
        errc::invalid_argument, [&] { return invalid_prefix + describe(i, c) + ": "; },
        [&] { chain_sizing<Sub>::check(c.cells, c.hashes); });
    const double fpp = chain_sizing<Sub>::fpp(c.cells, c.hashes, c.capacity);
    if (!(fpp <= c.target_fpp * (1 + 1e-9))) {
      invalid(describe(i, c) + " has " + std::to_string(c.cells) + " bits and " +
              std::to_string(c.hashes) + " hashes, an expected FPP of " +
              detail::exact_double(fpp) + " at its capacity, above its target");
    }
    const bool newest = i + 1 == configs.size();
    if (inserted[i] > c.capacity || (!newest && inserted[i] != c.capacity)) {
      invalid(describe(i, c) + " holds " + std::to_string(inserted[i]) + " keys; " +
              (newest ? "at most its capacity fits" : "all but the newest sub-filter are full"));
    }
    bytes += bytes_for_bits(c.cells);
  }
  if (params.memory_ceiling != 0 && bytes > params.memory_ceiling) {
    invalid("sub-filters take " + std::to_string(bytes) +
            " bytes, more than the memory ceiling of " + std::to_string(params.memory_ceiling));
  }
}

template <class Sub>
basic_scalable_filter<Sub>::basic_scalable_filter(const scalable_config& params) : params_(params) {
  validate(params);
  check_growth(params);
  grow();
}

template <class Sub>
basic_scalable_filter<Sub>::basic_scalable_filter(const scalable_config& params,
                                                  std::vector<Sub> sub_filters)
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

template <class Sub>
void basic_scalable_filter<Sub>::grow() {
  const std::size_t index = sub_filters_.size();
  if (index > 0) check_growth(params_);  // a chain loaded from an older file
  const filter_config config = sub_filter_config(params_, index);
  const std::uint64_t needed = bytes_for_bits(config.cells);
  const std::uint64_t in_use = byte_size();
  if (params_.memory_ceiling != 0 && needed > params_.memory_ceiling - in_use) {
    throw error(errc::too_large,
                "scalable filter: memory ceiling of " + std::to_string(params_.memory_ceiling) +
                    " bytes reached: " + describe(index, config) + " needs " +
                    std::to_string(needed) + " bytes on top of the " + std::to_string(in_use) +
                    " in use (" + std::to_string(in_use + needed) + " in all)");
  }
  sub_filters_.push_back(detail::filter_access::make<Sub>(config, bit_array(config.cells), 0));
  find_sources();
}

// Every sub-filter shares the scheme, so a key is hashed once and its digest asked of each.
template <class Sub>
bool basic_scalable_filter<Sub>::insert(std::string_view key) {
  detail::require_writable(read_only());
  const auto digest = Sub::digest_of(key);
  if (contains_digest(digest)) return false;
  if (newest_is_full()) grow();
  sub_filters_.back().insert_digest(digest);
  return true;
}

template <class Sub>
bool basic_scalable_filter<Sub>::contains(std::string_view key) const {
  return contains_digest(Sub::digest_of(key));
}

template <class Sub>
bool basic_scalable_filter<Sub>::contains_digest(const digest_type& digest) const {
  bool present = false;
  for (auto it = sub_filters_.rbegin(); it != sub_filters_.rend() && !present; ++it) {
    present = it->contains_digest_unchecked(digest);
  }
  check_sources();
  return present;
}

template <class Sub>
void basic_scalable_filter<Sub>::find_sources() noexcept {
  source_ = sub_filters_.front().storage().source();
  sources_differ_ = false;
  for (const Sub& sub : sub_filters_) sources_differ_ |= sub.storage().source() != source_;
}

template <class Sub>
void basic_scalable_filter<Sub>::check_sources() const {
  if (sources_differ_) {
    for (const Sub& sub : sub_filters_) sub.storage().check_source();
  } else if (source_ != nullptr) {
    source_->check();
  }
}

using detail::drop_present;

template <class Sub>
std::size_t basic_scalable_filter<Sub>::insert_many(std::span<const std::string_view> keys) {
  detail::require_writable(read_only());
  return insert_candidates(detail::digests_of<Sub>(keys), {});
}

template <class Sub>
std::size_t basic_scalable_filter<Sub>::insert_many(std::span<const digest_type> digests,
                                                    std::span<bool> added) {
  detail::require_writable(read_only());
  detail::require_result_slots(digests.size(), added.size());
  Sub& newest = sub_filters_.back();
  if (sub_filters_.size() == 1 && newest.inserted() <= newest.capacity() &&
      newest.capacity() - newest.inserted() >= digests.size()) {
    return newest.insert_many(digests, added);  // no older sub-filter, and room for every key
  }
  std::fill(added.begin(), added.end(), false);
  return insert_candidates({digests.begin(), digests.end()}, added);
}

template <class Sub>
std::size_t basic_scalable_filter<Sub>::insert_candidates(std::vector<digest_type> candidates,
                                                          std::span<bool> added) {
  std::vector<std::size_t> origin = detail::identity_origin(candidates.size());
  // Keys an older sub-filter holds are not new. The newest is not asked: its insert tells
  // whether a key was new to it, so with one sub-filter a key is hashed and touched once.
  for (auto it = sub_filters_.rbegin() + 1; it != sub_filters_.rend(); ++it) {
    drop_present(*it, candidates, origin, {});
  }
  // The newest takes at most its free room at a time (its insert_many skips keys an earlier
  // candidate already covered, exactly as a loop of insert() would); when it fills up, the rest
  // are checked against it before the next is made.
  const auto fresh = std::make_unique<bool[]>(added.empty() ? 0 : candidates.size());
  std::size_t count = 0;
  std::size_t next = 0;
  while (next < candidates.size()) {
    if (newest_is_full()) {
      std::vector<digest_type> rest(candidates.begin() + static_cast<std::ptrdiff_t>(next),
                                    candidates.end());
      std::vector<std::size_t> rest_origin(origin.begin() + static_cast<std::ptrdiff_t>(next),
                                           origin.end());
      drop_present(sub_filters_.back(), rest, rest_origin, {});
      candidates = std::move(rest);
      origin = std::move(rest_origin);
      next = 0;
      if (candidates.empty()) break;
      grow();
    }
    Sub& newest = sub_filters_.back();
    const std::uint64_t room = newest.capacity() - newest.inserted();
    const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(room, candidates.size() - next));
    const std::span<const digest_type> batch{candidates.data() + next, take};
    if (added.empty()) {
      count += newest.insert_many(batch);
    } else {
      count += newest.insert_many(batch, {fresh.get(), take});
      for (std::size_t i = 0; i < take; ++i) added[origin[next + i]] = fresh[i];
    }
    next += take;
  }
  return count;
}

template <class Sub>
std::size_t basic_scalable_filter<Sub>::contains_many(std::span<const std::string_view> keys,
                                                      std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  return contains_many(detail::digests_of<Sub>(keys), results);
}

template <class Sub>
std::size_t basic_scalable_filter<Sub>::contains_many(std::span<const digest_type> digests,
                                                      std::span<bool> results) const {
  detail::require_result_slots(digests.size(), results.size());
  // The newest answers every key; the older ones only those it lacks.
  std::size_t present = sub_filters_.back().contains_many(digests, results);
  if (sub_filters_.size() == 1 || present == digests.size()) return present;
  std::vector<digest_type> pending;
  std::vector<std::size_t> origin;
  pending.reserve(digests.size() - present);
  origin.reserve(digests.size() - present);
  for (std::size_t i = 0; i < digests.size(); ++i) {
    if (!results[i]) {
      pending.push_back(digests[i]);
      origin.push_back(i);
    }
  }
  const std::size_t missing = pending.size();
  for (auto it = sub_filters_.rbegin() + 1; it != sub_filters_.rend() && !pending.empty(); ++it) {
    drop_present(*it, pending, origin, results);
  }
  return present + (missing - pending.size());
}

template <class Sub>
void basic_scalable_filter<Sub>::merge(const basic_scalable_filter& other) {
  other.check_sources();  // a changed mapped file is reported as such, as by every filter
  throw error(errc::unsupported,
              "cannot merge scalable filters: a union of their sub-filters would hold more keys "
              "than the sub-filters' capacities and break the compound FPP bound; insert the other "
              "filter's keys instead");
}

template <class Sub>
void basic_scalable_filter<Sub>::clear() {
  detail::require_writable(read_only());
  sub_filters_.erase(sub_filters_.begin() + 1, sub_filters_.end());
  sub_filters_.front().clear();
  find_sources();
}

template <class Sub>
std::uint64_t basic_scalable_filter<Sub>::inserted() const noexcept {
  return sum_over<std::uint64_t>(sub_filters_, [](const Sub& f) { return f.inserted(); });
}

template <class Sub>
double basic_scalable_filter<Sub>::estimated_fpp() const noexcept {
  double all_negative = 1;
  for (const auto& f : sub_filters_) all_negative *= 1 - f.estimated_fpp();
  return 1 - all_negative;
}

template <class Sub>
double basic_scalable_filter<Sub>::estimated_count() const noexcept {
  return sum_over<double>(sub_filters_, [](const Sub& f) { return f.estimated_count(); });
}

template <class Sub>
double basic_scalable_filter<Sub>::fill_ratio() const noexcept {
  const auto set =
      sum_over<std::uint64_t>(sub_filters_, [](const Sub& f) { return f.storage().count(); });
  return static_cast<double>(set) / static_cast<double>(cells());
}

template <class Sub>
std::uint64_t basic_scalable_filter<Sub>::capacity() const noexcept {
  return sum_over<std::uint64_t>(sub_filters_, [](const Sub& f) { return f.capacity(); });
}

template <class Sub>
std::uint64_t basic_scalable_filter<Sub>::cells() const noexcept {
  return sum_over<std::uint64_t>(sub_filters_, [](const Sub& f) { return f.cells(); });
}

template <class Sub>
std::size_t basic_scalable_filter<Sub>::byte_size() const noexcept {
  return sum_over<std::size_t>(sub_filters_, [](const Sub& f) { return f.byte_size(); });
}

template <class Sub>
void basic_scalable_filter<Sub>::intersect(const basic_scalable_filter& other) {
  other.check_sources();
  throw error(errc::unsupported,
              "cannot intersect scalable filters: their chains need not match, and an "
              "intersection of sub-filters keeps no capacity; test keys against both instead");
}

template class basic_scalable_filter<bloom_filter>;
template class basic_scalable_filter<blocked_bloom_filter>;

}  // namespace bloomkit
