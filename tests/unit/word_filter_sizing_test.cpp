// Word-blocked filters (sizing.hpp, "Word-blocked filters"; word_mask.hpp): the FPP figure, the
// sizing that picks the fewest words holding p, and a simulation through the real key masks
// that the figure bounds.

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "storage/word_mask.hpp"
#include "support/errors.hpp"

namespace bloomkit {
namespace {

using test::code_of;
using test::error_of;

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// A word-blocked filter of `words` words of w bits, k bits a key, over random keys.
class simulated_word_filter {
 public:
  simulated_word_filter(std::uint32_t w, std::uint32_t k, std::uint64_t words)
      : w_(w), k_(k), lanes_((w + 63) / 64), words_(words), bits_(words * lanes_) {}
  void insert(std::uint64_t h1, std::uint64_t h2) {
    std::uint64_t mask[8];
    detail::word_mask(h2, w_, k_, mask);
    std::uint64_t* word = &bits_[detail::multiply_high(h1, words_) * lanes_];
    for (std::uint32_t i = 0; i < lanes_; ++i) word[i] |= mask[i];
  }
  bool contains(std::uint64_t h1, std::uint64_t h2) const {
    std::uint64_t mask[8];
    detail::word_mask(h2, w_, k_, mask);
    const std::uint64_t* word = &bits_[detail::multiply_high(h1, words_) * lanes_];
    for (std::uint32_t i = 0; i < lanes_; ++i) {
      if ((word[i] & mask[i]) != mask[i]) return false;
    }
    return true;
  }

 private:
  std::uint32_t w_, k_, lanes_;
  std::uint64_t words_;
  std::vector<std::uint64_t> bits_;
};

TEST(WordMask, SetsExactlyKDistinctBitsBelowTheWordSize) {
  std::uint64_t state = 1;
  for (std::uint32_t w : {8U, 64U, 112U, 128U, 200U, 512U}) {
    for (std::uint32_t k : {1U, 2U, 7U, 8U, 16U}) {
      if (k > w) continue;  // word_mask needs k <= w
      for (int i = 0; i < 1000; ++i) {
        std::uint64_t mask[8];
        detail::word_mask(splitmix(state), w, k, mask);
        int set = 0;
        for (std::uint32_t lane = 0; lane < (w + 63) / 64; ++lane) {
          set += std::popcount(mask[lane]);
          const std::uint32_t lane_bits = std::min<std::uint32_t>(64, w - lane * 64);
          if (lane_bits < 64) {
            EXPECT_EQ(mask[lane] >> lane_bits, 0U) << "w " << w;
          }
        }
        ASSERT_EQ(set, static_cast<int>(k)) << "w " << w << " k " << k;
      }
    }
  }
}

TEST(WordMask, SpreadsItsBitsEvenlyOverTheWord) {
  std::uint64_t state = 7;
  const std::uint32_t w = 112;
  std::vector<int> hits(w);
  const int keys = 200000;
  for (int i = 0; i < keys; ++i) {
    std::uint64_t mask[2];
    detail::word_mask(splitmix(state), w, 8, mask);
    for (std::uint32_t p = 0; p < w; ++p) hits[p] += (mask[p / 64] >> (p % 64)) & 1;
  }
  const double expected = keys * 8.0 / w;  // 14,286; sigma about 116
  for (std::uint32_t p = 0; p < w; ++p) EXPECT_NEAR(hits[p], expected, 6 * std::sqrt(expected));
}

TEST(WordFilterSizing, FigureFallsWithWordsAndRisesWithKeys) {
  EXPECT_EQ(word_filter_fpp(64, 7, 1000, 0), 0.0);
  double last = 1.0;
  for (std::uint64_t words : {10U, 100U, 1000U, 10000U}) {
    const double f = word_filter_fpp(112, 8, words, 5000);
    EXPECT_LT(f, last);
    last = f;
  }
  EXPECT_LT(word_filter_fpp(128, 8, 1000, 100), word_filter_fpp(128, 8, 1000, 1000));
  EXPECT_EQ(word_filter_fpp(64, 7, 1, 1'000'000), 1.0);  // one word, a million keys
}

// The answer is the one exact search over every k and every word count gives: the fewest words,
// and the smallest k on a tie. Window files and Redis window filters record the layout this
// sizing gave and are checked against it when read, so it must never change.
TEST(WordFilterSizing, PicksTheFewestWordsThatHoldTheTargetAndTheSmallestKOnATie) {
  for (std::uint32_t w : {8U, 16U, 64U, 112U, 128U, 256U, 512U}) {
    for (std::uint64_t n : {1U, 3U, 10U, 1000U, 54'321U, 1'250'000U, 3'000'000'000U}) {
      for (double p : {0.5, 0.1, 0.01 / 9, 1e-4 / 9, 1e-7}) {
        const auto at = [&] { return testing::Message() << w << " " << n << " " << p; };
        word_filter_params s;
        try {
          s = word_filter_sizing(w, n, p);
        } catch (const error& e) {
          // Too large: not even the most words hold p, whatever k.
          EXPECT_EQ(e.code(), errc::too_large) << at();
          for (std::uint32_t k = 1; k <= std::min(max_word_hashes, w); ++k) {
            EXPECT_GT(word_filter_fpp(w, k, max_bits / w, n), p) << at() << " k " << k;
          }
          continue;
        }
        ASSERT_GE(s.words, 1U) << at();
        EXPECT_LE(word_filter_fpp(w, s.hashes, s.words, n), p) << at();
        for (std::uint32_t k = 1; k <= std::min(max_word_hashes, w); ++k) {
          // No k does it in fewer words, and no smaller k in as many.
          if (s.words > 1) {
            EXPECT_GT(word_filter_fpp(w, k, s.words - 1, n), p) << at() << " k " << k;
          }
          if (k < s.hashes) {
            EXPECT_GT(word_filter_fpp(w, k, s.words, n), p) << at() << " k " << k;
          }
        }
        EXPECT_EQ(word_filter_sizing(w, n, p), s) << at() << " asked again";
      }
    }
  }
}

TEST(WordFilterSizing, MemoryAtOnePercentOverNineSlots) {
  // The window layouts' per-slot target: p / (S + 1) with S = 8.
  const word_filter_params in_process = word_filter_sizing(112, 1'250'000, 0.01 / 9);
  const double bits_per_key = 112.0 * in_process.words / 1'250'000;
  EXPECT_LT(bits_per_key, 21.0);
  const word_filter_params redis = word_filter_sizing(64, 1'250'000, 0.01 / 9);
  EXPECT_LT(64.0 * redis.words / 1'250'000, 26.0);
}

// The figure is an upper bound on the FPP through the real masks, and not a loose one.
TEST(WordFilterSizing, MeasuredFppIsWithinTheFigure) {
  struct point {
    std::uint32_t w;
    std::uint64_t n;
    double p;
  };
  std::uint64_t state = 42;
  for (const point& at :
       {point{64, 1, 0.05}, point{64, 20, 0.01}, point{112, 1000, 0.01}, point{112, 50000, 0.002},
        point{128, 50000, 0.01}, point{256, 3000, 0.001}}) {
    const word_filter_params s = word_filter_sizing(at.w, at.n, at.p);
    const double figure = word_filter_fpp(at.w, s.hashes, s.words, at.n);
    // Small filters: average over many filters, since one filter's FPP varies a lot.
    const int filters = at.n < 100 ? 2000 : 10;
    const int probes = 400000 / filters;
    long positives = 0;
    for (int f = 0; f < filters; ++f) {
      simulated_word_filter filter(at.w, s.hashes, s.words);
      for (std::uint64_t i = 0; i < at.n; ++i) filter.insert(splitmix(state), splitmix(state));
      for (int i = 0; i < probes; ++i)
        positives += filter.contains(splitmix(state), splitmix(state));
    }
    const double trials = static_cast<double>(filters) * probes;
    const double measured = static_cast<double>(positives) / trials;
    const double sigma = std::sqrt(figure * (1 - figure) / trials);
    EXPECT_LE(measured, figure + 5 * sigma) << "w " << at.w << " n " << at.n;
    EXPECT_GE(measured, 0.6 * figure - 5 * sigma) << "w " << at.w << " n " << at.n;
  }
}

TEST(WordFilterSizing, RejectsWhatCannotBe) {
  EXPECT_EQ(code_of([] { word_filter_fpp(7, 1, 1, 1); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_fpp(513, 1, 1, 1); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_fpp(64, 0, 1, 1); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_fpp(64, 17, 1, 1); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_fpp(8, 9, 1, 1); }), errc::invalid_argument);
  // The message states the range that holds for this word: k can be at most w.
  EXPECT_NE(error_of([] { word_filter_fpp(8, 9, 1, 1); }, errc::invalid_argument)
                .find("bits per key must be 1..8 (got 9)"),
            std::string::npos);
  EXPECT_NE(error_of([] { word_filter_fpp(64, 17, 1, 1); }, errc::invalid_argument)
                .find("bits per key must be 1..16 (got 17)"),
            std::string::npos);
  EXPECT_EQ(code_of([] { word_filter_fpp(64, 4, 0, 1); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_sizing(64, 0, 0.01); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_sizing(64, 10, 1.5); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { word_filter_sizing(64, 10, 1e-300); }), errc::too_large);
}

}  // namespace
}  // namespace bloomkit
