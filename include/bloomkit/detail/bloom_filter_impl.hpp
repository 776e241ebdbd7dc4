#pragma once
// Member definitions of basic_bloom_filter (included by bloom_filter.hpp).

#include <limits>
#include <string>

namespace bloomkit {

namespace detail {
// The policy's own limits on m and k, if it has any (interop schemes: hashing.hpp).
template <class Policy>
void check_policy_params(std::uint64_t bits, std::uint32_t hashes) {
  if constexpr (requires { Policy::check_params(bits, hashes); }) {
    Policy::check_params(bits, hashes);
  }
}
// The policy's FPP figures (hashing.hpp), or the textbook ones.
template <class Policy>
double policy_fpp(std::uint64_t bits, std::uint32_t hashes, std::uint64_t n) {
  if constexpr (requires { Policy::fpp(bits, hashes, n); }) {
    return Policy::fpp(bits, hashes, n);
  } else {
    return expected_fpp(bits, hashes, n);
  }
}
template <class Policy>
double policy_fpp_at_fill(std::uint64_t bits, std::uint32_t hashes, double fill) noexcept {
  if constexpr (requires { Policy::fpp_at_fill(bits, hashes, fill); }) {
    return Policy::fpp_at_fill(bits, hashes, fill);
  } else {
    return std::pow(fill, hashes);
  }
}
}  // namespace detail

template <class Policy>
basic_bloom_filter<Policy> basic_bloom_filter<Policy>::for_capacity(std::uint64_t n, double p) {
  filter_params params;
  if constexpr (requires { Policy::optimal_params(n, p); }) {
    params = Policy::optimal_params(n, p);  // sized exactly as the peer sizes
  } else {
    params = optimal_params(n, p);
  }
  return basic_bloom_filter(filter_config{params.bits, params.hashes, n, p}, bit_array(params.bits),
                            0);
}

template <class Policy>
basic_bloom_filter<Policy>::basic_bloom_filter(std::uint64_t bits, std::uint32_t hashes) {
  validate_params(bits, hashes);
  detail::check_policy_params<Policy>(bits, hashes);
  const std::uint64_t n = natural_capacity(bits, hashes);
  config_ = filter_config{bits, hashes, n, detail::policy_fpp<Policy>(bits, hashes, n)};
  bits_ = bit_array(bits);
}

template <class Policy>
basic_bloom_filter<Policy>::basic_bloom_filter(const filter_config& config, bit_array storage,
                                               std::uint64_t inserted)
    : config_(config), bits_(std::move(storage)), inserted_(inserted) {
  validate_params(config.bits, config.hashes);
  detail::check_policy_params<Policy>(config.bits, config.hashes);
  if (bits_.size() != config.bits) {
    throw error(errc::invalid_argument, "filter storage holds " + std::to_string(bits_.size()) +
                                            " bits, expected " + std::to_string(config.bits));
  }
}

template <class Policy>
template <bool Atomic>
bool basic_bloom_filter<Policy>::set_bit(std::uint64_t index) noexcept {
  if constexpr (Atomic) {
    return bits_.set_atomic(index);
  } else {
    return bits_.set(index);
  }
}

template <class Policy>
template <bool Atomic>
bool basic_bloom_filter<Policy>::set_probes(const std::uint64_t* pos) noexcept {
  bool changed = false;
  for (std::uint32_t i = 0; i < config_.hashes; ++i) changed |= set_bit<Atomic>(pos[i]);
  return changed;
}

template <class Policy>
template <bool Atomic>
bool basic_bloom_filter<Policy>::set_probes(const digest_type& d) noexcept {
  auto seq = Policy::probes(d, config_.bits);
  bool changed = false;
  for (std::uint32_t i = 0; i < config_.hashes; ++i) changed |= set_bit<Atomic>(seq.next());
  return changed;
}

template <class Policy>
template <bool Atomic>
void basic_bloom_filter<Policy>::add_inserted(std::uint64_t n) noexcept {
  if constexpr (Atomic) {
    if (n != 0) __atomic_fetch_add(&inserted_, n, __ATOMIC_RELAXED);
  } else {
    inserted_ += n;
  }
}

template <class Policy>
template <bool Atomic>
bool basic_bloom_filter<Policy>::add_digest(const digest_type& d) {
  require_writable();
  bool changed;
  std::uint64_t pos[max_stored_probes];
  if (byte_size() >= large_filter_bytes && store_probes(d, pos)) {
    // In DRAM: ask for all k lines before touching any, so their misses overlap.
    for (std::uint32_t i = 0; i < config_.hashes; ++i) bits_.prefetch_for_write(pos[i]);
    changed = set_probes<Atomic>(pos);
  } else {
    changed = set_probes<Atomic>(d);
  }
  add_inserted<Atomic>(changed);
  return changed;
}

template <class Policy>
bool basic_bloom_filter<Policy>::contains_digest_unchecked(const digest_type& d) const noexcept {
  std::uint64_t pos[max_stored_probes];
  if (byte_size() >= large_filter_bytes && store_probes(d, pos)) {
    // In DRAM: test all k bits without an early exit. No mispredicted branch on a zero bit
    // then stalls the loads behind it, and a caller's loop over keys can overlap the next
    // key's loads with this one's (misses at n = 5e7: 261-277 -> 215-238 ns per key).
    bool present = true;
    for (std::uint32_t i = 0; i < config_.hashes; ++i) present &= bits_.test(pos[i]);
    return present;
  }
  auto seq = Policy::probes(d, config_.bits);
  for (std::uint32_t i = 0; i < config_.hashes; ++i) {
    if (!bits_.test(seq.next())) return false;
  }
  return true;
}

// Batched inserts into a large filter: a software pipeline over keys. Step i hashes key i,
// stores its positions and prefetches their lines; step i also sets the bits of key i - lag,
// whose lines have had `lag` keys' worth of hashing to arrive. In-cache filters and k > 16
// take the block-wise loop (no latency to hide there).
template <class Policy>
template <bool Atomic, class DigestAt>
std::size_t basic_bloom_filter<Policy>::insert_batch(std::size_t n, DigestAt digest_at) {
  require_writable();
  if (byte_size() < large_filter_bytes || config_.hashes > max_stored_probes) {
    return insert_block_wise<Atomic>(n, digest_at);
  }
  constexpr std::size_t lag = 16;
  constexpr std::size_t ring = 32;  // a power of two > lag
  std::uint64_t pos[ring][max_stored_probes];
  const std::uint32_t k = config_.hashes;
  std::size_t fresh = 0;
  for (std::size_t i = 0; i < n + lag; ++i) {
    if (i < n) {
      std::uint64_t* p = pos[i % ring];
      store_probes(digest_at(i), p);
      for (std::uint32_t j = 0; j < k; ++j) bits_.prefetch_for_write(p[j]);
    }
    if (i >= lag) fresh += set_probes<Atomic>(pos[(i - lag) % ring]);
  }
  add_inserted<Atomic>(fresh);
  return fresh;
}

template <class Policy>
template <bool Atomic, class DigestAt>
std::size_t basic_bloom_filter<Policy>::insert_block_wise(std::size_t count, DigestAt digest_at) {
  std::size_t fresh = 0;
  digest_type digests[block_size];
  for (std::size_t base = 0; base < count; base += block_size) {
    const std::size_t n = std::min(block_size, count - base);
    // Stage 1: hash the block and ask for every line its keys will write.
    for (std::size_t j = 0; j < n; ++j) {
      digests[j] = digest_at(base + j);
      auto seq = Policy::probes(digests[j], config_.bits);
      for (std::uint32_t i = 0; i < config_.hashes; ++i) bits_.prefetch_for_write(seq.next());
    }
    // Stage 2: set the bits; by now most lines are in cache or on their way.
    for (std::size_t j = 0; j < n; ++j) fresh += set_probes<Atomic>(digests[j]);
  }
  add_inserted<Atomic>(fresh);
  return fresh;
}

// Batched lookups: a software pipeline over keys, three stages apart.
//   step i:        hash key i, store its positions, prefetch its first two lines;
//   key i - 16:    test the first two bits (at the designed load they decide 3/4 of misses)
//                  and, if both are set, prefetch the other k - 2 lines;
//   key i - 24:    test the other k - 2 bits, whose lines have had 8 keys' time to arrive.
// Each prefetch hides behind 8-16 keys of hashing and the number of reads in flight stays
// steady. Measured (bench/RESULTS.md, n = 1e8): hits 98.6 -> 36.9 ns per key, misses
// 45.2 -> 29.9 ns against the block-wise loop. Filters with k < 3 or k > 16 use that loop.
template <class Policy>
template <class DigestAt>
std::size_t basic_bloom_filter<Policy>::lookup_batch(std::size_t n, DigestAt digest_at,
                                                     std::span<bool> results) const {
  const std::uint32_t k = config_.hashes;
  if (k < 3 || k > max_stored_probes) return contains_block_wise(n, digest_at, results);
  constexpr std::size_t first_lag = 16;
  constexpr std::size_t second_lag = 8;
  constexpr std::size_t ring = 32;  // a power of two > first_lag + second_lag
  struct slot {
    std::uint64_t pos[max_stored_probes];
    bool alive;
  };
  slot slots[ring];
  std::size_t present = 0;
  for (std::size_t i = 0; i < n + first_lag + second_lag; ++i) {
    if (i < n) {
      slot& s = slots[i % ring];
      store_probes(digest_at(i), s.pos);
      bits_.prefetch(s.pos[0]);
      bits_.prefetch(s.pos[1]);
    }
    if (i >= first_lag && i - first_lag < n) {
      slot& s = slots[(i - first_lag) % ring];
      s.alive = bits_.test(s.pos[0]) & bits_.test(s.pos[1]);
      if (s.alive) {
        for (std::uint32_t p = 2; p < k; ++p) bits_.prefetch(s.pos[p]);
      }
    }
    if (i >= first_lag + second_lag) {
      const std::size_t j = i - first_lag - second_lag;
      const slot& s = slots[j % ring];
      bool alive = s.alive;
      if (alive) {
        // No early exit: for hits every bit is tested anyway, and the branch-free loop is
        // cheaper than a mispredicted exit for the few misses that reach this stage.
        for (std::uint32_t p = 2; p < k; ++p) alive &= bits_.test(s.pos[p]);
      }
      results[j] = alive;
      present += alive;
    }
  }
  return present;
}

// The block-wise lookup: hash a block of keys and prefetch their first two lines, test those,
// prefetch the rest for the survivors, then test the rest. Serves k < 3 and k > 16.
template <class Policy>
template <class DigestAt>
std::size_t basic_bloom_filter<Policy>::contains_block_wise(
    std::size_t count, DigestAt digest_at, std::span<bool> results) const noexcept {
  const std::uint64_t m = config_.bits;
  const std::uint32_t k = config_.hashes;
  // Probes 0 and 1 decide most misses (in a filter at its target fill, half the bits are set),
  // so they are fetched for every key; the remaining k-2 lines only for keys that survive.
  const std::uint32_t early = std::min<std::uint32_t>(k, 2);
  std::size_t present = 0;
  typename Policy::sequence_type sequences[block_size];
  std::uint64_t first[block_size][2];
  for (std::size_t base = 0; base < count; base += block_size) {
    const std::size_t n = std::min(block_size, count - base);
    for (std::size_t j = 0; j < n; ++j) {
      sequences[j] = Policy::probes(digest_at(base + j), m);
      for (std::uint32_t i = 0; i < early; ++i) {
        first[j][i] = sequences[j].next();
        bits_.prefetch(first[j][i]);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      bool alive = bits_.test(first[j][0]) && (early < 2 || bits_.test(first[j][1]));
      results[base + j] = alive;
      if (alive && k > early) {
        auto ahead = sequences[j];
        for (std::uint32_t i = early; i < k; ++i) bits_.prefetch(ahead.next());
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      if (!results[base + j]) continue;
      for (std::uint32_t i = early; i < k; ++i) {
        if (!bits_.test(sequences[j].next())) {
          results[base + j] = false;
          break;
        }
      }
      present += results[base + j];
    }
  }
  return present;
}

template <class Policy>
void basic_bloom_filter<Policy>::require_writable() const {
  if (bits_.read_only()) {
    throw error(errc::read_only, "filter is read-only (it maps a file); load it to modify it");
  }
}

template <class Policy>
void basic_bloom_filter<Policy>::require_compatible(const basic_bloom_filter& other,
                                                    const char* operation) const {
  auto mismatch = [&](const char* what, const std::string& mine, const std::string& theirs) {
    throw error(errc::incompatible, std::string("cannot ") + operation + " filters: " + what +
                                        " differ (" + mine + " vs " + theirs + ")");
  };
  if (config_.bits != other.config_.bits) {
    mismatch("bits", std::to_string(config_.bits), std::to_string(other.config_.bits));
  }
  if (config_.hashes != other.config_.hashes) {
    mismatch("hashes", std::to_string(config_.hashes), std::to_string(other.config_.hashes));
  }
}

template <class Policy>
void basic_bloom_filter<Policy>::merge(const basic_bloom_filter& other) {
  require_compatible(other, "merge");
  auto mine = bits_.mutable_words();
  auto theirs = other.bits_.words();
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] |= theirs[i];
  other.bits_.check_source();
  inserted_ = estimated_inserted();
}

template <class Policy>
void basic_bloom_filter<Policy>::intersect(const basic_bloom_filter& other) {
  require_compatible(other, "intersect");
  auto mine = bits_.mutable_words();
  auto theirs = other.bits_.words();
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] &= theirs[i];
  other.bits_.check_source();
  inserted_ = estimated_inserted();
}

template <class Policy>
void basic_bloom_filter<Policy>::clear() {
  bits_.clear();
  inserted_ = 0;
}

template <class Policy>
double basic_bloom_filter<Policy>::estimated_fpp() const noexcept {
  return detail::policy_fpp_at_fill<Policy>(bits(), hashes(), fill_ratio());
}

template <class Policy>
double basic_bloom_filter<Policy>::estimated_count() const noexcept {
  return estimate_count(config_.bits, config_.hashes, bits_.count());
}

template <class Policy>
std::uint64_t basic_bloom_filter<Policy>::estimated_inserted() const noexcept {
  const double estimate = estimated_count();
  // A saturated filter (every bit set) says nothing about its count; report m.
  if (!(estimate < static_cast<double>(config_.bits))) return config_.bits;
  return static_cast<std::uint64_t>(std::llround(estimate));
}

}  // namespace bloomkit
