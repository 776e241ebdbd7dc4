#pragma once
// Internal: the last answers of the sizing searches (sizing.cpp, blocked_layouts.cpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "bloomkit/sizing.hpp"

namespace bloomkit::detail {

// Sizing a small filter searches over (m, k), some 10-300 us; a program that makes many filters
// of one size (a scalable filter's sub-filters, per-tenant filters) asks the same question again,
// and every window filter read from a file or Redis checks its layout by sizing it again. The
// last answers are remembered (the functions are pure).
class sizing_memo {
 public:
  // Which sizing was asked: optimal_params, exact_params, blocked_params or word_filter_sizing
  // (sizing.hpp; for the last, the answer's bits are its words).
  enum question { textbook, exact, blocked, words };
  struct key {
    question asked = textbook;
    std::uint64_t n = 0;
    double p = 0;
    std::uint32_t word_bits = 0;  // word_filter_sizing's word size

    bool operator==(const key&) const = default;
  };
  // The one memo of the library.
  static sizing_memo& shared() {
    static sizing_memo instance;
    return instance;
  }

  template <class Compute>
  filter_params get(const key& asked, Compute&& compute) {
    {
      const std::lock_guard lock(mutex_);
      for (const entry& e : entries_) {
        if (e.used && e.asked == asked) return e.params;
      }
    }
    const filter_params params = compute();
    const std::lock_guard lock(mutex_);
    entries_[next_] = {true, asked, params};
    next_ = (next_ + 1) % entries_.size();
    return params;
  }

 private:
  struct entry {
    bool used = false;
    key asked;
    filter_params params;
  };
  std::mutex mutex_;
  std::array<entry, 64> entries_{};
  std::size_t next_ = 0;
};

}  // namespace bloomkit::detail
