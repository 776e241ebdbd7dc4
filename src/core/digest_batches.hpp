#pragma once
// Internal: batches of digests over the sub-filters of a composite filter (scalable chain, time
// window): a key is hashed once and its digest asked of each sub-filter's batched path.

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace bloomkit::detail {

template <class Sub>
std::vector<typename Sub::digest_type> digests_of(std::span<const std::string_view> keys) {
  std::vector<typename Sub::digest_type> digests(keys.size());
  Sub::digests_of(keys, digests);
  return digests;
}

// 0, 1, ..., n - 1: where each pending key came from.
inline std::vector<std::size_t> identity_origin(std::size_t n) {
  std::vector<std::size_t> origin(n);
  for (std::size_t i = 0; i < n; ++i) origin[i] = i;
  return origin;
}

// Removes from keys / origin the keys `f` reports present, marking found[origin] for them
// (when `found` is not empty).
template <class Sub>
void drop_present(const Sub& f, std::vector<typename Sub::digest_type>& keys,
                  std::vector<std::size_t>& origin, std::span<bool> found) {
  if (keys.empty()) return;
  auto hits = std::make_unique<bool[]>(keys.size());
  f.contains_many(keys, {hits.get(), keys.size()});
  std::size_t kept = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (hits[i]) {
      if (!found.empty()) found[origin[i]] = true;
      continue;
    }
    keys[kept] = keys[i];
    origin[kept] = origin[i];
    ++kept;
  }
  keys.resize(kept);
  origin.resize(kept);
}

}  // namespace bloomkit::detail
