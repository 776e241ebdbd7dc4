#pragma once
// A row's samples (the filter's time per key and its limit's, over the in-process repetitions)
// and the timed limit loops: the best of the prefetch distances and hints the limit tries, so the
// limit is the machine's, not one loop's choice.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "machine_limits.hpp"
#include "timing.hpp"

namespace bloomkit::bench::issue32 {

inline volatile std::uint64_t sink;  // keeps the loops' results alive

struct limit_sample {
  per_key t;
  std::string config;  // "L2/32": prefetch hint and distance of the fastest variant
};

class row_samples {
 public:
  explicit row_samples(std::string name) : name_(std::move(name)) {}
  void add(per_key t) {
    cpu_.push_back(t.cpu_ns);
    wall_.push_back(t.wall_ns);
  }
  void add_limit(const limit_sample& s) {
    limit_.push_back(s.t.cpu_ns);
    limit_config_ = s.config;
  }
  void add_alt_limit(const limit_sample& s) { alt_limit_.push_back(s.t.cpu_ns); }
  std::size_t positives = 0;
  std::size_t queries = 0;

  void print(std::uint64_t n) const {
    std::printf(
        "{\"type\": \"row\", \"row\": \"%s\", \"n\": %llu, \"cpu_ns\": %.3f, "
        "\"wall_ns\": %.3f, \"samples\": %zu",
        name_.c_str(), static_cast<unsigned long long>(n), median(cpu_), median(wall_),
        cpu_.size());
    if (!limit_.empty()) {
      std::printf(", \"limit_ns\": %.3f, \"limit_config\": \"%s\"", median(limit_),
                  limit_config_.c_str());
    }
    if (!alt_limit_.empty()) std::printf(", \"alt_limit_ns\": %.3f", median(alt_limit_));
    if (queries > 0) std::printf(", \"positives\": %zu, \"queries\": %zu", positives, queries);
    std::printf("}\n");
    std::fflush(stdout);
  }

 private:
  std::string name_;
  std::vector<double> cpu_, wall_, limit_, alt_limit_;
  std::string limit_config_;
};

namespace detail {

template <class Hash, bool Write, int Locality, std::size_t Distance, bool Stream, class Key>
void try_variant(limit_array& arr, std::span<const Key> keys, limit_sample& best) {
  // Timed warm, after one untimed pass: each variant in the same state, whatever ran before it.
  std::uint64_t sum = hash_and_access<Hash, Locality, Distance, Write, Stream>(arr.mutable_words(),
                                                                               arr.lines(), keys);
  const per_key t = time_per_key(keys.size(), [&] {
    sum += hash_and_access<Hash, Locality, Distance, Write, Stream>(arr.mutable_words(),
                                                                    arr.lines(), keys);
  });
  sink = sum;
  if (best.config.empty() || t.cpu_ns < best.t.cpu_ns) {
    best = {t, std::string(Locality == 3 ? "L1/" : "L2/") + std::to_string(Distance) +
                   (Stream ? "+nta" : "")};
  }
}

// The key stream read plainly and non-temporally (the library's pipelines read it the second
// way since it was found: the limit must be the better of the two).
template <class Hash, bool Write, bool Stream, class Key>
void try_distances(limit_array& arr, std::span<const Key> keys, limit_sample& best) {
  try_variant<Hash, Write, 2, 16, Stream>(arr, keys, best);
  try_variant<Hash, Write, 2, 32, Stream>(arr, keys, best);
  try_variant<Hash, Write, 2, 64, Stream>(arr, keys, best);
  try_variant<Hash, Write, 3, 16, Stream>(arr, keys, best);
  try_variant<Hash, Write, 3, 32, Stream>(arr, keys, best);
  try_variant<Hash, Write, 3, 64, Stream>(arr, keys, best);
}

template <class Hash, bool Write, class Key>
limit_sample best_of_variants(limit_array& arr, std::span<const Key> keys) {
  limit_sample best;
  try_distances<Hash, Write, false>(arr, keys, best);
  try_distances<Hash, Write, true>(arr, keys, best);
  return best;
}

}  // namespace detail

// Hash + one prefetched random line read per key (batched lookups' limit).
template <class Hash, class Key>
limit_sample best_hash_and_read(limit_array& arr, std::span<const Key> keys) {
  return detail::best_of_variants<Hash, false>(arr, keys);
}
// Hash + one prefetched random line updated per key (inserts; the issue's limit is the read).
template <class Hash, class Key>
limit_sample best_hash_and_write(limit_array& arr, std::span<const Key> keys) {
  return detail::best_of_variants<Hash, true>(arr, keys);
}

// Hash + one dependent random read per key (single-key lookups' limit).
template <class Hash, class Key>
limit_sample hash_then_chase_limit(const limit_array& arr, std::span<const Key> keys) {
  std::uint64_t v = 0;
  const per_key t =
      time_per_key(keys.size(), [&] { v = hash_then_chase<Hash>(arr.words(), arr.lines(), keys); });
  sink = v;
  return {t, "dependent"};
}

// Hash + one unprefetched independent read per key (a single-key loop's overlapped bound).
template <class Hash, class Key>
limit_sample hash_then_read_limit(const limit_array& arr, std::span<const Key> keys) {
  std::uint64_t v = 0;
  const per_key t =
      time_per_key(keys.size(), [&] { v = hash_then_read<Hash>(arr.words(), arr.lines(), keys); });
  sink = v;
  return {t, "independent"};
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
