// The batched paths of cuckoo_filter over core/filter_pipeline.hpp: each key is hashed and its
// two buckets prefetched the pipeline's distance (its rule, from the table's size) before they are
// read or written, so the misses of many keys overlap. Writes go through the single-key paths (a
// kick or a growth is rare and touches buckets no prefetch could know), in order, so a batch does
// what a loop of calls does.

#include <memory>

#include "../core/filter_pipeline.hpp"
#include "../core/key_stream.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "cuckoo_buckets.hpp"

namespace bloomkit {

namespace {

// Lookups in one table.
struct cuckoo_lookup_ops {
  using location = cuckoo_place;
  static constexpr bool two_stage = false;
  cuckoo_geometry g;
  const unsigned char* bytes;

  void locate(std::uint64_t h, location& at) const noexcept { at = g.place(h); }
  void prefetch_first(const location& at) const noexcept {
    detail::prefetch_read(g.address(bytes, at.first));
    detail::prefetch_read(g.address(bytes, at.second));
  }
  bool test_first(const location& at) const noexcept {
    return g.holds(bytes, at.first, at.fingerprint) || g.holds(bytes, at.second, at.fingerprint);
  }
};

// Inserts (Remove false) or removes (true) through the filter's single-key paths, the buckets
// of the newest table prefetched. An insert that fails stops the batch: the keys after it are
// not inserted (inserted() counts the prefix stored).
template <bool Remove>
struct cuckoo_write_ops {
  struct location {
    std::uint64_t h;
    cuckoo_place at;
  };
  cuckoo_filter* f;
  bool* full;  // an insert failed: the rest are skipped
  bool* done;  // per key, or nullptr

  void locate(std::uint64_t h, location& at) const noexcept {
    at = {h, cuckoo_table_access::geometry(f->tables().back()).place(h)};
  }
  void prefetch_write(const location& at) const noexcept {
    const cuckoo_table& t = f->tables().back();
    const cuckoo_geometry g = cuckoo_table_access::geometry(t);
    detail::prefetch_write(g.address(cuckoo_table_access::bytes(t), at.at.first));
    detail::prefetch_write(g.address(cuckoo_table_access::bytes(t), at.at.second));
  }
  template <bool Atomic>
  bool insert(const location& at) const {
    if constexpr (Remove) {
      return f->remove_digest(at.h);
    } else {
      if (*full) return false;
      const bool stored = f->insert_digest(at.h);
      *full = !stored;
      return stored;
    }
  }
};

// Keys are streamed past the caches when the batch reads them once (key_stream.hpp); ready
// digests never are.
template <class Keys>
auto cuckoo_digest_at(Keys keys, detail::key_reads reads = detail::key_reads::once) {
  constexpr bool digests = std::is_same_v<typename Keys::value_type, std::uint64_t>;
  return detail::streamed_digests<detail::one_line_per_key>(
      keys,
      [](const auto& key) {
        if constexpr (digests) {
          return key;
        } else {
          return cuckoo_filter::digest_of(key);
        }
      },
      digests ? detail::key_reads::again : reads);
}

// What a batch touches: one table's words.
detail::touched_bytes touched(const cuckoo_table& t) noexcept {
  return {t.words().byte_size()};
}

}  // namespace

template <class Keys>
static std::size_t insert_all(cuckoo_filter& f, Keys keys) {
  bool full = false;
  const cuckoo_write_ops<false> ops{&f, &full, nullptr};
  return detail::insert_pipeline<false>(ops, keys.size(), cuckoo_digest_at(keys),
                                        touched(f.tables().back()));
}

template <class Keys>
static std::size_t remove_all(cuckoo_filter& f, Keys keys, std::span<bool> removed) {
  if (!removed.empty()) detail::require_result_slots(keys.size(), removed.size(), "remove_many");
  bool full = false;
  const cuckoo_write_ops<true> ops{&f, &full, nullptr};
  return detail::insert_pipeline<false>(ops, keys.size(), cuckoo_digest_at(keys),
                                        touched(f.tables().back()),
                                        removed.empty() ? nullptr : removed.data());
}

template <class Keys>
static std::size_t look_up_all(const cuckoo_filter& f, Keys keys, std::span<bool> results) {
  detail::require_result_slots(keys.size(), results.size(), "contains_many");
  const auto& tables = f.tables();
  const auto in = [&](const cuckoo_table& t) {
    return cuckoo_lookup_ops{cuckoo_table_access::geometry(t), cuckoo_table_access::bytes(t)};
  };
  const auto reads = tables.size() == 1 ? detail::key_reads::once : detail::key_reads::again;
  std::size_t present =
      detail::lookup_pipeline(in(tables.front()), keys.size(), cuckoo_digest_at(keys, reads),
                              touched(tables.front()), results.data());
  if (tables.size() > 1) {  // a chain: a key is present if some table holds it
    const auto more = std::make_unique<bool[]>(keys.size());
    for (std::size_t t = 1; t < tables.size(); ++t) {
      detail::lookup_pipeline(in(tables[t]), keys.size(), cuckoo_digest_at(keys, reads),
                              touched(tables[t]), more.get());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        present += more[i] && !results[i];
        results[i] = results[i] || more[i];
      }
    }
  }
  f.check_source();
  return present;
}

std::size_t cuckoo_filter::insert_many(std::span<const std::string_view> keys) {
  return insert_all(*this, keys);
}
std::size_t cuckoo_filter::insert_many(std::span<const digest_type> digests) {
  return insert_all(*this, digests);
}
std::size_t cuckoo_filter::contains_many(std::span<const std::string_view> keys,
                                         std::span<bool> results) const {
  return look_up_all(*this, keys, results);
}
std::size_t cuckoo_filter::contains_many(std::span<const digest_type> digests,
                                         std::span<bool> results) const {
  return look_up_all(*this, digests, results);
}
std::size_t cuckoo_filter::remove_many(std::span<const std::string_view> keys,
                                       std::span<bool> removed) {
  return remove_all(*this, keys, removed);
}
std::size_t cuckoo_filter::remove_many(std::span<const digest_type> digests,
                                       std::span<bool> removed) {
  return remove_all(*this, digests, removed);
}

}  // namespace bloomkit
