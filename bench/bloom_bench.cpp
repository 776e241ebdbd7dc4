// bloomkit_bench: the classic filter against libbloom and against the machine's memory bound,
// on the same URL-like keys, in one run. See docs/PERFORMANCE.md for the method.
//
// Benchmarks (each iteration handles `batch` keys or memory accesses; the counter per_key is the
// CPU time per key or per access, in seconds: "per_key=24.1ns" on the console):
//   bloomkit/insert, bloomkit/insert_many            into a filter sized for n at p = 0.01
//   bloomkit/contains_{hit,miss}                     single-key loop over a full filter
//   bloomkit/contains_many_{hit,miss}                batches of `batch` keys
//   bloomkit/hash_only                               XXH3-128 of the keys, nothing else
//   blocked/...                                      the same six for the blocked filter
//                                                    (blocked_bloom_filter, p = 0.01)
//   blocked/hash_only                                XXH3-64 of the keys (its digest)
//   blocked_portable/contains{,_many}_miss           the blocked filter on its portable path
//   bits12/{classic,blocked}/contains_many_{hit,miss} equal memory, 12 bits per key: the
//                                                    classic filter (k = 8) and the blocked one
//   counting/...                                     the six for the counting filter (the same
//                                                    pipeline over 4-bit counters)
//   scalable/contains{,_many}_{hit,miss}             a scalable filter from n0 = n/8 (four
//   scalable_blocked/contains{,_many}_{hit,miss}     sub-filters after n keys) over classic and
//                                                    over blocked sub-filters
//   window/...                                       the six for a window filter of n keys per
//                                                    window in 8 blocked slices (window_filter):
//                                                    lookups over the 8 full live slices, inserts
//                                                    into a count window of n inserts (rotating)
//   mem/hash_and_read                                XXH3-64 of the miss keys plus one random
//                                                    64-byte read per key prefetched 16 keys
//                                                    ahead into L2: the bound of a one-line lookup
//   libbloom/add, libbloom/check_{hit,miss}          Debian's libbloom on the same keys
//   mem/random_read, mem/random_read_prefetch{,_l2}  independent random 64-byte reads into a
//                                                    buffer the size of the filter (plain;
//                                                    prefetch 64 ahead into L1; into L2)
//   mem/chase                                        dependent random reads (pointer chase)
//                                                    through that buffer
//   mem/chase_1GiB                                   the same through 1 GiB
//
// Environment:
//   BLOOMKIT_BENCH_SIZES  comma-separated n values (default "1e5,1e7,1e8"; "1e7" or "10000000")
//   BLOOMKIT_BENCH_CHASE  0 to leave out the 1 GiB pointer chase (default 1)
//   BLOOMKIT_BENCH_KEEP   1 to keep every size's data alive (the default when random
//                         interleaving is on); otherwise data of one n is freed before the next
//                         n's is built.

#include <benchmark/benchmark.h>
#include <bloom.h>
#include <sys/utsname.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/version.hpp"
#include "bloomkit/window_filter.hpp"
#include "memory_probe.hpp"

namespace {

using bloomkit::bench::key_set;
using bloomkit::bench::splitmix64;

constexpr double target_p = 0.01;
constexpr std::size_t batch = 1024;              // keys (or reads) per benchmark iteration
constexpr std::size_t max_query_keys = 1 << 22;  // per query set: 4 Mi keys, about 256 MiB
constexpr std::size_t read_indices = 1 << 20;    // precomputed random line indices
constexpr std::size_t prefetch_distance = 64;    // reads ahead in mem/random_read_prefetch*
constexpr std::uint64_t chase_bytes = std::uint64_t{1} << 30;

bool keep_all_sizes = false;

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

void note(const std::string& what) {
  std::fprintf(stderr, "[bloomkit_bench] %s\n", what.c_str());
  std::fflush(stderr);
}

std::string fmt_seconds(double s) {
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

dataset& data_for(std::size_t n) {
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

void finish(benchmark::State& state, std::size_t positives = 0, bool lookup = false) {
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
std::size_t advance(std::size_t pos, std::size_t size) {
  pos += batch;
  return pos + batch > size ? 0 : pos;
}

// ---------------------------------------------------------------------------------------------
// bloomkit

// The filter a benchmark drives. `name` prefixes its cursors (and its benchmark names).
struct classic_subject {
  static constexpr const char* name = "bloomkit";
  static const bloomkit::bloom_filter& full(dataset& d) { return d.full_filter(); }
  static bloomkit::bloom_filter& target(dataset& d) { return d.insert_filter(); }
  static void reset(dataset& d) { d.reset_insert_filter(); }
};
struct blocked_subject {
  static constexpr const char* name = "blocked";
  static const bloomkit::blocked_bloom_filter& full(dataset& d) { return d.full_blocked(); }
  static bloomkit::blocked_bloom_filter& target(dataset& d) { return d.insert_blocked(); }
  static void reset(dataset& d) { d.reset_insert_blocked(); }
};
struct blocked_portable_subject {
  static constexpr const char* name = "blocked_portable";
  static const bloomkit::blocked_bloom_filter& full(dataset& d) {
    return d.full_blocked_portable();
  }
};
struct counting_subject {
  static constexpr const char* name = "counting";
  static const bloomkit::counting_bloom_filter& full(dataset& d) { return d.full_counting(); }
  static bloomkit::counting_bloom_filter& target(dataset& d) { return d.insert_counting(); }
  static void reset(dataset& d) { d.reset_insert_counting(); }
};
struct scalable_subject {
  static constexpr const char* name = "scalable";
  static const bloomkit::scalable_bloom_filter& full(dataset& d) { return d.full_scalable(); }
};
struct scalable_blocked_subject {
  static constexpr const char* name = "scalable_blocked";
  static const bloomkit::scalable_blocked_bloom_filter& full(dataset& d) {
    return d.full_scalable_blocked();
  }
};
struct window_subject {
  static constexpr const char* name = "window";
  static const bloomkit::window_filter& full(dataset& d) { return d.full_window(); }
  static bloomkit::window_filter& target(dataset& d) { return d.insert_window(); }
  static void reset(dataset&) {}  // a count window forgets by itself
};
struct classic_12_subject {
  static constexpr const char* name = "bits12/classic";
  static const bloomkit::bloom_filter& full(dataset& d) { return d.full_classic_12(); }
};
struct blocked_12_subject {
  static constexpr const char* name = "bits12/blocked";
  static const bloomkit::blocked_bloom_filter& full(dataset& d) { return d.full_blocked_12(); }
};

std::string cursor_name(const char* subject, const char* benchmark) {
  return std::string(subject) + "/" + benchmark;
}

template <class Subject>
void bm_insert(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto keys = d.inserts().keys();
  auto& f = Subject::target(d);
  std::size_t& pos = d.cursor(cursor_name(Subject::name, "insert"));
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (pos + batch > keys.size()) {  // every key inserted once: start again, empty
      state.PauseTiming();
      Subject::reset(d);
      pos = 0;
      state.ResumeTiming();
    }
    for (std::size_t j = 0; j < batch; ++j) fresh += f.insert(keys[pos + j]);
    pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state);
}

template <class Subject>
void bm_insert_many(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto keys = d.inserts().keys();
  auto& f = Subject::target(d);
  std::size_t& pos = d.cursor(cursor_name(Subject::name, "insert_many"));
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (pos + batch > keys.size()) {
      state.PauseTiming();
      Subject::reset(d);
      pos = 0;
      state.ResumeTiming();
    }
    fresh += f.insert_many(keys.subspan(pos, batch));
    pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state);
}

template <class Subject>
void bm_contains(benchmark::State& state, std::size_t n, bool hit) {
  auto& d = data_for(n);
  const auto& f = Subject::full(d);
  const auto keys = (hit ? d.hits() : d.misses()).keys();
  std::size_t& pos = d.cursor(cursor_name(Subject::name, hit ? "contains_hit" : "contains_miss"));
  std::size_t positives = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) positives += f.contains(keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  finish(state, positives, true);
}

template <class Subject>
void bm_contains_many(benchmark::State& state, std::size_t n, bool hit) {
  auto& d = data_for(n);
  const auto& f = Subject::full(d);
  const auto keys = (hit ? d.hits() : d.misses()).keys();
  std::size_t& pos =
      d.cursor(cursor_name(Subject::name, hit ? "contains_many_hit" : "contains_many_miss"));
  std::array<bool, batch> results{};
  std::size_t positives = 0;
  for (auto _ : state) {
    positives += f.contains_many(keys.subspan(pos, batch), results);
    benchmark::ClobberMemory();
    pos = advance(pos, keys.size());
  }
  finish(state, positives, true);
}

// Only the digests of the miss keys: the compute floor of any lookup of these keys. The classic
// filter hashes with XXH3-128, the blocked filter with XXH3-64.
template <class Digest>
void bm_hash(benchmark::State& state, std::size_t n, const char* cursor, Digest digest) {
  auto& d = data_for(n);
  const auto keys = d.misses().keys();
  std::size_t& pos = d.cursor(cursor);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) sum += digest(keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// ---------------------------------------------------------------------------------------------
// libbloom

void bm_libbloom_add(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto keys = d.inserts().keys();
  auto& f = d.insert_libbloom();
  std::size_t& pos = d.cursor("libbloom/add");
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (pos + batch > keys.size()) {
      state.PauseTiming();
      f.reset();
      pos = 0;
      state.ResumeTiming();
    }
    for (std::size_t j = 0; j < batch; ++j) fresh += f.add(keys[pos + j]);
    pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state);
}

void bm_libbloom_check(benchmark::State& state, std::size_t n, bool hit) {
  auto& d = data_for(n);
  auto& f = d.full_libbloom();
  const auto keys = (hit ? d.hits() : d.misses()).keys();
  std::size_t& pos = d.cursor(hit ? "libbloom/check_hit" : "libbloom/check_miss");
  std::size_t positives = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) positives += f.check(keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  finish(state, positives, true);
}

// ---------------------------------------------------------------------------------------------
// The memory bound.

// Independent random reads: the loads do not depend on each other, so the core keeps as many
// in flight as its miss buffers allow. This is the best a lookup of one line can do.
void bm_random_read(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto& m = d.membound();
  const std::uint64_t* words = m.buffer.data();
  const std::uint32_t* indices = m.indices.data();
  std::size_t& pos = d.cursor("mem/random_read");
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += bloomkit::bench::read_lines(words, indices + pos, batch);
    pos = (pos + batch) & (read_indices - 1);
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// The same reads with a software prefetch prefetch_distance reads ahead, into L1 (Locality 3,
// prefetcht0) or into L2 only (Locality 2, prefetcht1). On this machine the L2 variant keeps
// about twice as many line fills in flight as L1 allows: it is the memory bound proper.
template <int Locality>
void bm_random_read_prefetch(benchmark::State& state, std::size_t n, const char* cursor) {
  auto& d = data_for(n);
  const auto& m = d.membound();
  const std::uint64_t* words = m.buffer.data();
  const std::uint32_t* indices = m.indices.data();
  std::size_t& pos = d.cursor(cursor);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += bloomkit::bench::read_lines<Locality>(words, indices + pos, batch, prefetch_distance);
    pos = (pos + batch) & (read_indices - 1);
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// The bound of a lookup of one line per key: XXH3-64 of each miss key, its line (multiply-high of
// the digest) prefetched into L2, and read 16 keys later, as the blocked filter's pipeline does,
// without the bit tests.
void bm_hash_and_read(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto& m = d.membound();
  const std::uint64_t* words = m.buffer.data();
  const std::uint64_t lines = m.buffer.word_count() / bloomkit::bench::line_words;
  const auto keys = d.misses().keys();
  std::size_t& pos = d.cursor("mem/hash_and_read");
  constexpr std::size_t lag = 16;
  const std::uint64_t* ring[32];
  std::uint64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch + lag; ++j) {
      if (j < batch) {
        const std::uint64_t h = bloomkit::xxh3_64(keys[pos + j]);
        const std::uint64_t* line =
            words + bloomkit::detail::multiply_high(h, lines) * bloomkit::bench::line_words;
        __builtin_prefetch(line, 0, 2);
        ring[j % 32] = line;
      }
      if (j >= lag) sum += *ring[(j - lag) % 32];
    }
    pos = advance(pos, keys.size());
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// Dependent random reads (a pointer chase) through the buffer of the filter's size: the latency a
// single-key lookup pays at least once per key.
void bm_chase_filter_size(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const std::uint64_t* words = d.membound().buffer.data();
  std::size_t& pos = d.cursor("mem/chase");
  std::uint64_t p = pos;
  for (auto _ : state) p = bloomkit::bench::chase_lines(words, p, batch);
  pos = p;
  benchmark::DoNotOptimize(p);
  finish(state);
}

// Dependent random reads through a single random cycle over the lines of 1 GiB: the latency of
// one DRAM access (for information; a lookup need not pay it once per line).
struct chase_buffer {
  bloomkit::bit_array buffer{chase_bytes * 8};
  std::uint64_t position = 0;
  chase_buffer() {
    stopwatch t;
    splitmix64 rng(0x6368617365);
    bloomkit::bench::link_random_cycle(buffer.mutable_words(), rng);
    note("built the 1 GiB pointer-chase cycle in " + fmt_seconds(t.seconds()));
  }
};

void bm_chase(benchmark::State& state) {
  static chase_buffer chase;
  const std::uint64_t* words = chase.buffer.data();
  std::uint64_t p = chase.position;
  for (auto _ : state) p = bloomkit::bench::chase_lines(words, p, batch);
  chase.position = p;
  benchmark::DoNotOptimize(p);
  finish(state);
}

// ---------------------------------------------------------------------------------------------
// Machine description for the JSON context.

std::string first_line_with(const char* path, std::string_view prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

std::string after_colon(const std::string& line) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return line;
  const auto start = line.find_first_not_of(" \t", colon + 1);
  return start == std::string::npos ? std::string() : line.substr(start);
}

std::string compiler_name() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

void add_context(const std::vector<std::size_t>& sizes) {
  benchmark::AddCustomContext("cpu_model",
                              after_colon(first_line_with("/proc/cpuinfo", "model name")));
  // A VM may hide the model name ("AMD EPYC"); family and model still tell the core.
  benchmark::AddCustomContext("cpu_family_model",
                              after_colon(first_line_with("/proc/cpuinfo", "cpu family")) + "/" +
                                  after_colon(first_line_with("/proc/cpuinfo", "model\t")));
  benchmark::AddCustomContext("mem_total",
                              after_colon(first_line_with("/proc/meminfo", "MemTotal")));
  utsname u{};
  if (uname(&u) == 0)
    benchmark::AddCustomContext("kernel", std::string(u.sysname) + " " + u.release);
  benchmark::AddCustomContext("compiler", compiler_name());
  benchmark::AddCustomContext("thp",
                              first_line_with("/sys/kernel/mm/transparent_hugepage/enabled", ""));
  benchmark::AddCustomContext("bloomkit_version", bloomkit::version_string);
  benchmark::AddCustomContext("libbloom_version", bloom_version());
  benchmark::AddCustomContext("target_fpp", std::to_string(target_p));
  benchmark::AddCustomContext("batch", std::to_string(batch));
  // Mean key length over a sample of the keys.
  std::vector<char> buf(bloomkit::bench::max_key_length);
  std::size_t total = 0;
  constexpr std::size_t sample = 100000;
  for (std::size_t i = 0; i < sample; ++i) total += bloomkit::bench::make_url_key(i, buf.data());
  benchmark::AddCustomContext("key_mean_bytes",
                              std::to_string(static_cast<double>(total) / sample));
  for (const std::size_t n : sizes) {
    const auto params = bloomkit::optimal_params(n, target_p);
    benchmark::AddCustomContext(
        "filter_n" + std::to_string(n),
        "bits=" + std::to_string(params.bits) + " hashes=" + std::to_string(params.hashes) +
            " bytes=" + std::to_string(bloomkit::bytes_for_bits(params.bits)));
    const std::uint64_t blocks = bloomkit::blocked_optimal_blocks(n, target_p);
    benchmark::AddCustomContext(
        "blocked_n" + std::to_string(n),
        "blocks=" + std::to_string(blocks) + " bytes=" + std::to_string(blocks * 32) +
            " expected_fpp=" + std::to_string(bloomkit::blocked_expected_fpp(blocks, n)));
    const std::uint64_t blocks_12 = (std::uint64_t{n} * 12 + 255) / 256;
    benchmark::AddCustomContext(
        "bits12_n" + std::to_string(n),
        "classic_expected_fpp=" + std::to_string(bloomkit::expected_fpp(blocks_12 * 256, 8, n)) +
            " blocked_expected_fpp=" +
            std::to_string(bloomkit::blocked_expected_fpp(blocks_12, n)));
  }
}

// ---------------------------------------------------------------------------------------------
// Registration.

std::vector<std::size_t> parse_sizes(const char* text) {
  std::vector<std::size_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || !(v >= 1000) || v > 2e9 || v != std::floor(v)) {
      throw std::runtime_error("BLOOMKIT_BENCH_SIZES: bad size '" + item +
                               "' (want an integer from 1000 to 2e9, e.g. 1e7)");
    }
    sizes.push_back(static_cast<std::size_t>(v));
  }
  return sizes;
}

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0);
}

bool interleaving_requested(int argc, char** argv) {
  bool on = env_flag("BENCHMARK_ENABLE_RANDOM_INTERLEAVING", false);
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    constexpr std::string_view flag = "--benchmark_enable_random_interleaving";
    if (a.rfind(flag, 0) != 0) continue;
    const std::string_view rest = a.substr(flag.size());
    on = rest.empty() || !(rest == "=false" || rest == "=0");
  }
  return on;
}

// insert, insert_many, contains and contains_many (hits and misses) of one filter.
template <class Subject, class Add>
void add_filter_benchmarks(Add& add, std::size_t n) {
  const std::string prefix = std::string(Subject::name) + "/";
  add(prefix + "insert", [n](benchmark::State& s) { bm_insert<Subject>(s, n); });
  add(prefix + "insert_many", [n](benchmark::State& s) { bm_insert_many<Subject>(s, n); });
  add(prefix + "contains_hit", [n](benchmark::State& s) { bm_contains<Subject>(s, n, true); });
  add(prefix + "contains_miss", [n](benchmark::State& s) { bm_contains<Subject>(s, n, false); });
  add(prefix + "contains_many_hit",
      [n](benchmark::State& s) { bm_contains_many<Subject>(s, n, true); });
  add(prefix + "contains_many_miss",
      [n](benchmark::State& s) { bm_contains_many<Subject>(s, n, false); });
}

void register_size(std::size_t n) {
  const std::string suffix = "/n:" + std::to_string(n);
  auto add = [&](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark((name + suffix).c_str(), fn)->Unit(benchmark::kMicrosecond);
  };
  add_filter_benchmarks<classic_subject>(add, n);
  add_filter_benchmarks<blocked_subject>(add, n);
  add_filter_benchmarks<counting_subject>(add, n);
  add_filter_benchmarks<window_subject>(add, n);
  for (const bool hit : {true, false}) {
    const std::string what = hit ? "hit" : "miss";
    add("scalable/contains_" + what,
        [n, hit](benchmark::State& s) { bm_contains<scalable_subject>(s, n, hit); });
    add("scalable/contains_many_" + what,
        [n, hit](benchmark::State& s) { bm_contains_many<scalable_subject>(s, n, hit); });
    add("scalable_blocked/contains_" + what,
        [n, hit](benchmark::State& s) { bm_contains<scalable_blocked_subject>(s, n, hit); });
    add("scalable_blocked/contains_many_" + what,
        [n, hit](benchmark::State& s) { bm_contains_many<scalable_blocked_subject>(s, n, hit); });
  }
  add("bloomkit/hash_only", [n](benchmark::State& s) {
    bm_hash(s, n, "bloomkit/hash_only", [](std::string_view k) {
      const auto h = bloomkit::xxh3_128(k);
      return h.low ^ h.high;
    });
  });
  add("blocked/hash_only", [n](benchmark::State& s) {
    bm_hash(s, n, "blocked/hash_only", [](std::string_view k) { return bloomkit::xxh3_64(k); });
  });
  add("blocked_portable/contains_miss",
      [n](benchmark::State& s) { bm_contains<blocked_portable_subject>(s, n, false); });
  add("blocked_portable/contains_many_miss",
      [n](benchmark::State& s) { bm_contains_many<blocked_portable_subject>(s, n, false); });
  for (const bool hit : {true, false}) {
    const std::string suffix = hit ? "contains_many_hit" : "contains_many_miss";
    add("bits12/classic/" + suffix,
        [n, hit](benchmark::State& s) { bm_contains_many<classic_12_subject>(s, n, hit); });
    add("bits12/blocked/" + suffix,
        [n, hit](benchmark::State& s) { bm_contains_many<blocked_12_subject>(s, n, hit); });
  }
  add("libbloom/add", [n](benchmark::State& s) { bm_libbloom_add(s, n); });
  add("libbloom/check_hit", [n](benchmark::State& s) { bm_libbloom_check(s, n, true); });
  add("libbloom/check_miss", [n](benchmark::State& s) { bm_libbloom_check(s, n, false); });
  add("mem/random_read", [n](benchmark::State& s) { bm_random_read(s, n); });
  add("mem/random_read_prefetch",
      [n](benchmark::State& s) { bm_random_read_prefetch<3>(s, n, "mem/random_read_prefetch"); });
  add("mem/random_read_prefetch_l2", [n](benchmark::State& s) {
    bm_random_read_prefetch<2>(s, n, "mem/random_read_prefetch_l2");
  });
  add("mem/hash_and_read", [n](benchmark::State& s) { bm_hash_and_read(s, n); });
  add("mem/chase", [n](benchmark::State& s) { bm_chase_filter_size(s, n); });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  try {
    const char* env = std::getenv("BLOOMKIT_BENCH_SIZES");
    sizes = parse_sizes(env != nullptr && *env != '\0' ? env : "1e5,1e7,1e8");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit_bench: %s\n", e.what());
    return 2;
  }
  keep_all_sizes = env_flag("BLOOMKIT_BENCH_KEEP", interleaving_requested(argc, argv));

  for (const std::size_t n : sizes) register_size(n);
  if (env_flag("BLOOMKIT_BENCH_CHASE", true)) {
    benchmark::RegisterBenchmark("mem/chase_1GiB", bm_chase)->Unit(benchmark::kMicrosecond);
  }
  add_context(sizes);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
