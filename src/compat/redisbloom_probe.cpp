// A chain's adds and lookups (redisbloom.hpp): RedisBloom's SBChain_Add / SBChain_Check, one key
// at a time or pipelined as bloomkit's own filters are (src/core/filter_pipeline.hpp): each key
// is hashed, its newest link's probe positions located and, for a link larger than the caches,
// their lines prefetched into L2 keys_ahead keys before the key is tested and set.

#include <algorithm>
#include <array>

#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

// How many keys ahead of the one probed are hashed, located and prefetched.
constexpr std::size_t keys_ahead = 16;
// Links whose lines a batch prefetches (the newest ones: most keys land in, or are found in,
// them); past that prefetching only evicts.
constexpr std::size_t prefetched_links = 4;
// Links of at least this many bytes live in DRAM, where prefetching pays (storage_ops.hpp's
// dram_filter_bytes); below it the plain loops are faster.
constexpr std::uint64_t dram_link_bytes = std::uint64_t{1} << 20;
// The most probes a located key holds (links of more hashes walk again when tested).
constexpr std::uint32_t located_probes = 32;

// Each link's reducer (link_slot::walk), kept as the chain grows; held inline for the first
// links (no allocation), computed on the fly past them.
class reducer_table {
 public:
  using reducer = chain_access::slot_type::reducer;
  explicit reducer_table(const chain& c) : chain_(&c) { refresh(c); }
  void refresh(const chain& c) noexcept {
    for (; held_ < std::min(c.filters(), reducers_.size()); ++held_) {
      reducers_[held_] = chain_access::slot(c, held_).reduction(true);
    }
  }
  reducer operator[](std::size_t i) const noexcept {
    return i < held_ ? reducers_[i] : chain_access::slot(*chain_, i).reduction(false);
  }

 private:
  const chain* chain_;
  std::array<reducer, 32> reducers_;
  std::size_t held_ = 0;
};

// A key's hash and, when located, its probe positions in link `link` (the newest when staged).
struct located_key {
  hash_pair h;
  std::size_t link = SIZE_MAX;  // SIZE_MAX: not located
  std::uint32_t probes = 0;
  std::array<std::uint64_t, located_probes> at;
};

// Appends the link that follows a full last link, or says why there is none. Throws when its
// bits cannot be allocated.
add_result grow(chain& c) {
  const chain_access::slot_type& last = chain_access::slot(c, c.filters() - 1);
  const std::uint64_t growth = c.growth();
  if (growth == 0 || last.entries > UINT64_MAX / growth) return add_result::cannot_grow;
  link_fields next;
  try {
    next = size_link(last.entries * growth, last.error * error_tightening, c.options());
  } catch (const error&) {
    return add_result::cannot_grow;  // an error rate that underflows, or a size past the limits
  }
  if (c.filters() >= max_chain_links) return add_result::cannot_grow;
  chain_access::append(c, next);
  return add_result::added;
}

// Link i's probes of key k: its located positions when it has them, else a walk.
bool link_contains(const chain& c, std::size_t i, const located_key& k,
                   const reducer_table& reducers) noexcept {
  const chain_access::slot_type& s = chain_access::slot(c, i);
  if (k.link != i || k.probes < s.hashes()) return s.contains(k.h, reducers[i]);
  for (std::uint32_t j = 0; j < k.probes; ++j) {
    if (!s.test(k.at[j])) return false;
  }
  return true;
}

bool link_insert(chain& c, std::size_t i, const located_key& k,
                 const reducer_table& reducers) noexcept {
  chain_access::slot_type& s = chain_access::slot(c, i);
  if (k.link != i || k.probes < s.hashes()) return s.insert(k.h, reducers[i]);
  bool changed = false;
  unsigned char* d = s.data();
  for (std::uint32_t j = 0; j < k.probes; ++j) {
    const std::uint64_t x = k.at[j];
    const auto bit = static_cast<unsigned char>(1u << (x & 7));
    changed |= (d[x >> 3] & bit) == 0;
    d[x >> 3] |= bit;
  }
  return changed;
}

// SBChain_Add for a hashed key; throws when a new link cannot be allocated. The older links are
// checked first; a last link with room is then tested and set in one pass (a key whose probes
// were all set was present there, and setting them changed nothing), so RedisBloom's rule holds:
// a key present in any link is not added.
add_result add_located(chain& c, const located_key& k, reducer_table& reducers) {
  const std::size_t newest = c.filters() - 1;
  for (std::size_t i = newest; i-- > 0;) {
    if (link_contains(c, i, k, reducers)) return add_result::present;
  }
  std::size_t target = newest;
  if (const chain_access::slot_type& last = chain_access::slot(c, newest);
      last.size >= last.entries) {
    if (link_contains(c, newest, k, reducers)) return add_result::present;
    if (!c.scaling()) return add_result::full;
    if (grow(c) == add_result::cannot_grow) return add_result::cannot_grow;
    reducers.refresh(c);
    target = c.filters() - 1;
  }
  if (!link_insert(c, target, k, reducers)) return add_result::present;
  ++chain_access::slot(c, target).size;
  chain_access::set_size(c, c.items() + 1);
  return add_result::added;
}

// The first `lines` probe positions of k in link s (its link's index set by the caller).
void locate(const chain_access::slot_type& s, const reducer_table::reducer& red, located_key& k,
            std::uint32_t lines) noexcept {
  std::uint32_t count = 0;  // a local: the loop keeps it in a register
  std::uint64_t* at = k.at.data();
  s.walk(k.h, red, [&](std::uint64_t x) {
    at[count++] = x;
    return count < lines;
  });
  k.probes = count;
}

// Hashes keys[j] into the ring, locates its first `lines` probes in the newest link and, for
// links in DRAM, prefetches their lines (and the first probe's of the few links before it).
template <std::size_t Ring>
void stage(const chain& c, std::span<const std::string_view> keys, std::size_t j,
           std::array<located_key, Ring>& ring, const reducer_table& reducers,
           std::uint32_t lines) {
  located_key& k = ring[j % Ring];
  k.h = c.hash(keys[j]);
  const std::size_t n = c.filters();
  const chain_access::slot_type& newest = chain_access::slot(c, n - 1);
  k.link = SIZE_MAX;
  if (newest.hashes() <= located_probes) {
    k.link = n - 1;
    locate(newest, reducers[n - 1], k, lines);
    if (newest.bytes() >= dram_link_bytes) {
      const unsigned char* d = newest.data();
      for (std::uint32_t p = 0; p < k.probes; ++p) __builtin_prefetch(d + (k.at[p] >> 3), 1, 2);
    }
  }
  const std::size_t first = n - std::min(n, prefetched_links);
  for (std::size_t i = n - 1; i-- > first;) {
    const chain_access::slot_type& s = chain_access::slot(c, i);
    if (s.bytes() >= dram_link_bytes) s.prefetch(k.h, reducers[i], false);
  }
}

}  // namespace

hash_pair chain::hash(std::string_view key) const noexcept {
  if (bloomkit_hashing()) return hash_xxh3(key);
  return (options() & option_force64) != 0 ? hash64(key) : hash32(key);
}

add_result chain::add(std::string_view key) {
  reducer_table reducers(*this);
  located_key k;
  k.h = hash(key);
  return add_located(*this, k, reducers);
}

bool chain::contains(std::string_view key) const noexcept {
  const hash_pair h = hash(key);
  for (std::size_t i = filters(); i-- > 0;) {
    if (links_[i].contains(h)) return true;
  }
  return false;
}

std::size_t chain::add_many(std::span<const std::string_view> keys, std::span<add_result> answers,
                            std::string* failure) {
  reducer_table reducers(*this);
  std::array<located_key, keys_ahead> ring;
  const std::size_t n = keys.size();
  for (std::size_t j = 0; j < std::min(n, keys_ahead); ++j) {
    stage(*this, keys, j, ring, reducers, located_probes);
  }
  for (std::size_t j = 0; j < n; ++j) {
    located_key& k = ring[j % keys_ahead];
    add_result r;
    try {
      r = add_located(*this, k, reducers);
    } catch (const error& e) {
      if (failure != nullptr) *failure = e.what();
      r = add_result::no_memory;
    }
    answers[j] = r;
    if (r == add_result::full || r == add_result::no_memory) return j + 1;
    // The slot is free now; a key staged before a growth was located in the old newest link,
    // which its add still reads correctly (link_contains knows which link it holds).
    if (j + keys_ahead < n) stage(*this, keys, j + keys_ahead, ring, reducers, located_probes);
  }
  return n;
}

void chain::contains_many(std::span<const std::string_view> keys,
                          std::span<std::uint8_t> answers) const noexcept {
  // Two stages, as bloomkit's own lookups (filter_pipeline.hpp): a key's first two lines are
  // prefetched when it is located; first_lag keys later its first two probes are tested and,
  // only if both are set (most absent keys stop there), its other lines prefetched; keys_ahead
  // keys after it was located it is answered. A chain's links cannot change during a lookup.
  constexpr std::size_t first_lag = keys_ahead / 2;
  constexpr std::uint32_t first_probes = 2;
  const reducer_table reducers(*this);
  std::array<located_key, 2 * keys_ahead> ring;
  std::array<bool, 2 * keys_ahead> newest_may_hold{};
  const std::size_t newest = filters() - 1;
  const std::size_t n = keys.size();
  for (std::size_t step = 0; step < n + keys_ahead; ++step) {
    if (step < n) stage(*this, keys, step, ring, reducers, first_probes);
    if (step >= first_lag && step - first_lag < n) {
      const std::size_t j = step - first_lag;
      const located_key& k = ring[j % ring.size()];
      bool may = true;
      if (k.link == newest) {
        const link_slot& s = links_[newest];
        const std::uint32_t first = std::min(first_probes, k.probes);
        for (std::uint32_t p = 0; p < first && may; ++p) may = s.test(k.at[p]);
        if (may && k.probes < s.hashes()) {
          locate(s, reducers[newest], ring[j % ring.size()], located_probes);
          if (s.bytes() >= dram_link_bytes) {
            for (std::uint32_t p = first; p < k.probes; ++p) {
              __builtin_prefetch(s.data() + (k.at[p] >> 3), 0, 2);
            }
          }
        }
      }
      newest_may_hold[j % ring.size()] = may;
    }
    if (step >= keys_ahead) {
      const std::size_t j = step - keys_ahead;
      const located_key& k = ring[j % ring.size()];
      bool found = newest_may_hold[j % ring.size()] && link_contains(*this, newest, k, reducers);
      for (std::size_t i = newest; !found && i-- > 0;) found = link_contains(*this, i, k, reducers);
      answers[j] = found ? 1 : 0;
    }
  }
}

}  // namespace bloomkit::redisbloom
