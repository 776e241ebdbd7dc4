#pragma once
// insert_many with each key's answer, for any filter type: added[i] is whether keys[i] was new,
// what insert(keys[i]) in order would answer (a key repeated within the batch is new once).
// Used by the CLI's `add --print-new` and Python's add_many(out=...), so that both answer alike.

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/detail/result_slots.hpp"

namespace bloomkit::detail {

// Windows answer on their batched path, the set filters and chains on theirs by digest, other
// filters (the peers' schemes) by a loop of insert. Throws errc::invalid_argument unless added
// has one slot per key.
template <class F>
std::size_t insert_many_answering(F& f, std::span<const std::string_view> keys,
                                  std::span<bool> added) {
  require_result_slots(keys.size(), added.size(), "insert_many");
  if constexpr (requires { f.insert_many(keys, added); }) {
    return f.insert_many(keys, added);
  } else if constexpr (requires(std::span<const typename F::digest_type> digests,
                                std::span<typename F::digest_type> out) {
                         F::digests_of(keys, out);
                         f.insert_many(digests, added);
                       }) {
    std::vector<typename F::digest_type> digests(keys.size());
    F::digests_of(keys, digests);
    return f.insert_many(std::span<const typename F::digest_type>(digests), added);
  } else {
    std::size_t fresh = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      added[i] = f.insert(keys[i]);
      fresh += added[i] ? 1 : 0;
    }
    return fresh;
  }
}

}  // namespace bloomkit::detail
