#pragma once
// The deterministic mutations the fuzz replay drivers apply to real inputs (no libFuzzer needed).

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace bloomkit::test {

// One to four edits: flip a bit, set a byte in the first `head` bytes (where the headers are),
// truncate, or append a byte.
inline void mutate(std::vector<std::uint8_t>& bytes, std::mt19937_64& rng, std::size_t head) {
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !bytes.empty(); ++e) {
    switch (rng() % 4) {
      case 0:  // flip a bit
        bytes[rng() % bytes.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        break;
      case 1:  // random byte, biased to the header
        bytes[rng() % std::min<std::size_t>(bytes.size(), head)] = static_cast<std::uint8_t>(rng());
        break;
      case 2:  // truncate
        bytes.resize(rng() % (bytes.size() + 1));
        break;
      default:  // append
        bytes.push_back(static_cast<std::uint8_t>(rng()));
        break;
    }
  }
}

}  // namespace bloomkit::test
