// One table of a cuckoo filter: its memory, its figures, and the insert by kicks that undoes its
// moves when it fails (so a full table never loses a fingerprint).

#include <cmath>
#include <string>
#include <utility>

#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"
#include "cuckoo_buckets.hpp"

namespace bloomkit {

std::uint64_t cuckoo_table::bytes_for(std::uint64_t buckets, std::uint32_t bucket_size,
                                      std::uint32_t fingerprint_bits) noexcept {
  const std::uint64_t bits = buckets * bucket_size * fingerprint_bits;
  return (bits + 63) / 64 * 8 + 16;
}

cuckoo_table::cuckoo_table(const cuckoo_sizing& sizing, std::uint64_t capacity,
                           const cuckoo_sizing* first)
    : cuckoo_table(
          sizing, capacity,
          bit_array(bytes_for(sizing.buckets, sizing.bucket_size, sizing.fingerprint_bits) * 8), 0,
          first) {}

cuckoo_table::cuckoo_table(const cuckoo_sizing& sizing, std::uint64_t capacity, bit_array words,
                           std::uint64_t items, const cuckoo_sizing* first)
    : words_(std::move(words)),
      buckets_(sizing.buckets),
      capacity_(capacity),
      items_(items),
      design_load_(sizing.load),
      bucket_size_(sizing.bucket_size),
      fingerprint_bits_(sizing.fingerprint_bits),
      first_buckets_(first != nullptr ? first->buckets : sizing.buckets),
      first_bits_(first != nullptr ? first->fingerprint_bits : sizing.fingerprint_bits) {
  const auto b = sizing.bucket_size, f = sizing.fingerprint_bits;
  if (b < cuckoo_filter::min_bucket_size || b > cuckoo_filter::max_bucket_size ||
      f < cuckoo_filter::min_fingerprint_bits || f > cuckoo_filter::max_fingerprint_bits ||
      b * f > cuckoo_filter::max_bucket_bits || sizing.buckets == 0) {
    throw error(errc::invalid_argument,
                "a cuckoo table of " + std::to_string(sizing.buckets) + " buckets of " +
                    std::to_string(b) + " slots of " + std::to_string(f) +
                    " bits is out of range (2..8 slots, 2..32 bits, at most 120 bits a bucket)");
  }
  if (first_buckets_ == 0 || buckets_ % first_buckets_ != 0 || first_bits_ > f ||
      first_bits_ < cuckoo_filter::min_fingerprint_bits) {
    throw error(errc::invalid_argument,
                "a cuckoo table of a chain needs a multiple of its first table's buckets and at "
                "least its fingerprint bits");
  }
  if (words_.byte_size() != bytes_for(sizing.buckets, b, f) || items > slots()) {
    throw error(errc::invalid_argument, "a cuckoo table's words do not match its geometry");
  }
}

double cuckoo_table::load_factor() const noexcept {
  return static_cast<double>(items_) / static_cast<double>(slots());
}

double cuckoo_table::estimated_fpp() const noexcept {
  const double q = cuckoo_filter::fingerprint_match(fingerprint_bits_);
  return -std::expm1(2.0 * bucket_size_ * load_factor() * std::log1p(-q));
}

std::uint32_t cuckoo_table::slot(std::uint64_t bucket, std::uint32_t j) const noexcept {
  return cuckoo_table_access::geometry(*this).get(cuckoo_table_access::bytes(*this), bucket, j);
}

namespace {

std::uint64_t next_kick_random(std::uint64_t& state) noexcept {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// One move of a kick walk: slot `slot` of bucket `bucket` held `was` before the walk put the
// carried fingerprint there.
struct kick_step {
  std::uint64_t bucket;
  std::uint32_t slot;
  std::uint32_t was;
};

}  // namespace

bool cuckoo_store(cuckoo_table& t, const cuckoo_place& at, std::uint32_t max_kicks,
                  std::uint64_t& rng) {
  const cuckoo_geometry g = cuckoo_table_access::geometry(t);
  unsigned char* table = cuckoo_table_access::mutable_bytes(t);
  for (const std::uint64_t i : {at.first, at.second}) {
    const std::uint32_t j = g.find(table, i, 0);
    if (j < g.bucket_size) {
      g.set(table, i, j, at.fingerprint);
      ++cuckoo_table_access::items(t);
      return true;
    }
  }
  // Both full: carry fp along a random walk, each step evicting a random slot's fingerprint to
  // its alternate bucket. The walk is recorded, so a walk that finds no room is undone.
  std::vector<kick_step> walk;
  walk.reserve(std::min<std::uint32_t>(max_kicks, 64));
  std::uint32_t carried = at.fingerprint;
  std::uint64_t i = (next_kick_random(rng) & 1) != 0 ? at.first : at.second;
  for (std::uint32_t kick = 0; kick < max_kicks; ++kick) {
    const auto j = static_cast<std::uint32_t>(next_kick_random(rng) % g.bucket_size);
    const std::uint32_t victim = g.get(table, i, j);
    g.set(table, i, j, carried);
    walk.push_back({i, j, victim});
    carried = victim;
    i = g.alternate(i, carried);
    const std::uint32_t free = g.find(table, i, 0);
    if (free < g.bucket_size) {
      g.set(table, i, free, carried);
      ++cuckoo_table_access::items(t);
      return true;
    }
  }
  for (auto step = walk.rbegin(); step != walk.rend(); ++step) {
    g.set(table, step->bucket, step->slot, step->was);
  }
  return false;
}

bool cuckoo_erase(cuckoo_table& t, const cuckoo_place& at) {
  const cuckoo_geometry g = cuckoo_table_access::geometry(t);
  const unsigned char* view = cuckoo_table_access::bytes(t);
  for (const std::uint64_t i : {at.second, at.first}) {
    const std::uint32_t j = g.find(view, i, at.fingerprint);
    if (j < g.bucket_size) {
      g.set(cuckoo_table_access::mutable_bytes(t), i, j, 0);
      --cuckoo_table_access::items(t);
      return true;
    }
  }
  return false;
}

}  // namespace bloomkit
