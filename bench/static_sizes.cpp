// static_sizes: bits per key of the static filter against the information bound log2(1/p) and
// against the classic and blocked filters, for each n and target p (issue 30); one JSON object a
// line, for bench/compare_peers's report. Sizes are the kinds' own: static_filter::bits_for, and
// the byte_size of classic and blocked filters made by for_capacity(n, p). For each p it also
// builds a static filter of `fpp_n` URL-like keys and measures its FPP on `queries` fresh ones.
//
//   static_sizes [--sizes 1e6,1e7,1e8] [--p 1e-2,0.00390625,1e-3,1e-4,1e-6] [--fpp-n 1e6]
//                [--queries 1e7]

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/static_filter.hpp"

namespace {

std::vector<double> numbers(const char* text, const char* flag) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !(v > 0)) {
      throw std::invalid_argument(std::string(flag) + ": want positive numbers, got '" + item +
                                  "'");
    }
    out.push_back(v);
  }
  return out;
}

void print_sizes(std::uint64_t n, double p) {
  const double bound = std::log2(1 / p);
  const double stat = static_cast<double>(bloomkit::static_filter::bits_for(n, p)) / n;
  const double classic =
      static_cast<double>(bloomkit::bloom_filter::for_capacity(n, p).byte_size()) * 8 / n;
  const double blocked =
      static_cast<double>(bloomkit::blocked_bloom_filter::for_capacity(n, p).byte_size()) * 8 / n;
  std::printf(
      "{\"row\": \"size\", \"n\": %llu, \"p\": %.9g, \"fingerprint_bits\": %u, "
      "\"bound_bits_per_key\": %.4f, \"static_bits_per_key\": %.4f, "
      "\"classic_bits_per_key\": %.4f, \"blocked_bits_per_key\": %.4f}\n",
      static_cast<unsigned long long>(n), p, bloomkit::static_filter::fingerprint_bits_for(p),
      bound, stat, classic, blocked);
}

void print_fpp(const bloomkit::bench::key_set& keys, const bloomkit::bench::key_set& misses,
               double p) {
  const auto f = bloomkit::static_filter::build(keys.keys(), p);
  auto results = std::make_unique<bool[]>(misses.size());
  const auto positives = f.contains_many(misses.keys(), {results.get(), misses.size()});
  std::printf(
      "{\"row\": \"fpp\", \"n\": %zu, \"p\": %.9g, \"queries\": %zu, \"stated_fpp\": %.9g, "
      "\"measured_fpp\": %.9g, \"bits_per_key\": %.4f}\n",
      keys.size(), p, misses.size(), f.fpp(),
      static_cast<double>(positives) / static_cast<double>(misses.size()), f.bits_per_key());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::vector<double> sizes{1e6, 1e7, 1e8}, ps{1e-2, 1.0 / 256, 1e-3, 1e-4, 1e-6};
    double fpp_n = 1e6, queries = 1e7;
    for (int i = 1; i + 1 < argc; i += 2) {
      if (std::strcmp(argv[i], "--sizes") == 0) {
        sizes = numbers(argv[i + 1], "--sizes");
      } else if (std::strcmp(argv[i], "--p") == 0) {
        ps = numbers(argv[i + 1], "--p");
      } else if (std::strcmp(argv[i], "--fpp-n") == 0) {
        fpp_n = numbers(argv[i + 1], "--fpp-n").at(0);
      } else if (std::strcmp(argv[i], "--queries") == 0) {
        queries = numbers(argv[i + 1], "--queries").at(0);
      } else {
        throw std::invalid_argument(std::string("unknown option '") + argv[i] + "'");
      }
    }
    if (argc % 2 == 0) throw std::invalid_argument(std::string(argv[argc - 1]) + " wants a value");
    for (const auto n : sizes) {
      for (const auto p : ps) print_sizes(static_cast<std::uint64_t>(n), p);
    }
    const auto keys = bloomkit::bench::make_insert_keys(static_cast<std::size_t>(fpp_n));
    const auto misses = bloomkit::bench::make_miss_queries(static_cast<std::size_t>(queries));
    for (const auto p : ps) print_fpp(keys, misses, p);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "static_sizes: %s\n", e.what());
    return 1;
  }
}
