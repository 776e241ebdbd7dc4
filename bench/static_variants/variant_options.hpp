#pragma once
// The command line of bench/static_variants.cpp.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bloomkit::bench::static_variants {

struct options {
  std::vector<std::size_t> sizes{1000000, 10000000};
  std::vector<unsigned> bits{7, 8, 10, 14, 20};
  std::vector<std::string> variants{"fuse3", "fuse4", "ribbon", "ribbon-flat", "ribbon-homog"};
  unsigned reps = 3;
  std::size_t queries = 10000000;
  double overhead = 0;            // ribbon-flat's m / n - 1; 0: default_overhead(n)
  std::size_t shard_keys = 8192;  // ribbon, ribbon-homog: about this many keys per shard
  double shard_overhead = 0.06;   // their m / n - 1 per shard
  std::vector<double> scan;
  unsigned tries = 20;
  unsigned paired = 0;  // rounds of adjacent-chunk lookups (0: the build-and-measure tables)
  std::size_t chunk = 100000;

  double flat_overhead_for(std::size_t n) const {
    return overhead > 0 ? overhead : default_overhead(n);
  }
  // The fewest shard bits that bring n / 2^bits to shard_keys or below.
  unsigned shard_bits_for(std::size_t n) const {
    unsigned b = 0;
    while ((n >> b) > shard_keys) ++b;
    return b;
  }

  // One band system of w = 64 over n keys: about the overhead at which banding succeeds with
  // the first seed in half the tries or more (--scan-overhead on this machine, bench/RESULTS.md
  // "Issue 30"); it grows with n.
  static double default_overhead(std::size_t n) {
    return n <= 100000 ? 0.07 : n <= 1000000 ? 0.10 : n <= 10000000 ? 0.12 : 0.14;
  }
};

inline std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

inline double parse_number(const std::string& text, const char* flag) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(v > 0)) {
    throw std::invalid_argument(std::string(flag) + " wants positive numbers, got '" + text + "'");
  }
  return v;
}

inline options parse_options(int argc, char** argv) {
  options opt;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + " wants a value");
    const std::string value = argv[i + 1];
    if (flag == "--sizes") {
      opt.sizes.clear();
      for (const auto& s : split(value)) {
        opt.sizes.push_back(static_cast<std::size_t>(parse_number(s, "--sizes")));
      }
    } else if (flag == "--bits") {
      opt.bits.clear();
      for (const auto& s : split(value)) {
        const double b = parse_number(s, "--bits");
        if (b != std::floor(b) || b > 32) throw std::invalid_argument("--bits: 1..32");
        opt.bits.push_back(static_cast<unsigned>(b));
      }
    } else if (flag == "--variants") {
      opt.variants = split(value);
      for (const auto& v : opt.variants) {
        if (v != "fuse3" && v != "fuse4" && v != "ribbon" && v != "ribbon-flat" &&
            v != "ribbon-homog" && v != "bloomkit-static" && v != "bloomkit-blocked") {
          throw std::invalid_argument(
              "--variants: unknown '" + v +
              "' (known: fuse3, fuse4, ribbon, ribbon-flat, ribbon-homog; with --paired also "
              "bloomkit-static, bloomkit-blocked)");
        }
      }
    } else if (flag == "--reps") {
      opt.reps = static_cast<unsigned>(parse_number(value, "--reps"));
    } else if (flag == "--queries") {
      opt.queries = static_cast<std::size_t>(parse_number(value, "--queries"));
    } else if (flag == "--overhead") {
      opt.overhead = parse_number(value, "--overhead");
    } else if (flag == "--shard-keys") {
      opt.shard_keys = static_cast<std::size_t>(parse_number(value, "--shard-keys"));
    } else if (flag == "--shard-overhead") {
      opt.shard_overhead = parse_number(value, "--shard-overhead");
    } else if (flag == "--scan-overhead") {
      for (const auto& s : split(value)) opt.scan.push_back(parse_number(s, "--scan-overhead"));
    } else if (flag == "--paired") {
      opt.paired = static_cast<unsigned>(parse_number(value, "--paired"));
    } else if (flag == "--chunk") {
      opt.chunk = static_cast<std::size_t>(parse_number(value, "--chunk"));
    } else if (flag == "--tries") {
      opt.tries = static_cast<unsigned>(parse_number(value, "--tries"));
    } else {
      throw std::invalid_argument("unknown option '" + flag + "'");
    }
  }
  return opt;
}

}  // namespace bloomkit::bench::static_variants
