// The C++ side of bench.py's NumPy comparison: the batched lookup (contains_many) of the classic
// and blocked filters over the very 8-byte keys bench.py hands the Python module (i * 0x9E37...
// as little-endian uint64, viewed in place as the binding views a NumPy array), timed in the
// same run: bench.py starts this process, then asks for one timed round per input line, between
// its own Python rounds, so that both sides see the same load on a shared machine.
//
//   bloomkit_python_cpp_batch N P      stdin: one line per round; stdout: "<classic> <blocked>"
//                                      ns per key of contains_many over the N keys

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"

namespace {

// bench.py's chunk: what the binding hands contains_many at a time (key_batch::chunk_keys).
constexpr std::size_t chunk = 8192;

template <class Filter>
double time_contains_many(const Filter& f, const std::vector<std::string_view>& keys,
                          bool* results) {
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t present = 0;
  for (std::size_t i = 0; i < keys.size(); i += chunk) {
    const std::size_t count = std::min(chunk, keys.size() - i);
    present += f.contains_many(std::span(keys).subspan(i, count), std::span(results + i, count));
  }
  const std::chrono::duration<double, std::nano> t = std::chrono::steady_clock::now() - t0;
  if (present != keys.size()) {  // no false negatives, and the work is not optimized away
    std::fprintf(stderr, "cpp_batch: %zu of %zu keys found\n", present, keys.size());
    std::exit(1);
  }
  return t.count() / static_cast<double>(keys.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bloomkit_python_cpp_batch N P\n");
    return 2;
  }
  const std::uint64_t n = std::strtoull(argv[1], nullptr, 10);
  const double p = std::strtod(argv[2], nullptr);
  std::vector<std::uint64_t> ints(n);
  for (std::uint64_t i = 0; i < n; ++i) ints[i] = i * 0x9E3779B97F4A7C15ULL;
  std::vector<std::string_view> keys(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    keys[i] = std::string_view(reinterpret_cast<const char*>(&ints[i]), sizeof ints[i]);
  }
  auto classic = bloomkit::bloom_filter::for_capacity(n, p);
  auto blocked = bloomkit::blocked_bloom_filter::for_capacity(n, p);
  classic.insert_many(keys);
  blocked.insert_many(keys);
  auto results = std::make_unique<bool[]>(n);
  std::cout << "ready" << std::endl;
  for (std::string line; std::getline(std::cin, line);) {
    const double c = time_contains_many(classic, keys, results.get());
    const double b = time_contains_many(blocked, keys, results.get());
    std::cout << c << ' ' << b << std::endl;
  }
  return 0;
}
