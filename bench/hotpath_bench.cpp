// bloomkit_bench_hotpath: alternative lookup loops over the very same filter bits, to measure
// changes to the hot path (detail/bloom_filter_impl.hpp) before proposing them.
//
// Every variant answers exactly what bloom_filter::contains / contains_many answer (checked at
// start-up against the library on every query key), using only the public surface: the probe
// policy (hash + probe sequence) and the filter's bit_array.
//
//   BLOOMKIT_BENCH_SIZES   comma-separated n values (default "1e7")

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/bloom_filter.hpp"

namespace {

using bloomkit::bloom_filter;
using bloomkit::probe_sequence;
using bloomkit::bench::key_set;
using policy = bloomkit::xxh3_probe_policy;

constexpr double target_p = 0.01;
constexpr std::size_t batch = 1024;
constexpr std::size_t max_query_keys = 1 << 22;

inline bool test_bit(const std::uint64_t* words, std::uint64_t i) noexcept {
  return (words[i >> 6] >> (i & 63)) & 1;
}
inline void prefetch_bit(const std::uint64_t* words, std::uint64_t i) noexcept {
  __builtin_prefetch(words + (i >> 6), 0, 3);
}

// ---------------------------------------------------------------------------------------------
// Single-key variants.

// All k indices first, then one branch-free AND: no mispredicted early exit, but every key
// touches k lines.
bool contains_branchless(const bloom_filter& f, std::string_view key) noexcept {
  const std::uint64_t* words = f.storage().data();
  auto seq = policy::probes(policy::hash(key), f.bits());
  std::uint64_t all = 1;
  for (std::uint32_t i = 0; i < f.hashes(); ++i) {
    const std::uint64_t b = seq.next();
    all &= words[b >> 6] >> (b & 63);
  }
  return all & 1;
}

// Prefetch all k lines, then test with an early exit.
bool contains_prefetch_all(const bloom_filter& f, std::string_view key) noexcept {
  const std::uint64_t* words = f.storage().data();
  const std::uint32_t k = f.hashes();
  auto seq = policy::probes(policy::hash(key), f.bits());
  std::uint64_t idx[64];
  for (std::uint32_t i = 0; i < k; ++i) {
    idx[i] = seq.next();
    prefetch_bit(words, idx[i]);
  }
  for (std::uint32_t i = 0; i < k; ++i) {
    if (!test_bit(words, idx[i])) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Batched variants. All write results[i] and return the number of positives.

// Block-wise, every key's k lines prefetched up front, then tested (hits: no second wait).
template <std::size_t Block>
std::size_t many_prefetch_all(const bloom_filter& f, std::span<const std::string_view> keys,
                              std::span<bool> results) {
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  std::size_t present = 0;
  probe_sequence seqs[Block];
  for (std::size_t base = 0; base < keys.size(); base += Block) {
    const std::size_t n = std::min(Block, keys.size() - base);
    for (std::size_t j = 0; j < n; ++j) {
      seqs[j] = policy::probes(policy::hash(keys[base + j]), m);
      auto ahead = seqs[j];
      for (std::uint32_t i = 0; i < k; ++i) prefetch_bit(words, ahead.next());
    }
    for (std::size_t j = 0; j < n; ++j) {
      bool alive = true;
      for (std::uint32_t i = 0; i < k && alive; ++i) alive = test_bit(words, seqs[j].next());
      results[base + j] = alive;
      present += alive;
    }
  }
  return present;
}

// A software pipeline over blocks, in three stages, so every prefetch has a whole block of other
// work to hide behind:
//   stage 1 (block b):     hash, prefetch the first `early` lines of each key;
//   stage 2 (block b - 1): test those lines; for keys still alive, prefetch the other k - early;
//   stage 3 (block b - 2): test the other lines of the keys still alive.
// Misses mostly stop in stage 2 (two lines), hits touch k lines, as in the library today; the
// difference is that no stage waits for lines it requested itself a moment ago.
template <std::size_t Block, std::uint32_t Early = 2>
std::size_t many_pipelined(const bloom_filter& f, std::span<const std::string_view> keys,
                           std::span<bool> results) {
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  const std::uint32_t early = std::min(k, Early);
  struct slot {
    probe_sequence seq;  // positioned after the first `early` probes
    std::uint64_t first[Early];
  };
  slot ring[3][Block];
  const std::size_t total = keys.size();
  const std::size_t blocks = (total + Block - 1) / Block;
  std::size_t present = 0;
  auto block_len = [&](std::size_t b) { return std::min(Block, total - b * Block); };
  for (std::size_t step = 0; step < blocks + 2; ++step) {
    if (step < blocks) {  // stage 1
      slot* s = ring[step % 3];
      const std::size_t base = step * Block;
      for (std::size_t j = 0, n = block_len(step); j < n; ++j) {
        s[j].seq = policy::probes(policy::hash(keys[base + j]), m);
        for (std::uint32_t i = 0; i < early; ++i) {
          s[j].first[i] = s[j].seq.next();
          prefetch_bit(words, s[j].first[i]);
        }
      }
    }
    if (step >= 1 && step - 1 < blocks) {  // stage 2
      const std::size_t b = step - 1;
      slot* s = ring[b % 3];
      const std::size_t base = b * Block;
      for (std::size_t j = 0, n = block_len(b); j < n; ++j) {
        bool alive = true;
        for (std::uint32_t i = 0; i < early; ++i) alive &= test_bit(words, s[j].first[i]);
        results[base + j] = alive;
        if (alive) {
          auto ahead = s[j].seq;
          for (std::uint32_t i = early; i < k; ++i) prefetch_bit(words, ahead.next());
        }
      }
    }
    if (step >= 2) {  // stage 3
      const std::size_t b = step - 2;
      slot* s = ring[b % 3];
      const std::size_t base = b * Block;
      for (std::size_t j = 0, n = block_len(b); j < n; ++j) {
        if (!results[base + j]) continue;
        bool alive = true;
        for (std::uint32_t i = early; i < k && alive; ++i) alive = test_bit(words, s[j].seq.next());
        results[base + j] = alive;
        present += alive;
      }
    }
  }
  return present;
}

// Two stages: hash and prefetch all k lines of block b while testing block b - 1.
template <std::size_t Block>
std::size_t many_pipelined_all(const bloom_filter& f, std::span<const std::string_view> keys,
                               std::span<bool> results) {
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  probe_sequence ring[2][Block];
  const std::size_t total = keys.size();
  const std::size_t blocks = (total + Block - 1) / Block;
  std::size_t present = 0;
  for (std::size_t step = 0; step < blocks + 1; ++step) {
    if (step < blocks) {
      probe_sequence* s = ring[step % 2];
      const std::size_t base = step * Block;
      for (std::size_t j = 0, n = std::min(Block, total - base); j < n; ++j) {
        s[j] = policy::probes(policy::hash(keys[base + j]), m);
        auto ahead = s[j];
        for (std::uint32_t i = 0; i < k; ++i) prefetch_bit(words, ahead.next());
      }
    }
    if (step >= 1) {
      const std::size_t b = step - 1;
      probe_sequence* s = ring[b % 2];
      const std::size_t base = b * Block;
      for (std::size_t j = 0, n = std::min(Block, total - base); j < n; ++j) {
        bool alive = true;
        for (std::uint32_t i = 0; i < k && alive; ++i) alive = test_bit(words, s[j].next());
        results[base + j] = alive;
        present += alive;
      }
    }
  }
  return present;
}

// Like the library's loop (block-wise: hash + prefetch the first two lines of every key; test
// them; prefetch the rest for survivors; test the rest), but without data-dependent branches
// outside the survivors' final test: the first two bits are combined with '&', survivors are
// appended to a list branch-free, and the later stages loop over that list. Lag1 / Lag2 are the
// software-pipeline distances in blocks: the first lines of block b are tested Lag1 steps after
// they were requested, the survivors' other lines Lag2 steps after theirs (0 = at once).
template <std::size_t Block, std::size_t Lag1, std::size_t Lag2>
std::size_t many_survivors(const bloom_filter& f, std::span<const std::string_view> keys,
                           std::span<bool> results) {
  constexpr std::size_t slots = Lag1 + Lag2 + 1;
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  const std::uint32_t early = std::min<std::uint32_t>(k, 2);
  struct block_state {
    probe_sequence seq[Block];
    std::uint64_t first[Block][2];
    std::uint32_t survivors[Block];
    std::size_t survivor_count;
  };
  block_state ring[slots];
  const std::size_t total = keys.size();
  const std::size_t blocks = (total + Block - 1) / Block;
  std::size_t present = 0;
  for (std::size_t step = 0; step < blocks + Lag1 + Lag2; ++step) {
    if (step < blocks) {  // stage 1: hash, prefetch the first lines
      block_state& s = ring[step % slots];
      const std::size_t base = step * Block;
      for (std::size_t j = 0, n = std::min(Block, total - base); j < n; ++j) {
        s.seq[j] = policy::probes(policy::hash(keys[base + j]), m);
        for (std::uint32_t i = 0; i < early; ++i) {
          s.first[j][i] = s.seq[j].next();
          prefetch_bit(words, s.first[j][i]);
        }
      }
    }
    if (step >= Lag1 && step - Lag1 < blocks) {  // stage 2: test them, prefetch for survivors
      const std::size_t b = step - Lag1;
      block_state& s = ring[b % slots];
      const std::size_t base = b * Block;
      const std::size_t n = std::min(Block, total - base);
      std::size_t count = 0;
      for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t alive = 1;
        for (std::uint32_t i = 0; i < early; ++i) {
          alive &= words[s.first[j][i] >> 6] >> (s.first[j][i] & 63);
        }
        alive &= 1;
        results[base + j] = alive != 0;
        s.survivors[count] = static_cast<std::uint32_t>(j);
        count += alive;
      }
      s.survivor_count = count;
      for (std::size_t c = 0; c < count; ++c) {
        auto ahead = s.seq[s.survivors[c]];
        for (std::uint32_t i = early; i < k; ++i) prefetch_bit(words, ahead.next());
      }
    }
    if (step >= Lag1 + Lag2) {  // stage 3: test the survivors' other lines
      const std::size_t b = step - Lag1 - Lag2;
      block_state& s = ring[b % slots];
      const std::size_t base = b * Block;
      for (std::size_t c = 0; c < s.survivor_count; ++c) {
        const std::uint32_t j = s.survivors[c];
        std::uint64_t alive = 1;
        for (std::uint32_t i = early; i < k; ++i) {
          const std::uint64_t bit = s.seq[j].next();
          alive &= words[bit >> 6] >> (bit & 63);
        }
        results[base + j] = (alive & 1) != 0;
        present += alive & 1;
      }
    }
  }
  return present;
}

// ---------------------------------------------------------------------------------------------
// Data.

struct data {
  std::size_t n;
  key_set hits, misses;
  bloom_filter filter;
};

data& data_for(std::size_t n) {
  static std::unique_ptr<data> d;
  if (!d || d->n != n) {
    d.reset();
    const std::size_t q = std::min(n, max_query_keys);
    auto inserts = bloomkit::bench::make_insert_keys(n);
    auto f = bloom_filter::for_capacity(n, target_p);
    const auto keys = inserts.keys();
    for (std::size_t i = 0; i < keys.size(); i += batch) {
      f.insert_many(keys.subspan(i, std::min(batch, keys.size() - i)));
    }
    d = std::make_unique<data>(data{n, bloomkit::bench::make_hit_queries(n, q, 0x68697473 + n),
                                    bloomkit::bench::make_miss_queries(q), std::move(f)});
  }
  return *d;
}

std::size_t advance(std::size_t pos, std::size_t size) {
  pos += batch;
  return pos + batch > size ? 0 : pos;
}

void finish(benchmark::State& state, std::size_t positives) {
  const auto items = static_cast<std::int64_t>(state.iterations()) * std::int64_t{batch};
  state.SetItemsProcessed(items);
  state.counters["per_key"] =
      benchmark::Counter(static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
  if (items > 0) {
    state.counters["positive"] = static_cast<double>(positives) / static_cast<double>(items);
  }
}

using single_fn = bool (*)(const bloom_filter&, std::string_view);
using many_fn = std::size_t (*)(const bloom_filter&, std::span<const std::string_view>,
                                std::span<bool>);

bool library_contains(const bloom_filter& f, std::string_view key) {
  return f.contains(key);
}
std::size_t library_contains_many(const bloom_filter& f, std::span<const std::string_view> keys,
                                  std::span<bool> results) {
  return f.contains_many(keys, results);
}
std::size_t hash_only(const bloom_filter& f, std::span<const std::string_view> keys,
                      std::span<bool> results) {
  std::size_t odd = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const auto d = policy::hash(keys[j]);
    results[j] = (d.low ^ d.high ^ f.bits()) & 1;
    odd += results[j];
  }
  return odd;
}

void run_single(benchmark::State& state, std::size_t n, bool hit, single_fn fn) {
  auto& d = data_for(n);
  const auto keys = (hit ? d.hits : d.misses).keys();
  std::size_t pos = 0, positives = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) positives += fn(d.filter, keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  finish(state, positives);
}

void run_many(benchmark::State& state, std::size_t n, bool hit, many_fn fn) {
  auto& d = data_for(n);
  const auto keys = (hit ? d.hits : d.misses).keys();
  std::array<bool, batch> results{};
  std::size_t pos = 0, positives = 0;
  for (auto _ : state) {
    positives += fn(d.filter, keys.subspan(pos, batch), results);
    benchmark::ClobberMemory();
    pos = advance(pos, keys.size());
  }
  finish(state, positives);
}

// Every variant must agree with the library on every query key.
void verify(std::size_t n, const std::vector<std::pair<std::string, single_fn>>& singles,
            const std::vector<std::pair<std::string, many_fn>>& manies) {
  auto& d = data_for(n);
  for (const key_set* set : {&d.hits, &d.misses}) {
    const auto keys = set->keys();
    std::vector<bool> expected(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = d.filter.contains(keys[i]);
    for (const auto& [name, fn] : singles) {
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (fn(d.filter, keys[i]) != expected[i]) throw std::runtime_error(name + " disagrees");
      }
    }
    std::unique_ptr<bool[]> results(new bool[batch]);
    for (const auto& [name, fn] : manies) {
      if (name == "hash_only") continue;
      for (std::size_t pos = 0; pos + batch <= keys.size(); pos += batch) {
        fn(d.filter, keys.subspan(pos, batch), std::span<bool>(results.get(), batch));
        for (std::size_t j = 0; j < batch; ++j) {
          if (results[j] != expected[pos + j]) throw std::runtime_error(name + " disagrees");
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::pair<std::string, single_fn>> singles = {
      {"contains/library", library_contains},
      {"contains/branchless", contains_branchless},
      {"contains/prefetch_all", contains_prefetch_all},
  };
  const std::vector<std::pair<std::string, many_fn>> manies = {
      {"hash_only", hash_only},
      {"contains_many/library", library_contains_many},
      {"contains_many/prefetch_all_b32", many_prefetch_all<32>},
      {"contains_many/pipelined_b8", many_pipelined<8>},
      {"contains_many/pipelined_b16", many_pipelined<16>},
      {"contains_many/pipelined_b32", many_pipelined<32>},
      {"contains_many/pipelined_b64", many_pipelined<64>},
      {"contains_many/pipelined_all_b8", many_pipelined_all<8>},
      {"contains_many/pipelined_all_b16", many_pipelined_all<16>},
      {"contains_many/pipelined_all_b32", many_pipelined_all<32>},
      {"contains_many/survivors_b32_lag00", many_survivors<32, 0, 0>},
      {"contains_many/survivors_b16_lag11", many_survivors<16, 1, 1>},
      {"contains_many/survivors_b32_lag11", many_survivors<32, 1, 1>},
      {"contains_many/survivors_b8_lag11", many_survivors<8, 1, 1>},
      {"contains_many/survivors_b8_lag22", many_survivors<8, 2, 2>},
      {"contains_many/survivors_b16_lag10", many_survivors<16, 1, 0>},
  };
  std::vector<std::size_t> sizes;
  {
    const char* env = std::getenv("BLOOMKIT_BENCH_SIZES");
    std::stringstream in(env != nullptr && *env != '\0' ? env : "1e7");
    std::string item;
    while (std::getline(in, item, ',')) sizes.push_back(static_cast<std::size_t>(std::stod(item)));
  }
  for (const std::size_t n : sizes) {
    const std::string suffix = "/n:" + std::to_string(n);
    for (const bool hit : {true, false}) {
      const std::string kind = hit ? "/hit" : "/miss";
      for (const auto& [name, fn] : singles) {
        benchmark::RegisterBenchmark((name + kind + suffix).c_str(), [n, hit, fn = fn](
                                                                         benchmark::State& s) {
          run_single(s, n, hit, fn);
        })->Unit(benchmark::kMicrosecond);
      }
      for (const auto& [name, fn] : manies) {
        benchmark::RegisterBenchmark((name + kind + suffix).c_str(), [n, hit, fn = fn](
                                                                         benchmark::State& s) {
          run_many(s, n, hit, fn);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const std::size_t n : sizes) {
    verify(n, singles, manies);
    std::fprintf(stderr, "n=%zu: every variant agrees with the library\n", n);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
