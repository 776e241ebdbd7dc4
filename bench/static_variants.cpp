// static_variants: the static filter candidates of issue 30 side by side on this machine, each a
// small implementation written for this bench from its paper (bench/static_variants/):
//   fuse3, fuse4    binary fuse filters (Graf & Lemire 2022), b-bit packed fingerprints
//   ribbon          standard Ribbon (Dillinger & Walzer 2021), w = 64, b result bits, in shards
//                   of about --shard-keys keys (one band system each, retried alone)
//   ribbon-flat     the same as one band system over all n keys
//   ribbon-homog    Homogeneous Ribbon (same paper), w = 64, sharded as ribbon
// For each n and b: bits per key, FPP on fresh keys, build ns/key (remix + sort + construct, from
// the keys' XXH3-64 hashes; hashing the keys is left out, it is the same for all), and lookup
// ns/key over precomputed key hashes for hits and misses, one at a time and batched (prefetching
// 16 keys ahead), in the thread's CPU time. Every configuration runs --reps times, the reps
// interleaved in a new random order each round; the tables show medians.
//
//   static_variants [--sizes 1e6,1e7] [--bits 7,8,10,14,20] [--reps 3] [--queries 1e7]
//                   [--variants fuse3,fuse4,ribbon,ribbon-flat,ribbon-homog]
//                   [--overhead E] [--shard-keys K] [--shard-overhead E]
//   static_variants --scan-overhead 0.04,0.06,0.08 --tries 20 --sizes 1e6
//       (how often Ribbon banding succeeds with the first seed at m = n (1 + E))
//   static_variants --paired 40 [--chunk 100000] --sizes 1e8
//                   [--variants fuse3,fuse4,ribbon,bloomkit-static,bloomkit-blocked]
//       (lookups of fuse3 and of the --variants named (default fuse4 and ribbon) timed in adjacent
//       chunks, ratios to fuse3 per round; bloomkit-static and bloomkit-blocked are the library's
//       static_filter and blocked filter at p = 2^-b, batched by contains_many over hashes;
//       thread CPU time, so a busy host's descheduling is not charged to the longer chunks)

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/static_filter.hpp"
#include "machine_info.hpp"
#include "static_variants/fuse_filter.hpp"
#include "static_variants/paired_lookups.hpp"
#include "static_variants/ribbon_filter.hpp"
#include "static_variants/variant_options.hpp"

namespace {

using namespace bloomkit::bench;
using namespace bloomkit::bench::static_variants;
// Times are the thread's CPU time (paired_lookups.hpp says why): seconds.
double cpu_now() {
  return thread_cpu_ns() * 1e-9;
}
double seconds_since(double t0) {
  return cpu_now() - t0;
}

// XXH3-64 of the URL-like keys with ids first, first + 1, ...
std::vector<std::uint64_t> key_hashes(std::uint64_t first, std::size_t count) {
  std::vector<std::uint64_t> out(count);
  char key[max_key_length];
  for (std::size_t i = 0; i < count; ++i) {
    const auto length = make_url_key(first + i, key);
    out[i] = bloomkit::xxh3_64(std::string_view(key, length));
  }
  return out;
}

struct measurement {
  double bits_per_key, fpp, build_ns, hit_ns, miss_ns, hit_batch_ns, miss_batch_ns, seeds;
};

struct data_set {
  std::vector<std::uint64_t> keys, hits, misses;
};

template <class Filter>
measurement measure(const Filter& f, double build_s, const data_set& d) {
  measurement m{};
  const double n = static_cast<double>(d.keys.size());
  m.bits_per_key = static_cast<double>(f.byte_size()) * 8 / n;
  m.build_ns = build_s * 1e9 / n;
  m.seeds = static_cast<double>(f.seeds_tried());
  auto t0 = cpu_now();
  std::size_t present = 0;
  for (const auto h : d.hits) present += f.contains(h);
  m.hit_ns = seconds_since(t0) * 1e9 / static_cast<double>(d.hits.size());
  if (present != d.hits.size())
    throw std::runtime_error(std::string(Filter::name) + ": FALSE NEGATIVE");
  t0 = cpu_now();
  std::size_t false_positives = 0;
  for (const auto h : d.misses) false_positives += f.contains(h);
  m.miss_ns = seconds_since(t0) * 1e9 / static_cast<double>(d.misses.size());
  m.fpp = static_cast<double>(false_positives) / static_cast<double>(d.misses.size());
  t0 = cpu_now();
  if (f.count_present(d.hits) != d.hits.size()) {
    throw std::runtime_error(std::string(Filter::name) + ": FALSE NEGATIVE (batched)");
  }
  m.hit_batch_ns = seconds_since(t0) * 1e9 / static_cast<double>(d.hits.size());
  t0 = cpu_now();
  if (f.count_present(d.misses) != false_positives) {
    throw std::runtime_error(std::string(Filter::name) + ": batched and single lookups differ");
  }
  m.miss_batch_ns = seconds_since(t0) * 1e9 / static_cast<double>(d.misses.size());
  return m;
}

measurement run_one(const std::string& variant, unsigned bits, const data_set& d,
                    const options& opt) {
  const auto t0 = cpu_now();
  const auto n = d.keys.size();
  if (variant == "fuse3") {
    fuse_filter<3> f(d.keys, bits);
    return measure(f, seconds_since(t0), d);
  }
  if (variant == "fuse4") {
    fuse_filter<4> f(d.keys, bits);
    return measure(f, seconds_since(t0), d);
  }
  if (variant == "ribbon-flat") {
    ribbon_filter<false> f(d.keys, bits, opt.flat_overhead_for(n));
    return measure(f, seconds_since(t0), d);
  }
  if (variant == "ribbon") {
    ribbon_filter<false> f(d.keys, bits, opt.shard_overhead, opt.shard_bits_for(n));
    return measure(f, seconds_since(t0), d);
  }
  ribbon_filter<true> f(d.keys, bits, opt.shard_overhead, opt.shard_bits_for(n));
  return measure(f, seconds_since(t0), d);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

void print_machine(const options& opt) {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 0) load[0] = -1;
  std::printf("Machine: %s; %ld cores; %s RAM; load average %.2f; reps %u, queries %zu\n",
              after_colon(first_line_with("/proc/cpuinfo", "model name")).c_str(),
              sysconf(_SC_NPROCESSORS_ONLN),
              after_colon(first_line_with("/proc/meminfo", "MemTotal")).c_str(), load[0], opt.reps,
              opt.queries);
}

void run_sizes(const options& opt) {
  std::mt19937_64 rng(2026);
  for (const auto n : opt.sizes) {
    data_set d;
    d.keys = key_hashes(0, n);
    d.misses = key_hashes(miss_base, opt.queries);
    d.hits.resize(opt.queries);
    for (auto& h : d.hits) h = d.keys[rng() % n];
    // Sorting alone, for the build column's share.
    std::vector<double> sort_s;
    for (unsigned r = 0; r < opt.reps; ++r) {
      const auto t0 = cpu_now();
      const auto xs = sorted_remixed(d.keys, r);
      sort_s.push_back(seconds_since(t0));
    }
    std::vector<std::pair<std::string, unsigned>> configs;
    for (const auto& v : opt.variants) {
      for (const auto b : opt.bits) configs.emplace_back(v, b);
    }
    std::map<std::pair<std::string, unsigned>, std::vector<measurement>> results;
    for (unsigned r = 0; r < opt.reps; ++r) {
      std::shuffle(configs.begin(), configs.end(), rng);
      for (const auto& c : configs) {
        results[c].push_back(run_one(c.first, c.second, d, opt));
        std::fprintf(stderr, "n=%zu %s b=%u rep %u done\n", n, c.first.c_str(), c.second, r + 1);
      }
    }
    std::printf("\n### n = %zu (remix + sort alone: %.1f ns/key)\n\n", n,
                median(sort_s) * 1e9 / static_cast<double>(n));
    std::printf(
        "| variant | b | bits/key | x log2(1/FPP) | FPP | FPP x 2^b | build ns/key | seeds |"
        " hit ns | miss ns | hit batch ns | miss batch ns |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (const auto& v : opt.variants) {
      for (const auto b : opt.bits) {
        const auto& ms = results[{v, b}];
        auto med = [&](double measurement::*field) {
          std::vector<double> xs;
          for (const auto& m : ms) xs.push_back(m.*field);
          return median(xs);
        };
        const double fpp = med(&measurement::fpp), bpk = med(&measurement::bits_per_key);
        std::printf(
            "| %s | %u | %.3f | %.3f | %.3g | %.2f | %.1f | %.0f | %.1f | %.1f | %.1f | %.1f |\n",
            v.c_str(), b, bpk, fpp > 0 ? bpk / std::log2(1 / fpp) : 0.0, fpp,
            fpp * std::ldexp(1.0, static_cast<int>(b)), med(&measurement::build_ns),
            med(&measurement::seeds), med(&measurement::hit_ns), med(&measurement::miss_ns),
            med(&measurement::hit_batch_ns), med(&measurement::miss_batch_ns));
      }
    }
    std::fflush(stdout);
  }
}

template <class Filter>
lookup_subject subject_of(const std::shared_ptr<const Filter>& f) {
  return {Filter::name,
          [f](std::span<const std::uint64_t> keys) {
            std::size_t present = 0;
            for (const auto h : keys) present += f->contains(h);
            return present;
          },
          [f](std::span<const std::uint64_t> keys) { return f->count_present(keys); }};
}

// bloomkit's own filters by hash (static_filter, blocked at p = 2^-b): single lookups and
// contains_many over the chunk.
template <class Filter, class Single>
lookup_subject library_subject(std::string name, std::shared_ptr<const Filter> f, Single single) {
  return {std::move(name),
          [f, single](std::span<const std::uint64_t> keys) {
            std::size_t present = 0;
            for (const auto h : keys) present += single(*f, h);
            return present;
          },
          [f](std::span<const std::uint64_t> keys) {
            thread_local std::vector<char> results;
            results.resize(keys.size());
            return f->contains_many(keys, {reinterpret_cast<bool*>(results.data()), keys.size()});
          }};
}

bool wanted(const options& opt, const std::string& v) {
  return std::find(opt.variants.begin(), opt.variants.end(), v) != opt.variants.end();
}

// Lookups of fuse3 (the reference) and, of --variants, fuse4, sharded Ribbon and bloomkit's
// static and blocked filters in adjacent chunks, per b.
void run_paired(const options& opt) {
  for (const auto n : opt.sizes) {
    const auto keys = key_hashes(0, n);
    const auto misses = key_hashes(miss_base, opt.queries);
    std::vector<std::uint64_t> hits(opt.queries);
    std::mt19937_64 rng(7);
    for (auto& h : hits) h = keys[rng() % n];
    std::printf("\n### n = %zu: lookups in adjacent chunks of %zu keys, %u rounds\n\n", n,
                opt.chunk, opt.paired);
    std::printf("| b | variant | hit ns (/ fuse3) | miss ns | hit batch ns | miss batch ns |\n");
    std::printf("|---:|---|---:|---:|---:|---:|\n");
    for (const auto b : opt.bits) {
      std::vector<lookup_subject> subjects;
      subjects.push_back(subject_of(std::make_shared<const fuse_filter<3>>(keys, b)));
      if (wanted(opt, "fuse4")) {
        subjects.push_back(subject_of(std::make_shared<const fuse_filter<4>>(keys, b)));
      }
      if (wanted(opt, "ribbon")) {
        subjects.push_back(subject_of(std::make_shared<const ribbon_filter<false>>(
            keys, b, opt.shard_overhead, opt.shard_bits_for(n))));
      }
      const double p = std::ldexp(1.0, -static_cast<int>(b));
      if (wanted(opt, "bloomkit-static")) {
        subjects.push_back(library_subject(
            "bloomkit-static",
            std::make_shared<const bloomkit::static_filter>(
                bloomkit::static_filter::build_from_hashes(keys, p, 2)),
            [](const bloomkit::static_filter& f, std::uint64_t h) { return f.contains_hash(h); }));
      }
      if (wanted(opt, "bloomkit-blocked")) {
        auto f = std::make_shared<bloomkit::blocked_bloom_filter>(
            bloomkit::blocked_bloom_filter::for_capacity(n, p));
        for (const auto h : keys) f->insert_digest(h);
        subjects.push_back(library_subject("bloomkit-blocked",
                                           std::shared_ptr<const bloomkit::blocked_bloom_filter>(f),
                                           [](const bloomkit::blocked_bloom_filter& g,
                                              std::uint64_t h) { return g.contains_digest(h); }));
      }
      paired_lookups(subjects, hits, misses, opt.chunk, opt.paired, std::to_string(b));
    }
  }
}

// First-seed success of standard Ribbon banding: `tries` key sets (distinct seeds) per overhead.
void scan_overhead(const options& opt) {
  for (const auto n : opt.sizes) {
    const auto keys = key_hashes(0, n);
    std::printf("\n| n | overhead | first-seed success |\n|---:|---:|---:|\n");
    for (const auto e : opt.scan) {
      unsigned first = 0;
      for (unsigned t = 0; t < opt.tries; ++t) {
        try {
          ribbon_filter<false> f(keys, 8, e, 0, std::uint64_t{1000} * (t + 1), 1);
          ++first;
        } catch (const std::runtime_error&) {
          // banding failed with this seed
        }
      }
      std::printf("| %zu | %.3f | %u/%u |\n", n, e, first, opt.tries);
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const options opt = parse_options(argc, argv);
    print_machine(opt);
    std::fflush(stdout);
    if (!opt.scan.empty()) {
      scan_overhead(opt);
    } else if (opt.paired > 0) {
      run_paired(opt);
    } else {
      run_sizes(opt);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "static_variants: %s\n", e.what());
    return 1;
  }
}
