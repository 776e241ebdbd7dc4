#pragma once
// Internal: the static builder's key hashes, partitioned by their top bits into units of work
// (include/bloomkit/static_builder.hpp says why and what it costs).
//
// A unit is the hashes whose top `bits` bits are `prefix`, held in memory or as segments of the
// spill file. Units are kept in prefix order and cover every hash value, so a shard of any
// shard count is either a run of whole units or a part of one unit.

#include <cstdint>
#include <span>
#include <vector>

#include "hash_spill.hpp"

namespace bloomkit::detail {

struct hash_unit {
  unsigned bits = 0;
  std::uint64_t prefix = 0;
  std::uint64_t count = 0;              // hashes held, repeats included
  std::vector<std::uint64_t> memory;    // in memory: all of them; sorted and distinct once
                                        // sort_in_memory() ran
  std::vector<spill_segment> segments;  // or spilled
  std::uint64_t distinct = 0;           // after counting

  bool spilled() const noexcept { return !segments.empty(); }
};

// Reads a spilled unit's hashes into `out` (its count of them), segment by segment.
void read_unit(const hash_spill& spill, const hash_unit& unit, std::span<std::uint64_t> out);

// Splits a spilled unit by its next `extra_bits` bits into 2^extra_bits spilled units (in
// prefix order), reading it segment by segment and releasing what was read.
std::vector<hash_unit> split_unit(hash_spill& spill, hash_unit& unit, unsigned extra_bits);

}  // namespace bloomkit::detail
