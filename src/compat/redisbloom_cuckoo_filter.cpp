// bloomkit::redisbloom::cuckoo::filter: making, copying and releasing a filter, its sub-filters'
// storage, its figures and CF.RESERVE's range rules (redisbloom_cuckoo.hpp). Inserts, lookups,
// deletes and compaction are in redisbloom_cuckoo_ops.cpp.

#include <bit>
#include <cstring>
#include <new>
#include <string>

#include "redisbloom_cuckoo_sub.hpp"

namespace bloomkit::redisbloom::cuckoo {

namespace {

// RedisBloom's getNextN2: the next power of two, 0 for 0 and past 2^63.
std::uint64_t next_power_of_two(std::uint64_t n) noexcept {
  --n;
  for (int shift = 1; shift < 64; shift <<= 1) n |= n >> shift;
  return n + 1;
}

bool power_of_two(std::uint64_t n) noexcept {
  return n != 0 && (n & (n - 1)) == 0;
}

// RedisBloom's CuckooFilter_ValidateIntegrity, naming what fails.
void check_fields(const fields& f) {
  if (f.bucket_size < 1 || f.bucket_size > max_bucket_size) {
    corrupt("bucket size " + std::to_string(f.bucket_size) + " (1 to 255)");
  }
  if (f.num_filters < 1 || f.num_filters > max_filters) {
    corrupt("number of filters " + std::to_string(f.num_filters) + " (1 to 65535)");
  }
  if (f.max_iterations < 1) corrupt("max iterations 0 (at least 1)");
  if (f.expansion > max_expansion) {
    corrupt("expansion " + std::to_string(f.expansion) + " (at most 32768)");
  }
  if (f.expansion == 0 && f.num_filters > 1) {
    corrupt("expansion 0 with " + std::to_string(f.num_filters) + " filters (0 never grows)");
  }
  if (!power_of_two(f.num_buckets) || f.num_buckets > max_num_buckets) {
    corrupt("number of buckets " + std::to_string(f.num_buckets) + " (a power of two below 2^56)");
  }
}

}  // namespace

// The same bookkeeping as RedisBloom's structs (CF.INFO Size counts 40 + 16 per sub-filter).
static_assert(sizeof(filter) == info_filter_bytes);

// ---- rules -----------------------------------------------------------------------------------

std::optional<std::string_view> reserve_problem(long long capacity, long long bucket_size,
                                                long long max_iterations, long long expansion) {
  if (max_iterations < 1 || max_iterations > max_max_iterations) return max_iterations_text;
  if (bucket_size < 1 || bucket_size > max_bucket_size) return bucket_size_text;
  if (expansion < 0 || expansion > max_expansion) return expansion_text;
  if (capacity < bucket_size * 2 || capacity > static_cast<long long>(max_capacity)) {
    return reserve_capacity_text;
  }
  return std::nullopt;
}

std::optional<std::string_view> insert_capacity_problem(long long capacity, long long bucket_size) {
  if (capacity < bucket_size * 2 || capacity > static_cast<long long>(max_capacity)) {
    return insert_capacity_text;
  }
  return std::nullopt;
}

// ---- making and storage ----------------------------------------------------------------------

filter filter::make(std::uint64_t capacity, std::uint16_t bucket_size, std::uint16_t max_iterations,
                    std::uint16_t expansion) {
  if (bucket_size < 1 || bucket_size > max_bucket_size) {
    throw error(errc::invalid_argument, std::string(bucket_size_text));
  }
  if (max_iterations < 1) throw error(errc::invalid_argument, std::string(max_iterations_text));
  if (expansion > max_expansion) throw error(errc::invalid_argument, std::string(expansion_text));
  filter f;
  f.expansion_ = static_cast<std::uint16_t>(next_power_of_two(expansion));
  f.bucket_size_ = static_cast<std::uint8_t>(bucket_size);
  f.max_iterations_ = max_iterations;
  std::uint64_t buckets = next_power_of_two(capacity / bucket_size);
  if (buckets == 0) buckets = 1;
  if (buckets > max_slot_bytes / bucket_size) {
    throw error(errc::too_large, "RedisBloom cuckoo filter: " + std::to_string(buckets) +
                                     " buckets of " + std::to_string(bucket_size) +
                                     " slots: more than bloomkit's " +
                                     std::to_string(max_slot_bytes) + " bytes");
  }
  f.buckets_log2_ = static_cast<std::uint8_t>(std::countr_zero(buckets));
  f.add_sub(buckets);
  return f;
}

filter filter::from_fields(const fields& fs, std::span<const std::uint64_t> sub_buckets) {
  if (sub_buckets.size() != fs.num_filters) {
    corrupt(std::to_string(sub_buckets.size()) + " sub-filter sizes for " +
            std::to_string(fs.num_filters) + " filters");
  }
  filter f = access::empty(fs);
  // Every size is checked before anything is allocated.
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < sub_buckets.size(); ++i) {
    const std::uint64_t b = sub_buckets[i];
    if (b == 0 || b != access::buckets_of(f, i) || b > (max_slot_bytes - total) / fs.bucket_size) {
      corrupt("sub-filter " + std::to_string(i) + ": " + std::to_string(b) + " buckets (" +
              std::to_string(fs.num_buckets) + " x " + std::to_string(fs.expansion) + "^" +
              std::to_string(i) + " below 2^56, all slots within " +
              std::to_string(max_slot_bytes) + " bytes)");
    }
    total += b * fs.bucket_size;
  }
  for (std::size_t i = 0; i < sub_buckets.size(); ++i) access::append(f, sub_buckets[i], i);
  return f;
}

filter filter::access::empty(const fields& fs) {
  check_fields(fs);
  filter f;
  f.buckets_log2_ = static_cast<std::uint8_t>(std::countr_zero(fs.num_buckets));
  f.num_items_ = fs.num_items;
  f.num_deletes_ = fs.num_deletes;
  f.bucket_size_ = static_cast<std::uint8_t>(fs.bucket_size);
  f.max_iterations_ = fs.max_iterations;
  f.expansion_ = fs.expansion;
  return f;
}

std::uint64_t filter::access::buckets_of(const filter& f, std::size_t i) noexcept {
  std::uint64_t b = f.num_buckets();
  for (std::size_t j = 0; j < i; ++j) {
    if (f.expansion_ == 0 || b > max_num_buckets / f.expansion_) return 0;
    b *= f.expansion_;
  }
  return b;
}

std::span<std::uint8_t> filter::access::append(filter& f, std::uint64_t buckets,
                                               std::size_t index) {
  const std::uint64_t room = max_slot_bytes - f.slot_bytes();
  if (index != f.num_filters_ || buckets == 0 || buckets != buckets_of(f, index) ||
      buckets > room / f.bucket_size_) {
    corrupt("sub-filter " + std::to_string(index) + ": " + std::to_string(buckets) + " buckets (" +
            std::to_string(f.num_buckets()) + " x " + std::to_string(f.expansion_) + "^" +
            std::to_string(index) + " below 2^56, all slots within " +
            std::to_string(max_slot_bytes) + " bytes)");
  }
  f.add_sub(buckets);
  return f.mutable_sub_slots(index);
}

void filter::add_sub(std::uint64_t buckets) {
  static_assert(sizeof(sub) == info_sub_filter_bytes);
  storage_allocator& allocator = allocator_ != nullptr ? *allocator_ : current_storage_allocator();
  const std::size_t n = num_filters_;
  // Room for the new table first: a failure leaves the filter as it was.
  auto* table = static_cast<sub*>(::operator new(sizeof(sub) * (n + 1)));
  storage_block block;
  try {
    block = allocator.allocate(static_cast<std::size_t>(buckets * bucket_size_));
  } catch (...) {
    ::operator delete(table);
    throw;
  }
  auto* slots = reinterpret_cast<std::uint8_t*>(block.words);
  const auto offset = static_cast<std::uint64_t>(slots - static_cast<std::uint8_t*>(block.base));
  if (block.bytes > sub::low48 || offset > 0xffff) {
    allocator.deallocate(block);
    ::operator delete(table);
    throw error(errc::too_large, "RedisBloom cuckoo filter: a storage block of " +
                                     std::to_string(block.bytes) + " bytes, its data " +
                                     std::to_string(offset) + " bytes in");
  }
  if (n != 0) std::memcpy(static_cast<void*>(table), subs_, sizeof(sub) * n);
  table[n] = sub{slots, block.bytes | offset << 48};
  ::operator delete(subs_);
  subs_ = table;
  allocator_ = &allocator;
  num_filters_ = static_cast<std::uint16_t>(n + 1);
}

bool filter::grow() {
  if (num_filters_ == max_filters) return false;
  // num_buckets * expansion^num_filters: refused past 2^56 buckets (RedisBloom's check) or
  // bloomkit's bytes.
  const std::uint64_t buckets = access::buckets_of(*this, num_filters_);
  if (buckets == 0 || buckets > (max_slot_bytes - slot_bytes()) / bucket_size_) return false;
  try {
    add_sub(buckets);
  } catch (const error&) {
    return false;
  } catch (const std::bad_alloc&) {
    return false;
  }
  return true;
}

void filter::release() noexcept {
  for (std::size_t i = 0; i < num_filters_; ++i) allocator_->deallocate(subs_[i].block());
  ::operator delete(subs_);
  subs_ = nullptr;
  num_filters_ = 0;
}

filter::filter(const filter& other)
    : allocator_(other.allocator_),
      num_items_(other.num_items_),
      num_deletes_(other.num_deletes_),
      max_iterations_(other.max_iterations_),
      expansion_(other.expansion_),
      bucket_size_(other.bucket_size_),
      buckets_log2_(other.buckets_log2_) {
  try {
    for (std::size_t i = 0; i < other.num_filters_; ++i) {
      add_sub(other.sub_buckets(i));
      const auto from = other.sub_slots(i);
      std::memcpy(subs_[i].slots, from.data(), from.size());
    }
  } catch (...) {
    release();
    throw;
  }
}

filter& filter::operator=(const filter& other) {
  if (this != &other) *this = filter(other);
  return *this;
}

filter::filter(filter&& other) noexcept
    : subs_(other.subs_),
      allocator_(other.allocator_),
      num_items_(other.num_items_),
      num_deletes_(other.num_deletes_),
      num_filters_(other.num_filters_),
      max_iterations_(other.max_iterations_),
      expansion_(other.expansion_),
      bucket_size_(other.bucket_size_),
      buckets_log2_(other.buckets_log2_) {
  other.subs_ = nullptr;
  other.num_filters_ = 0;
}

filter& filter::operator=(filter&& other) noexcept {
  if (this != &other) {
    release();
    subs_ = other.subs_;
    allocator_ = other.allocator_;
    num_items_ = other.num_items_;
    num_deletes_ = other.num_deletes_;
    num_filters_ = other.num_filters_;
    max_iterations_ = other.max_iterations_;
    expansion_ = other.expansion_;
    bucket_size_ = other.bucket_size_;
    buckets_log2_ = other.buckets_log2_;
    other.subs_ = nullptr;
    other.num_filters_ = 0;
  }
  return *this;
}

filter::~filter() {
  release();
}

// ---- figures ---------------------------------------------------------------------------------

fields filter::header_fields() const noexcept {
  return fields{num_buckets(), num_items_,      num_deletes_, num_filters_,
                bucket_size_,  max_iterations_, expansion_};
}

std::uint64_t filter::slot_bytes() const noexcept {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < num_filters_; ++i) n += sub_buckets(i) * bucket_size_;
  return n;
}

std::uint64_t filter::info_size() const noexcept {
  return info_filter_bytes + info_sub_filter_bytes * num_filters_ + slot_bytes();
}

std::array<info_field, 8> filter::info() const noexcept {
  return {{{"Size", info_size()},
           {"Number of buckets", num_buckets()},
           {"Number of filters", num_filters_},
           {"Number of items inserted", num_items_},
           {"Number of items deleted", num_deletes_},
           {"Bucket size", bucket_size_},
           {"Expansion rate", expansion_},
           {"Max iterations", max_iterations_}}};
}

std::string filter::debug_text() const {
  return "bktsize:" + std::to_string(bucket_size_) + " buckets:" + std::to_string(num_buckets()) +
         " items:" + std::to_string(num_items_) + " deletes:" + std::to_string(num_deletes_) +
         " filters:" + std::to_string(num_filters_) +
         " max_iterations:" + std::to_string(max_iterations_) +
         " expansion:" + std::to_string(expansion_);
}

std::uint64_t filter::memory_bytes() const noexcept {
  std::uint64_t n = sizeof(filter) + sizeof(sub) * num_filters_;
  for (std::size_t i = 0; i < num_filters_; ++i) n += subs_[i].held();
  return n;
}

std::uint64_t filter::sub_buckets(std::size_t i) const noexcept {
  return access::buckets_of(*this, i);
}

std::span<const std::uint8_t> filter::sub_slots(std::size_t i) const noexcept {
  return {subs_[i].slots, static_cast<std::size_t>(sub_buckets(i) * bucket_size_)};
}

std::span<std::uint8_t> filter::mutable_sub_slots(std::size_t i) noexcept {
  return {subs_[i].slots, static_cast<std::size_t>(sub_buckets(i) * bucket_size_)};
}

bool operator==(const filter& x, const filter& y) noexcept {
  if (x.header_fields() != y.header_fields()) return false;
  for (std::size_t i = 0; i < x.num_filters(); ++i) {
    const auto a = x.sub_slots(i);
    const auto b = y.sub_slots(i);
    if (a.size() != b.size() || std::memcmp(a.data(), b.data(), a.size()) != 0) return false;
  }
  return true;
}

}  // namespace bloomkit::redisbloom::cuckoo
