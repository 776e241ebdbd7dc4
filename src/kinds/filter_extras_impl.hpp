#pragma once
// Internal: the members of basic_filter that only one storage has (included by
// filter_impl.hpp): the blocked filter's ISA choice, the counting filter's remove and counters.

#include "bloomkit/detail/filter_access.hpp"

namespace bloomkit {

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::simd_supported() noexcept
    requires(std::same_as<Storage, split_block_storage>) {
  return detail::avx2_blocked_kernels_if_supported() != nullptr;
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::simd() const noexcept
    requires(std::same_as<Storage, split_block_storage>) {
  return kernels_ != &detail::portable_blocked_kernels();
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::set_simd(bool enable) noexcept
    requires(std::same_as<Storage, split_block_storage>) {
  const detail::blocked_kernels* avx2 = detail::avx2_blocked_kernels_if_supported();
  kernels_ = enable && avx2 != nullptr ? avx2 : &detail::portable_blocked_kernels();
  return kernels_ != &detail::portable_blocked_kernels();
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::remove(std::string_view key) requires Storage::removable {
  if constexpr (!Storage::removable) {
    return false;  // not declared for such filters; kept compilable for every instantiation
  } else {
    std::uint64_t* words = writable_words();
    // Two probes of one key may land on the same counter; the key then added 2 to it. Sorting
    // the positions groups such probes, so each counter is checked against what the key
    // contributed before anything changes.
    std::array<std::uint64_t, max_hashes> pos;
    const std::uint32_t k = hashes();
    auto probes = Probe::probes(Probe::hash(key), cells());
    for (std::uint32_t i = 0; i < k; ++i) pos[i] = probes.next();
    std::sort(pos.begin(), pos.begin() + k);
    for (std::uint32_t i = 0; i < k;) {
      std::uint32_t run = 1;
      while (i + run < k && pos[i + run] == pos[i]) ++run;
      const std::uint32_t c = detail::nibble_cell::value(words, pos[i]);
      if (c != max_count && c < run) return false;  // definitely absent
      i += run;
    }
    for (std::uint32_t i = 0; i < k; ++i) {
      std::uint64_t& w = words[pos[i] >> 4];
      const unsigned shift = static_cast<unsigned>(pos[i] & 15) * 4;
      if (((w >> shift) & 15) != max_count) w -= std::uint64_t{1} << shift;
    }
    if (inserted_ > 0) --inserted_;
    return true;
  }
}

template <class Probe, storage_policy Storage>
std::uint32_t basic_filter<Probe, Storage>::counter(
    std::uint64_t index) const noexcept requires Storage::removable {
  return detail::nibble_cell::value(cells_.data(), index);
}

template <class Probe, storage_policy Storage>
std::uint64_t basic_filter<Probe, Storage>::nonzero_counters()
    const noexcept requires Storage::removable {
  return nonzero_cells();
}

template <class Probe, storage_policy Storage>
std::uint64_t basic_filter<Probe, Storage>::saturated_counters()
    const noexcept requires Storage::removable {
  std::uint64_t total = 0;
  for (const std::uint64_t w : cells_.words()) {
    total += static_cast<std::uint64_t>(std::popcount(detail::saturated_nibbles(w)));
  }
  return total;
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, bit_storage> basic_filter<Probe, Storage>::to_bloom_filter()
    const requires Storage::removable {
  bit_array out(cells());
  std::uint64_t* bits = out.mutable_words().data();
  const std::span<const std::uint64_t> words = cells_.words();
  for (std::size_t i = 0; i < words.size(); ++i) {
    for (std::uint64_t nz = detail::nonzero_nibbles(words[i]); nz != 0; nz &= nz - 1) {
      const std::uint64_t bit = i * 16 + static_cast<std::uint64_t>(std::countr_zero(nz)) / 4;
      bits[bit >> 6] |= std::uint64_t{1} << (bit & 63);
    }
  }
  cells_.check_source();
  return detail::filter_access::make<basic_filter<Probe, bit_storage>>(config_, std::move(out),
                                                                       inserted_);
}

}  // namespace bloomkit
