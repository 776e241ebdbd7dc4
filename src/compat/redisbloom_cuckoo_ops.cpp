// RedisBloom's cuckoo filter at work (redisbloom_cuckoo.hpp): hashing, insert with kick-out and
// growth, lookups, counts, deletes with auto-compaction, and compaction — each step in
// RedisBloom's order, so that the slot bytes after any sequence of commands are RedisBloom's.

#include <utility>

#include "redisbloom_cuckoo_sub.hpp"

namespace bloomkit::redisbloom::cuckoo {

namespace {

constexpr std::uint64_t alt_multiplier = 0x5bd1e995;
// CF.DEL compacts (compact(false)) when deletes pass this share of the items.
constexpr double auto_compact_ratio = 0.10;

// Where a bucket starts in a sub-filter's slots. RedisBloom's SubCF_GetIndex returns 32 bits:
// for a sub-filter past 2^32 slots its start wraps as RedisBloom's does.
std::uint64_t bucket_start(std::uint64_t h, std::uint64_t buckets, std::uint16_t size) noexcept {
  return static_cast<std::uint32_t>((h % buckets) * size);
}

std::uint8_t* find_slot(std::uint8_t* bucket, std::uint16_t size, std::uint8_t fp) noexcept {
  for (std::uint16_t i = 0; i < size; ++i) {
    if (bucket[i] == fp) return bucket + i;
  }
  return nullptr;
}

std::uint16_t count_in(const std::uint8_t* bucket, std::uint16_t size, std::uint8_t fp) noexcept {
  std::uint16_t n = 0;
  for (std::uint16_t i = 0; i < size; ++i) n += bucket[i] == fp ? 1 : 0;
  return n;
}

enum class relocation : std::int8_t { failed = -1, empty = 0, moved = 1 };

// A sub-filter's slots and bucket count.
struct sub_view {
  std::uint8_t* slots = nullptr;
  std::uint64_t num_buckets = 0;
};

}  // namespace

std::uint64_t hash(std::string_view item) noexcept {
  return murmur_hash64a(item.data(), item.size(), 0);
}

std::uint64_t alt_index(std::uint8_t fp, std::uint64_t index) noexcept {
  return index ^ (static_cast<std::uint64_t>(fp) * alt_multiplier);
}

lookup lookup_of(std::uint64_t h) noexcept {
  lookup p;
  p.fp = static_cast<std::uint8_t>(h % 255 + 1);
  p.h1 = h;
  p.h2 = alt_index(p.fp, h);
  return p;
}

// The steps below need the sub-filters' slots; they work on the filter's private table.
struct filter::access::steps {
  const filter& f;

  sub_view view(std::size_t i) const noexcept { return {f.subs_[i].slots, buckets_of(f, i)}; }

  std::uint8_t* bucket(const sub_view& s, std::uint64_t h) const noexcept {
    return s.slots + bucket_start(h, s.num_buckets, f.bucket_size());
  }
  // The first empty slot of bucket h1, then of bucket h2.
  std::uint8_t* free_slot(const sub_view& s, std::uint64_t h1, std::uint64_t h2) const noexcept {
    if (auto* slot = find_slot(bucket(s, h1), f.bucket_size(), 0)) return slot;
    return find_slot(bucket(s, h2), f.bucket_size(), 0);
  }
  // Filter_KOInsert: max_iterations kicks from bucket h1 % nb of sub-filter s; when they fail,
  // the same kicks undone in reverse order, so the slots are as they were.
  bool kick_insert(const sub_view& s, const lookup& p) const noexcept {
    const std::uint64_t nb = s.num_buckets;
    const std::uint16_t size = f.bucket_size();
    std::uint8_t fp = p.fp;
    std::uint32_t victim = 0;
    std::uint64_t at = p.h1 % nb;
    for (std::uint32_t n = 0; n < f.max_iterations(); ++n) {
      std::swap(s.slots[at * size + victim], fp);
      at = alt_index(fp, at) % nb;
      if (auto* empty = find_slot(s.slots + at * size, size, 0)) {
        *empty = fp;
        return true;
      }
      victim = (victim + 1) % size;
    }
    for (std::uint32_t n = 0; n < f.max_iterations(); ++n) {
      victim = (victim + size - 1) % size;
      at = alt_index(fp, at) % nb;
      std::swap(s.slots[at * size + victim], fp);
    }
    return false;
  }
  // relocateSlot: a fingerprint of sub-filter `from` (bucket index `at`) into the first older
  // sub-filter with room in bucket at or alt(fp, at).
  relocation relocate(std::size_t from, std::uint64_t at, std::uint16_t slot) const noexcept {
    std::uint8_t& fp = f.subs_[from].slots[at * f.bucket_size() + slot];
    if (fp == 0) return relocation::empty;
    const std::uint64_t other = alt_index(fp, at);
    for (std::size_t j = 0; j < from; ++j) {
      if (auto* home = free_slot(view(j), at, other)) {
        *home = fp;
        fp = 0;
        return relocation::moved;
      }
    }
    return relocation::failed;
  }
};

insert_status filter::insert_hash(std::uint64_t h) {
  const lookup p = lookup_of(h);
  for (;;) {
    filter::access::steps steps{*this};
    for (std::size_t i = num_filters_; i-- > 0;) {
      if (auto* slot = steps.free_slot(steps.view(i), p.h1, p.h2)) {
        *slot = p.fp;
        ++num_items_;
        return insert_status::inserted;
      }
    }
    if (steps.kick_insert(steps.view(num_filters_ - 1u), p)) {
      ++num_items_;
      return insert_status::inserted;
    }
    if (expansion_ == 0) return insert_status::no_space;
    if (!grow()) return insert_status::no_memory;
    // As RedisBloom: the whole insert again, the new sub-filter first.
  }
}

insert_status filter::insert_unique_hash(std::uint64_t h) {
  if (contains_hash(h)) return insert_status::exists;
  return insert_hash(h);
}

bool filter::contains_hash(std::uint64_t h) const noexcept {
  const lookup p = lookup_of(h);
  for (std::size_t i = 0; i < num_filters_; ++i) {
    const sub_view s = access::steps{*this}.view(i);
    if (find_slot(s.slots + bucket_start(p.h1, s.num_buckets, bucket_size_), bucket_size_, p.fp) ||
        find_slot(s.slots + bucket_start(p.h2, s.num_buckets, bucket_size_), bucket_size_, p.fp)) {
      return true;
    }
  }
  return false;
}

std::uint64_t filter::count_hash(std::uint64_t h) const noexcept {
  const lookup p = lookup_of(h);
  std::uint64_t n = 0;
  // Both candidate buckets are counted, also when they are the same bucket (as RedisBloom).
  for (std::size_t i = 0; i < num_filters_; ++i) {
    const sub_view s = access::steps{*this}.view(i);
    n += count_in(s.slots + bucket_start(p.h1, s.num_buckets, bucket_size_), bucket_size_, p.fp);
    n += count_in(s.slots + bucket_start(p.h2, s.num_buckets, bucket_size_), bucket_size_, p.fp);
  }
  return n;
}

bool filter::remove_hash(std::uint64_t h) {
  const lookup p = lookup_of(h);
  for (std::size_t i = num_filters_; i-- > 0;) {
    const sub_view s = access::steps{*this}.view(i);
    auto* slot =
        find_slot(s.slots + bucket_start(p.h1, s.num_buckets, bucket_size_), bucket_size_, p.fp);
    if (slot == nullptr) {
      slot =
          find_slot(s.slots + bucket_start(p.h2, s.num_buckets, bucket_size_), bucket_size_, p.fp);
    }
    if (slot != nullptr) {
      *slot = 0;
      --num_items_;
      ++num_deletes_;
      if (num_filters_ > 1 && static_cast<double>(num_deletes_) >
                                  static_cast<double>(num_items_) * auto_compact_ratio) {
        compact(false);
      }
      return true;
    }
  }
  return false;
}

void filter::compact(bool keep_going) noexcept {
  filter::access::steps steps{*this};
  // From the newest sub-filter down to the second; only the newest may be freed, so an older
  // one left non-empty ends the pass unless keep_going (CF.COMPACT).
  for (std::size_t i = num_filters_; --i > 0;) {
    bool all_moved = true;
    const sub_view s = steps.view(i);
    for (std::uint64_t b = 0; b < s.num_buckets; ++b) {
      for (std::uint16_t slot = 0; slot < bucket_size_; ++slot) {
        if (steps.relocate(i, b, slot) == relocation::failed) all_moved = false;
      }
    }
    if (all_moved && i == num_filters_ - 1u) {
      allocator_->deallocate(subs_[i].block());
      subs_[i] = sub{};
      --num_filters_;
    } else if (!all_moved && !keep_going) {
      break;
    }
  }
  num_deletes_ = 0;
}

insert_status filter::insert(std::string_view item) {
  return insert_hash(hash(item));
}
insert_status filter::insert_unique(std::string_view item) {
  return insert_unique_hash(hash(item));
}
bool filter::contains(std::string_view item) const noexcept {
  return contains_hash(hash(item));
}
std::uint64_t filter::count(std::string_view item) const noexcept {
  return count_hash(hash(item));
}
bool filter::remove(std::string_view item) {
  return remove_hash(hash(item));
}

}  // namespace bloomkit::redisbloom::cuckoo
