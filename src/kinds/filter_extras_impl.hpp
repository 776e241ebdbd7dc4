#pragma once
// Internal: the members of basic_filter that only storages with a capability have (included by
// filter_impl.hpp): a blocked layout's ISA choice, a removable storage's remove and counters.
// Each is the storage's own behaviour (Storage::ops, src/storage/storage_ops.hpp).

#include "bloomkit/detail/filter_access.hpp"

namespace bloomkit {

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::simd_supported() noexcept requires blocked_layout<Storage> {
  return Storage::ops::simd_supported();
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::simd() const noexcept requires blocked_layout<Storage> {
  return Storage::ops::simd(state_);
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::set_simd(bool enable) noexcept requires blocked_layout<Storage> {
  return Storage::ops::set_simd(state_, enable);
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::remove(std::string_view key) requires Storage::removable {
  require_keys(key_type::string);
  return remove_digest(Probe::hash(key));
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::remove_integer(std::uint64_t key) requires Storage::removable {
  require_keys(key_type::int64);
  if constexpr (integer_probe_policy<Probe>) {
    return remove_digest(Probe::hash_integer(key));
  } else {
    return false;  // not reached: such a policy makes no filter of integer keys
  }
}

template <class Probe, storage_policy Storage>
template <class S>
bool basic_filter<Probe, Storage>::remove_digest(const digest_type& d) {
  const bool removed = S::ops::template remove<Probe>(writable_words(), config_, d);
  if (removed && inserted_ > 0) --inserted_;
  return removed;
}

template <class Probe, storage_policy Storage>
std::uint32_t basic_filter<Probe, Storage>::counter(
    std::uint64_t index) const noexcept requires Storage::removable {
  return Storage::ops::value(cells_.data(), index);
}

template <class Probe, storage_policy Storage>
std::uint64_t basic_filter<Probe, Storage>::nonzero_counters()
    const noexcept requires Storage::removable {
  return nonzero_cells();
}

template <class Probe, storage_policy Storage>
std::uint64_t basic_filter<Probe, Storage>::saturated_counters()
    const noexcept requires Storage::removable {
  return Storage::ops::saturated_cells(cells_);
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, bit_storage> basic_filter<Probe, Storage>::to_bloom_filter()
    const requires Storage::removable {
  bit_array out(cells());
  Storage::ops::nonzero_bits(cells_.words(), out.mutable_words().data());
  cells_.check_source();
  return detail::filter_access::make<basic_filter<Probe, bit_storage>>(config_, std::move(out),
                                                                       inserted_);
}

}  // namespace bloomkit
