// A chain's adds and lookups (redisbloom.hpp): RedisBloom's SBChain_Add / SBChain_Check, one key
// at a time or in blocks (hash a block, prefetch its first probes, then probe in order).

#include <algorithm>
#include <array>

#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

constexpr std::size_t block_keys = 16;

// Whether a link of any age holds the key.
bool chain_contains(const chain& c, const hash_pair& h) noexcept {
  for (std::size_t i = c.filters(); i-- > 0;) {
    if (chain_access::slot(c, i).contains(h)) return true;
  }
  return false;
}

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

// SBChain_Add for a hashed key; throws when a new link cannot be allocated.
add_result add_hashed(chain& c, const hash_pair& h) {
  if (chain_contains(c, h)) return add_result::present;
  if (const chain_access::slot_type& last = chain_access::slot(c, c.filters() - 1);
      last.size >= last.entries) {
    if (!c.scaling()) return add_result::full;
    if (grow(c) == add_result::cannot_grow) return add_result::cannot_grow;
  }
  chain_access::slot_type& last = chain_access::slot(c, c.filters() - 1);
  if (!last.insert(h)) return add_result::present;
  ++last.size;
  chain_access::set_size(c, c.items() + 1);
  return add_result::added;
}

}  // namespace

hash_pair chain::hash(std::string_view key) const noexcept {
  if (bloomkit_hashing()) return hash_xxh3(key);
  return (options() & option_force64) != 0 ? hash64(key) : hash32(key);
}

add_result chain::add(std::string_view key) {
  return add_hashed(*this, hash(key));
}

bool chain::contains(std::string_view key) const noexcept {
  return chain_contains(*this, hash(key));
}

std::size_t chain::add_many(std::span<const std::string_view> keys, std::span<add_result> answers,
                            std::string* failure) {
  std::array<hash_pair, block_keys> hashes;
  for (std::size_t begin = 0; begin < keys.size(); begin += block_keys) {
    const std::size_t n = std::min(block_keys, keys.size() - begin);
    for (std::size_t j = 0; j < n; ++j) hashes[j] = hash(keys[begin + j]);
    // Most keys of a filter being filled land in its newest link.
    const link_slot& last = links_[filters() - 1];
    for (std::size_t j = 0; j < n; ++j) last.prefetch(hashes[j]);
    for (std::size_t j = 0; j < n; ++j) {
      add_result r;
      try {
        r = add_hashed(*this, hashes[j]);
      } catch (const error& e) {
        if (failure != nullptr) *failure = e.what();
        r = add_result::no_memory;
      }
      answers[begin + j] = r;
      if (r == add_result::full || r == add_result::no_memory) {
        return begin + j + 1;
      }
    }
  }
  return keys.size();
}

void chain::contains_many(std::span<const std::string_view> keys,
                          std::span<std::uint8_t> answers) const noexcept {
  std::array<hash_pair, block_keys> hashes;
  // Prefetching a few links' lines per key pays; past that it only evicts.
  const std::size_t prefetched = std::min<std::size_t>(filters(), 4);
  for (std::size_t begin = 0; begin < keys.size(); begin += block_keys) {
    const std::size_t n = std::min(block_keys, keys.size() - begin);
    for (std::size_t j = 0; j < n; ++j) hashes[j] = hash(keys[begin + j]);
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t i = filters() - prefetched; i < filters(); ++i) {
        links_[i].prefetch(hashes[j]);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      answers[begin + j] = chain_contains(*this, hashes[j]) ? 1 : 0;
    }
  }
}

}  // namespace bloomkit::redisbloom
