#pragma once
// A row's samples (the filter's time per key and its limit's, over the in-process repetitions)
// and the timed limit loops: the prefetch distances and hints the limit tries, so the limit is the
// machine's, not one loop's choice.
//
// The limit is the best variant's median over the repetitions, as the row is its own median. It
// was the fastest single timing of the variants in each repetition: on this shared machine the
// filter's 10^7 rows measured 13.0 and 19.5 ns per key in one process a second apart (hits and
// misses, the same loop), so the least of twelve timings caught the quiet moments and the row's
// one timing the others (after/limit 1.14-1.74x across the processes of one run).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "machine_limits.hpp"
#include "timing.hpp"

namespace bloomkit::bench::issue32 {

inline volatile std::uint64_t sink;  // keeps the loops' results alive

// One timing of one limit loop; config names it: "L2/32": prefetch hint and distance.
struct limit_sample {
  per_key t;
  std::string config;
};
// Every variant's timing of one repetition.
using limit_samples = std::vector<limit_sample>;

// Each variant's samples over the repetitions; the limit is the least median among them.
class limit_estimate {
 public:
  void add(const limit_samples& samples) {
    for (const auto& s : samples) {
      by_config_[s.config].push_back(s.t.cpu_ns);
      fastest_single_ = std::min(fastest_single_, s.t.cpu_ns);
    }
  }
  bool empty() const noexcept { return by_config_.empty(); }
  // The best variant: its median and its name.
  std::pair<double, std::string> best() const {
    std::pair<double, std::string> b{std::numeric_limits<double>::infinity(), ""};
    for (const auto& [config, v] : by_config_) {
      const double m = median(v);
      if (m < b.first) b = {m, config};
    }
    return b;
  }
  double fastest_single() const noexcept { return fastest_single_; }

 private:
  std::map<std::string, std::vector<double>> by_config_;
  double fastest_single_ = std::numeric_limits<double>::infinity();
};

class row_samples {
 public:
  explicit row_samples(std::string name) : name_(std::move(name)) {}
  void add(per_key t) {
    cpu_.push_back(t.cpu_ns);
    wall_.push_back(t.wall_ns);
  }
  void add_limit(const limit_samples& s) { limit_.add(s); }
  void add_alt_limit(const limit_samples& s) { alt_limit_.add(s); }
  // The limit's variant with the least median so far ("" before the first add_limit).
  std::string best_limit_config() const { return limit_.empty() ? "" : limit_.best().second; }
  // A row / limit ratio timed as a pair (add_paired_limit below).
  void add_pair(double ratio) { pairs_.push_back(ratio); }
  // A fill's chunk and the limit on its keys, in ns (paired_insert_chunk below): the pair's ratio
  // and the fill's totals, whose ratio includes the first touch of the new filter's pages.
  void add_chunk_pair(double row_ns, double limit_ns) {
    if (limit_ns <= 0) return;
    add_pair(row_ns / limit_ns);
    fill_row_ns_ += row_ns;
    fill_limit_ns_ += limit_ns;
  }
  std::size_t positives = 0;
  std::size_t queries = 0;

  // limit_ns: the best variant's median (above); paired_ratio: the median of the pairs' ratios;
  // fill_ratio: a paired fill's total over its limit's (chunks included whatever their phase);
  // limit_fastest_ns: the fastest single timing of any variant, the estimate before 2026-11-30,
  // for comparison.
  void print(std::uint64_t n) const {
    std::printf(
        "{\"type\": \"row\", \"row\": \"%s\", \"n\": %llu, \"cpu_ns\": %.3f, "
        "\"wall_ns\": %.3f, \"samples\": %zu",
        name_.c_str(), static_cast<unsigned long long>(n), median(cpu_), median(wall_),
        cpu_.size());
    if (!limit_.empty()) {
      const auto [ns, config] = limit_.best();
      std::printf(", \"limit_ns\": %.3f, \"limit_config\": \"%s\", \"limit_fastest_ns\": %.3f", ns,
                  config.c_str(), limit_.fastest_single());
    }
    if (!alt_limit_.empty()) std::printf(", \"alt_limit_ns\": %.3f", alt_limit_.best().first);
    if (!pairs_.empty()) {
      std::printf(", \"paired_ratio\": %.4f, \"pairs\": %zu", median(pairs_), pairs_.size());
    }
    if (fill_limit_ns_ > 0) std::printf(", \"fill_ratio\": %.4f", fill_row_ns_ / fill_limit_ns_);
    if (queries > 0) std::printf(", \"positives\": %zu, \"queries\": %zu", positives, queries);
    std::printf("}\n");
    std::fflush(stdout);
  }

 private:
  std::string name_;
  std::vector<double> cpu_, wall_, pairs_;
  double fill_row_ns_ = 0, fill_limit_ns_ = 0;
  limit_estimate limit_, alt_limit_;
};

namespace detail {

// One limit loop: its prefetch hint (3: L1, 2: L2), distance and key stream.
template <int Locality, std::size_t Distance, bool Stream>
struct variant {
  static std::string name() {
    return std::string(Locality == 3 ? "L1/" : "L2/") + std::to_string(Distance) +
           (Stream ? "+nta" : "");
  }
  // Timed warm, after one untimed pass: each variant in the same state, whatever ran before it.
  template <class Hash, bool Write, class Key>
  static per_key time(limit_array& arr, std::span<const Key> keys) {
    std::uint64_t sum = hash_and_access<Hash, Locality, Distance, Write, Stream>(
        arr.mutable_words(), arr.lines(), keys);
    const per_key t = time_per_key(keys.size(), [&] {
      sum += hash_and_access<Hash, Locality, Distance, Write, Stream>(arr.mutable_words(),
                                                                      arr.lines(), keys);
    });
    sink = sum;
    return t;
  }
};

// visit(variant<...>{}) for every variant the limit tries: distances 16/32/64 into L2 and L1,
// the key stream read plainly and non-temporally (the library's pipelines read it the second way
// since it was found: the limit must be the better of the two).
template <bool Stream, class Visit>
void each_distance(Visit& visit) {
  visit(variant<2, 16, Stream>{});
  visit(variant<2, 32, Stream>{});
  visit(variant<2, 64, Stream>{});
  visit(variant<3, 16, Stream>{});
  visit(variant<3, 32, Stream>{});
  visit(variant<3, 64, Stream>{});
}
template <class Visit>
void each_variant(Visit visit) {
  each_distance<false>(visit);
  each_distance<true>(visit);
}

template <class Hash, bool Write, class Key>
limit_samples all_variants(limit_array& arr, std::span<const Key> keys) {
  limit_samples out;
  each_variant([&](auto v) { out.push_back({v.template time<Hash, Write>(arr, keys), v.name()}); });
  return out;
}

}  // namespace detail

// Hash + one prefetched random line read per key (batched lookups' limit), every variant timed
// once.
template <class Hash, class Key>
limit_samples hash_and_read_variants(limit_array& arr, std::span<const Key> keys) {
  return detail::all_variants<Hash, false>(arr, keys);
}
// Hash + one prefetched random line updated per key (inserts; the issue's limit is the read).
template <class Hash, class Key>
limit_samples hash_and_write_variants(limit_array& arr, std::span<const Key> keys) {
  return detail::all_variants<Hash, true>(arr, keys);
}

// One timing of the row's best limit variant so far (hash + read) on `keys`; zero before the
// row's first add_limit.
template <class Hash, class Key>
per_key time_best_limit(const row_samples& row, limit_array& arr, std::span<const Key> keys) {
  const std::string best = row.best_limit_config();
  per_key limit{};
  detail::each_variant([&](auto v) {
    if (v.name() == best) limit = v.template time<Hash, false>(arr, keys);
  });
  return limit;
}

// One more timing of a batched lookup row's loop (loop() returns it, timed warm), right after one
// of the limit's best variant so far on the row's keys: the pair's ratio goes to the row. On this
// shared machine a phase of slow memory lasts about a second, so the two of a pair see the same
// phase, where the row's own timing and the limit's, a second or more apart, may not. Inserts
// pair chunk by chunk instead (paired_insert_chunk).
template <class Hash, class Key, class Loop>
void add_paired_limit(row_samples& row, limit_array& arr, std::span<const Key> keys, Loop loop) {
  const per_key limit = time_best_limit<Hash>(row, arr, keys);
  const per_key t = loop();
  if (limit.cpu_ns > 0) row.add_pair(t.cpu_ns / limit.cpu_ns);
}

// One chunk of a fill: the limit's best variant on the chunk's keys, then insert() of the same
// keys (timed, returned). The pair's ratio goes to the row, and both times to its fill totals. A
// fill of 10^8 keys takes seconds, longer than a phase of the machine, so its chunks pair (2^20
// keys, 20-40 ms each) where the whole fill could not. The first chunks of a new filter also pay
// the kernel's first touch of its pages (row_samples::print reports the fill's ratio with them).
template <class Hash, class Key, class Insert>
per_key paired_insert_chunk(row_samples& row, limit_array& arr, std::span<const Key> keys,
                            Insert insert) {
  const per_key limit = time_best_limit<Hash>(row, arr, keys);
  const per_key t = time_per_key(keys.size(), insert);
  row.add_chunk_pair(t.cpu_ns * static_cast<double>(keys.size()),
                     limit.cpu_ns * static_cast<double>(keys.size()));
  return t;
}

// Hash + one dependent random read per key (single-key lookups' limit).
template <class Hash, class Key>
limit_samples hash_then_chase_limit(const limit_array& arr, std::span<const Key> keys) {
  std::uint64_t v = 0;
  const per_key t =
      time_per_key(keys.size(), [&] { v = hash_then_chase<Hash>(arr.words(), arr.lines(), keys); });
  sink = v;
  return {{t, "dependent"}};
}

// Hash + one unprefetched independent read per key (a single-key loop's overlapped bound).
template <class Hash, class Key>
limit_samples hash_then_read_limit(const limit_array& arr, std::span<const Key> keys) {
  std::uint64_t v = 0;
  const per_key t =
      time_per_key(keys.size(), [&] { v = hash_then_read<Hash>(arr.words(), arr.lines(), keys); });
  sink = v;
  return {{t, "independent"}};
}

// The single-key path: one contains per key, in a loop; hits must all answer true.
template <class Filter>
per_key single_key_loop(const Filter& f, std::span<const std::string_view> keys, bool hits) {
  std::size_t found = 0;
  const per_key t = time_per_key(keys.size(), [&] {
    for (const auto k : keys) found += f.contains(k);
  });
  if (hits && found != keys.size()) {
    std::fprintf(stderr, "issue32_bench: a false negative in the single-key loop\n");
    std::exit(2);
  }
  sink = found;
  return t;
}

}  // namespace bloomkit::bench::issue32
