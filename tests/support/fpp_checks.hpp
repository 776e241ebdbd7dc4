#pragma once
// Statistical checks that a kind of filter meets its target false-positive probability p: the
// expected FPP over key sets, measured on many independently keyed filters.
//
// The guarantee is on the expected FPP over key sets, and one small filter's realised FPP varies
// a lot (a one-key filter is a hit or a miss for whole families of probes), so each point builds
// F independently keyed filters (filter f holds "key-<f>-<i>", i < n) and probes each with Q
// absent keys ("probe-<f>-<j>": no key repeats, nothing random). With x_f the false-positive
// rate of filter f, the mean x of the x_f estimates the expected FPP E with standard error
// SE = sd(x_f) / sqrt(F), and by the central limit theorem x ~ N(E, SE^2).
//
// A point passes when x <= p (1 + r/2), and the test requires SE <= r p / 8. So a sizing whose
// E is at most p fails only if x lands 4 SE above E (probability 3e-5), and one whose E is
// (1 + r) p passes only if x lands 4 SE below it: the test tells p from (1 + r) p. With
// r = 0.15 at p = 0.1 and 0.01 (1% from 1.15%) and 0.3 at p = 0.001, the binomial part of SE
// alone needs F Q >= 64 / (r^2 p) probes (284k at p = 1%); the filters add their own variance,
// so F Q is 1.5 times that over at least 1000 filters, and the SE check says whether that was
// enough.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bloomkit::test {

struct point {
  double p;
  double resolution;  // r: tells p from (1 + r) p
};

// "<prefix><f>-<i>" for i < count, as views into one buffer (no allocation per key).
class key_family {
 public:
  key_family(std::string_view prefix, std::uint64_t f, std::uint64_t count) {
    const std::string head = std::string(prefix) + std::to_string(f) + "-";
    text_.reserve(count * (head.size() + 8));
    std::vector<std::size_t> ends;
    ends.reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      text_ += head;
      text_ += std::to_string(i);
      ends.push_back(text_.size());
    }
    views_.reserve(count);
    std::size_t begin = 0;
    for (const std::size_t end : ends) {
      views_.emplace_back(text_.data() + begin, end - begin);
      begin = end;
    }
  }
  std::span<const std::string_view> views() const { return views_; }

 private:
  std::string text_;
  std::vector<std::string_view> views_;
};

struct measurement {
  double mean = 0;
  double standard_error = 0;
};

// make(f) returns filter f holding the keys of key_family("key-", f, ...); Q probes each.
template <class Make>
measurement measure(std::uint64_t filters, std::uint64_t probes_each, Make&& make) {
  double sum = 0;
  double sum_sq = 0;
  auto answers = std::make_unique<bool[]>(probes_each);
  for (std::uint64_t f = 0; f < filters; ++f) {
    const auto filter = make(f);
    const key_family probes("probe-", f, probes_each);
    const double x =
        static_cast<double>(filter.contains_many(probes.views(), {answers.get(), probes_each})) /
        static_cast<double>(probes_each);
    sum += x;
    sum_sq += x * x;
  }
  const double n = static_cast<double>(filters);
  const double mean = sum / n;
  const double variance = std::max(0.0, (sum_sq - n * mean * mean) / (n - 1));
  return {mean, std::sqrt(variance / n)};
}

// Filters and probes per filter for one point: F Q = 1.5 * 64 / (r^2 p) probes, Q at most
// 4n + 250, and at least `min_filters` filters (the filters' own variance shrinks with F alone:
// go-zero's 14 probes make a small filter's FPP vary the most).
std::pair<std::uint64_t, std::uint64_t> design(const point& pt, std::uint64_t n,
                                               std::uint64_t min_filters = 1000) {
  const double total = 1.5 * 64 / (pt.resolution * pt.resolution * pt.p);
  const std::uint64_t each = std::clamp<std::uint64_t>(
      static_cast<std::uint64_t>(total / static_cast<double>(min_filters)), 16, 4 * n + 250);
  const auto filters = static_cast<std::uint64_t>(std::ceil(total / static_cast<double>(each)));
  return {std::max(filters, min_filters), each};
}

void expect_meets(const measurement& m, const point& pt, const std::string& what) {
  EXPECT_LE(m.standard_error, pt.resolution * pt.p / 8)
      << what << ": too few probes to tell p from (1 + r) p";
  EXPECT_LE(m.mean, pt.p * (1 + pt.resolution / 2))
      << what << ": measured FPP " << m.mean << " (SE " << m.standard_error << ") at p " << pt.p;
}

}  // namespace bloomkit::test
