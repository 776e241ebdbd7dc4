#pragma once
// bloomkit_bench's data: the keys and filters of one n, built lazily before timing and shared
// between benchmarks, and the reporting every benchmark ends with (bloom_bench.cpp).

#include <benchmark/benchmark.h>
#include <bloom.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "bloomkit/window_filter.hpp"
#include "memory_probe.hpp"

namespace bloomkit::bench {

constexpr double target_p = 0.01;
constexpr std::size_t batch = 1024;              // keys (or reads) per benchmark iteration
constexpr std::size_t max_query_keys = 1 << 22;  // per query set: 4 Mi keys, about 256 MiB
constexpr std::size_t read_indices = 1 << 20;    // precomputed random line indices
constexpr std::size_t prefetch_distance = 64;    // reads ahead in mem/random_read_prefetch*
constexpr std::uint64_t chase_bytes = std::uint64_t{1} << 30;

inline bool keep_all_sizes = false;

// ---------------------------------------------------------------------------------------------
// Timing of the untimed setup, reported on stderr so a long first iteration is explained.

class stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

inline void note(const std::string& what) {
  std::fprintf(stderr, "[bloomkit_bench] %s\n", what.c_str());
  std::fflush(stderr);
}

inline std::string fmt_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// ---------------------------------------------------------------------------------------------
// libbloom, owned.

class libbloom_filter {
 public:
  explicit libbloom_filter(std::size_t n) {
    if (n > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
      throw std::runtime_error("libbloom takes an int entry count; n is too large");
    }
    if (bloom_init(&b_, static_cast<int>(n), target_p) != 0) {
      throw std::runtime_error("bloom_init failed for n = " + std::to_string(n));
    }
  }
  libbloom_filter(const libbloom_filter&) = delete;
  libbloom_filter& operator=(const libbloom_filter&) = delete;
  ~libbloom_filter() { bloom_free(&b_); }

  bool add(std::string_view key) {
    return bloom_add(&b_, key.data(), static_cast<int>(key.size())) == 0;
  }
  bool check(std::string_view key) {
    return bloom_check(&b_, key.data(), static_cast<int>(key.size())) == 1;
  }
  void reset() { bloom_reset(&b_); }
  int hashes() const { return b_.hashes; }
  int bytes() const { return b_.bytes; }

 private:
  struct bloom b_ {};
};

// ---------------------------------------------------------------------------------------------
// Everything measured at one n, built lazily (before timing) and shared between benchmarks.

struct membound_buffer {
  bloomkit::bit_array buffer;          // allocated like a filter's bits (huge pages if large)
  std::vector<std::uint32_t> indices;  // random line indices, plus prefetch_distance extra
};

class dataset {
 public:
  explicit dataset(std::size_t n) : n_(n) {}

  std::size_t n() const { return n_; }

  const key_set& inserts() {
    if (!inserts_) {
      stopwatch t;
      inserts_ = bloomkit::bench::make_insert_keys(n_);
      note("n=" + std::to_string(n_) + ": generated " + std::to_string(inserts_->size()) +
           " insert keys (" + std::to_string(inserts_->total_bytes() >> 20) + " MiB) in " +
           fmt_seconds(t.seconds()));
    }
    return *inserts_;
  }
  const key_set& hits() {
    if (!hits_) {
      stopwatch t;
      hits_ = bloomkit::bench::make_hit_queries(n_, std::min(n_, max_query_keys), 0x68697473 + n_);
      note("n=" + std::to_string(n_) + ": sampled " + std::to_string(hits_->size()) +
           " hit queries in " + fmt_seconds(t.seconds()));
    }
    return *hits_;
  }
  const key_set& misses() {
    if (!misses_) {
      stopwatch t;
      misses_ = bloomkit::bench::make_miss_queries(std::min(n_, max_query_keys));
      note("n=" + std::to_string(n_) + ": generated " + std::to_string(misses_->size()) +
           " miss queries in " + fmt_seconds(t.seconds()));
    }
    return *misses_;
  }

  // A filter holding all n inserted keys.
  const bloomkit::bloom_filter& full_filter() {
    return filled(full_, "bloomkit",
                  [n = n_] { return bloomkit::bloom_filter::for_capacity(n, target_p); });
  }
  const bloomkit::blocked_bloom_filter& full_blocked() {
    return filled(blocked_full_, "blocked",
                  [n = n_] { return bloomkit::blocked_bloom_filter::for_capacity(n, target_p); });
  }
  // The same bits read through the blocked filter's portable (non-AVX2) path.
  const bloomkit::blocked_bloom_filter& full_blocked_portable() {
    if (!blocked_portable_) {
      blocked_portable_.emplace(full_blocked());
      blocked_portable_->set_simd(false);
    }
    return *blocked_portable_;
  }
  // Equal memory, 12 bits per key: the classic filter with k = 8 (optimal for 12 bits per
  // key) and the blocked filter of 12 n / 256 blocks.
  const bloomkit::bloom_filter& full_classic_12() {
    return filled(classic_12_, "classic at 12 bits/key",
                  [n = n_] { return bloomkit::bloom_filter(bits_12(n), 8); });
  }
  const bloomkit::blocked_bloom_filter& full_blocked_12() {
    return filled(blocked_12_, "blocked at 12 bits/key", [n = n_] {
      return bloomkit::blocked_bloom_filter::with_blocks(bits_12(n) / 256);
    });
  }
  static std::uint64_t bits_12(std::size_t n) { return (std::uint64_t{n} * 12 + 255) / 256 * 256; }
  const bloomkit::counting_bloom_filter& full_counting() {
    return filled(counting_full_, "counting",
                  [n = n_] { return bloomkit::counting_bloom_filter::for_capacity(n, target_p); });
  }
  bloomkit::counting_bloom_filter& insert_counting() {
    return insert_target(counting_insert_, counting_empty_, [n = n_] {
      return bloomkit::counting_bloom_filter::for_capacity(n, target_p);
    });
  }
  void reset_insert_counting() { reset(*counting_insert_, *counting_empty_); }
  // Chains from n0 = n/8: four sub-filters once the n keys are in.
  const bloomkit::scalable_bloom_filter& full_scalable() {
    return filled(scalable_full_, "scalable (classic)",
                  [n = n_] { return bloomkit::scalable_bloom_filter(n / 8 + 1, target_p); });
  }
  const bloomkit::scalable_blocked_bloom_filter& full_scalable_blocked() {
    return filled(scalable_blocked_full_, "scalable (blocked)", [n = n_] {
      return bloomkit::scalable_blocked_bloom_filter(n / 8 + 1, target_p);
    });
  }

  // A time window of n keys per window in 8 slices, each slice holding its n/8 keys (the sized
  // rate), looked up at the end of slice 7: every slice live and full.
  const bloomkit::window_filter& full_window() {
    if (!window_full_) {
      const auto keys = inserts().keys();
      stopwatch t;
      constexpr std::uint32_t slices = 8;
      window_full_.emplace(bloomkit::window_config{n_, target_p, slices * 1000,
                                                   bloomkit::window_unit::seconds, slices});
      for (std::uint32_t s = 0; s < slices; ++s) {
        window_full_->set_now(s * 1000);
        const std::size_t end = keys.size() * (s + 1) / slices;
        for (std::size_t i = keys.size() * s / slices; i < end; i += batch) {
          window_full_->insert_many(keys.subspan(i, std::min(batch, end - i)));
        }
      }
      window_full_->set_now(slices * 1000 - 1);
      note("n=" + std::to_string(n_) + ": built the window filter (" +
           std::to_string(window_full_->byte_size() >> 10) + " KiB, " +
           std::to_string(static_cast<double>(window_full_->byte_size()) * 8 /
                          static_cast<double>(n_)) +
           " bits/key) in " + fmt_seconds(t.seconds()));
    }
    return *window_full_;
  }
  // A count window of n inserts in 8 slices: inserts rotate through its slots, clearing one
  // every n/8 inserts (its steady state), so it never needs emptying.
  bloomkit::window_filter& insert_window() {
    if (!window_insert_) {
      window_insert_.emplace(
          bloomkit::window_config{n_, target_p, n_, bloomkit::window_unit::inserts, 8});
    }
    return *window_insert_;
  }

  // The target of the insert benchmarks, empty and with every page faulted in.
  bloomkit::bloom_filter& insert_filter() {
    return insert_target(insert_target_, empty_,
                         [n = n_] { return bloomkit::bloom_filter::for_capacity(n, target_p); });
  }
  bloomkit::blocked_bloom_filter& insert_blocked() {
    return insert_target(blocked_insert_, blocked_empty_, [n = n_] {
      return bloomkit::blocked_bloom_filter::for_capacity(n, target_p);
    });
  }
  // Empties an insert target. clear() hands the pages back to the kernel (MADV_DONTNEED), so
  // the next inserts would pay page faults (and, for huge pages, compaction: 0.2 s for the first
  // 1024 keys at n = 1e8 here). A filter pays that once in its life, not per insert, so the
  // benchmark faults the pages in again, untimed: intersecting with an empty filter of the same
  // shape writes every word.
  void reset_insert_filter() { reset(*insert_target_, *empty_); }
  void reset_insert_blocked() { reset(*blocked_insert_, *blocked_empty_); }

  libbloom_filter& full_libbloom() {
    if (!libbloom_full_) {
      const auto keys = inserts().keys();
      stopwatch t;
      libbloom_full_ = std::make_unique<libbloom_filter>(n_);
      for (const auto key : keys) libbloom_full_->add(key);
      note("n=" + std::to_string(n_) + ": built the libbloom filter (" +
           std::to_string(libbloom_full_->bytes() >> 10) + " KiB, k=" +
           std::to_string(libbloom_full_->hashes()) + ") in " + fmt_seconds(t.seconds()));
    }
    return *libbloom_full_;
  }
  // libbloom's target; reset() is a memset, which also faults in every page of the calloc'd bits.
  libbloom_filter& insert_libbloom() {
    if (!libbloom_insert_) {
      libbloom_insert_ = std::make_unique<libbloom_filter>(n_);
      libbloom_insert_->reset();
    }
    return *libbloom_insert_;
  }

  // A buffer of the filter's size and random line indices into it. Word 0 of every line holds
  // the index of the next line of one random cycle through all lines (for mem/chase); the
  // other words are random.
  const membound_buffer& membound() {
    if (!membound_) {
      const std::uint64_t bits = bloomkit::optimal_params(n_, target_p).bits;
      membound_buffer m{bloomkit::bit_array(bits), {}};
      splitmix64 rng(0x6d656d + n_);
      auto words = m.buffer.mutable_words();
      for (auto& w : words) w = rng();
      bloomkit::bench::link_random_cycle(words, rng);
      m.indices = bloomkit::bench::random_line_indices(words.size() / bloomkit::bench::line_words,
                                                       read_indices, prefetch_distance, rng);
      membound_ = std::move(m);
    }
    return *membound_;
  }

  // Persistent positions, so that successive runs of a benchmark continue through the keys.
  std::size_t& cursor(const std::string& name) { return cursors_[name]; }

 private:
  std::size_t n_;
  std::optional<key_set> inserts_, hits_, misses_;
  template <class Filter, class Make>
  const Filter& filled(std::optional<Filter>& slot, const char* what, Make make) {
    if (!slot) {
      const auto keys = inserts().keys();
      stopwatch t;
      slot.emplace(make());
      for (std::size_t i = 0; i < keys.size(); i += batch) {
        slot->insert_many(keys.subspan(i, std::min(batch, keys.size() - i)));
      }
      note("n=" + std::to_string(n_) + ": built the " + what + " filter (" +
           std::to_string(slot->byte_size() >> 10) + " KiB, k=" + std::to_string(slot->hashes()) +
           ") in " + fmt_seconds(t.seconds()));
    }
    return *slot;
  }
  template <class Filter, class Make>
  Filter& insert_target(std::optional<Filter>& target, std::optional<Filter>& empty, Make make) {
    if (!target) {
      target.emplace(make());
      empty.emplace(make());
      reset(*target, *empty);
    }
    return *target;
  }
  template <class Filter>
  static void reset(Filter& target, const Filter& empty) {
    target.clear();
    target.intersect(empty);  // counting: the counter minimum, which writes every word too
  }

  std::optional<bloomkit::bloom_filter> full_, insert_target_, empty_, classic_12_;
  std::optional<bloomkit::blocked_bloom_filter> blocked_full_, blocked_portable_, blocked_insert_,
      blocked_empty_, blocked_12_;
  std::optional<bloomkit::counting_bloom_filter> counting_full_, counting_insert_, counting_empty_;
  std::optional<bloomkit::scalable_bloom_filter> scalable_full_;
  std::optional<bloomkit::scalable_blocked_bloom_filter> scalable_blocked_full_;
  std::optional<bloomkit::window_filter> window_full_, window_insert_;
  std::unique_ptr<libbloom_filter> libbloom_full_, libbloom_insert_;
  std::optional<membound_buffer> membound_;
  std::map<std::string, std::size_t> cursors_;
};

inline dataset& data_for(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<dataset>> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return *it->second;
  if (!keep_all_sizes && !cache.empty()) {
    note("freeing the data of n=" + std::to_string(cache.begin()->first));
    cache.clear();
  }
  return *cache.emplace(n, std::make_unique<dataset>(n)).first->second;
}

// ---------------------------------------------------------------------------------------------
// Reporting.

inline void finish(benchmark::State& state, std::size_t positives = 0, bool lookup = false) {
  const auto items = static_cast<std::int64_t>(state.iterations()) * std::int64_t{batch};
  state.SetItemsProcessed(items);
  // CPU seconds / (iterations * batch): seconds per key, shown as e.g. "per_key=24.1ns" and
  // stored in seconds in the JSON output.
  state.counters["per_key"] =
      benchmark::Counter(static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
  if (lookup && items > 0) {
    state.counters["positive"] = static_cast<double>(positives) / static_cast<double>(items);
  }
}

// Next batch start in a key set of `size` keys (whole batches only).
inline std::size_t advance(std::size_t pos, std::size_t size) {
  pos += batch;
  return pos + batch > size ? 0 : pos;
}

}  // namespace bloomkit::bench
