// bench_harness_bloomkit: bloomkit's filter kinds under the peer protocol (harness.h).
//
//   bloomkit-classic, bloomkit-blocked              insert / contains, one key at a time
//   bloomkit-classic-batch, bloomkit-blocked-batch  insert_many / contains_many over each chunk
//   bloomkit-counting, bloomkit-counting-batch      counting_bloom_filter, one key at a time /
//                                                   batched lookups and inserts (removes one at
//                                                   a time: it has no remove_many)
//   bloomkit-cuckoo, bloomkit-cuckoo-batch          cuckoo_filter::for_capacity(n, p), one key
//                                                   at a time / insert_many, contains_many and
//                                                   remove_many over each chunk
// The kinds that delete also time removes of the hit keys (harness.h).
//   bloomkit-scalable                               scalable_bloom_filter(n / 8, p) with the
//                                                   defaults s = 2, r = 0.5, one key at a time
//   bloomkit-static, bloomkit-static-batch           static_filter (built once): "insert" hashes
//                                                   each key (xxh3_64) and, at the n-th, builds
//                                                   the filter on every core, so insert ns/key is
//                                                   the build from keys; lookups one key at a
//                                                   time / contains_many over each chunk
//
// Every filter comes from its "expected n keys at FPP p" constructor (the static one from its
// whole key set).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <thread>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/static_filter.hpp"
#include "bloomkit/version.hpp"
#include "harness.h"

namespace {

// A filter plus the current chunk as string_views (built untimed, in prepare).
template <class Filter>
struct subject {
  Filter filter;
  std::vector<std::string_view> keys;
  std::unique_ptr<bool[]> results{new bool[KEY_FILE_CHUNK]};
};

// The kinds sized by for_capacity(n, p).
template <class Filter>
struct sized_kind {
  using filter = Filter;
  static filter make(std::uint64_t n, double p) { return filter::for_capacity(n, p); }
  static unsigned hashes(const filter& f) { return f.hashes(); }
};
using classic_kind = sized_kind<bloomkit::bloom_filter>;
using blocked_kind = sized_kind<bloomkit::blocked_bloom_filter>;
using counting_kind = sized_kind<bloomkit::counting_bloom_filter>;
// The cuckoo filter's "hashes" field is its fingerprint bits f (a lookup reads 2 buckets).
struct cuckoo_kind {
  using filter = bloomkit::cuckoo_filter;
  static filter make(std::uint64_t n, double p) { return filter::for_capacity(n, p); }
  static unsigned hashes(const filter& f) { return f.fingerprint_bits(); }
};
struct scalable_kind {
  using filter = bloomkit::scalable_bloom_filter;
  // Starts at an eighth of n, so n keys take four sub-filters (n/8, n/4, n/2, n).
  static filter make(std::uint64_t n, double p) { return filter(n / 8 > 0 ? n / 8 : 1, p); }
  // The newest sub-filter's k (each sub-filter has its own; a miss probes all of them).
  static unsigned hashes(const filter& f) { return f.sub_filters().back().hashes(); }
};

template <class Kind, bool Batch>
struct ops {
  using state = subject<typename Kind::filter>;

  static void* create(std::uint64_t n, double p, char* err, std::size_t err_size) {
    try {
      return new state{Kind::make(n, p), {}};
    } catch (const std::exception& e) {
      std::snprintf(err, err_size, "%s", e.what());
      return nullptr;
    }
  }
  static void destroy(void* s) { delete static_cast<state*>(s); }
  static void prepare(void* s, const key_file* chunk, long count) {
    prepare_keys<state>(s, chunk, count);
  }
  // The chunk's keys as string_views in the state's `keys` (untimed).
  template <class State>
  static void prepare_keys(void* s, const key_file* chunk, long count) {
    auto& keys = static_cast<State*>(s)->keys;
    keys.resize(static_cast<std::size_t>(count));
    for (long i = 0; i < count; ++i) {
      keys[static_cast<std::size_t>(i)] =
          std::string_view(key_file_key(chunk, i), chunk->lengths[i]);
    }
  }
  static void insert(void* s, const key_file*, long) {
    auto& st = *static_cast<state*>(s);
    if constexpr (Batch) {
      st.filter.insert_many(st.keys);
    } else {
      for (const auto key : st.keys) st.filter.insert(key);
    }
  }
  static long contains(void* s, const key_file*, long) {
    auto& st = *static_cast<state*>(s);
    if constexpr (Batch) {
      return static_cast<long>(
          st.filter.contains_many(st.keys, std::span<bool>(st.results.get(), st.keys.size())));
    } else {
      long present = 0;
      for (const auto key : st.keys) present += st.filter.contains(key);
      return present;
    }
  }
  static std::uint64_t filter_bytes(const void* s) {
    return static_cast<const state*>(s)->filter.byte_size();
  }
  static unsigned hashes(const void* s) {
    return Kind::hashes(static_cast<const state*>(s)->filter);
  }
  // The batched path's remove_many where the kind has one, else remove one key at a time.
  static long remove(void* s, const key_file*, long) {
    auto& st = *static_cast<state*>(s);
    if constexpr (Batch && requires { st.filter.remove_many(std::span(st.keys)); }) {
      return static_cast<long>(st.filter.remove_many(std::span(st.keys)));
    } else {
      long removed = 0;
      for (const auto key : st.keys) removed += st.filter.remove(key);
      return removed;
    }
  }

  static harness_impl impl(const char* name, const char* library) {
    long (*remover)(void*, const key_file*, long) = nullptr;
    if constexpr (requires(typename Kind::filter & f) { f.remove(std::string_view()); }) {
      remover = remove;
    }
    return {name,   "C++",    library,      create, destroy, prepare,
            insert, contains, filter_bytes, hashes, remover};
  }
};

// The static kind: no inserts, so the insert passes collect the keys' hashes and the pass that
// reaches n builds the filter (timed with them).
template <bool Batch>
struct static_ops {
  struct state {
    std::uint64_t n;
    double p;
    std::vector<std::uint64_t> hashes;
    std::optional<bloomkit::static_filter> filter;
    std::vector<std::string_view> keys;
    std::unique_ptr<bool[]> results{new bool[KEY_FILE_CHUNK]};
  };

  static void* create(std::uint64_t n, double p, char* err, std::size_t err_size) {
    try {
      bloomkit::static_filter::fingerprint_bits_for(p);  // rejects a p it cannot take, now
      auto* s = new state{n, p, {}, std::nullopt, {}};
      s->hashes.reserve(n);
      return s;
    } catch (const std::exception& e) {
      std::snprintf(err, err_size, "%s", e.what());
      return nullptr;
    }
  }
  static void destroy(void* s) { delete static_cast<state*>(s); }
  static void insert(void* s, const key_file*, long) {
    auto& st = *static_cast<state*>(s);
    for (const auto key : st.keys) st.hashes.push_back(bloomkit::xxh3_64(key));
    if (st.hashes.size() >= st.n) {
      const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
      st.filter = bloomkit::static_filter::build_from_hashes(std::move(st.hashes), st.p, threads);
      st.hashes = {};
    }
  }
  static long contains(void* s, const key_file*, long) {
    auto& st = *static_cast<state*>(s);
    if constexpr (Batch) {
      return static_cast<long>(
          st.filter->contains_many(st.keys, std::span<bool>(st.results.get(), st.keys.size())));
    } else {
      long present = 0;
      for (const auto key : st.keys) present += st.filter->contains(key);
      return present;
    }
  }
  static std::uint64_t filter_bytes(const void* s) {
    return static_cast<const state*>(s)->filter->byte_size();
  }
  // The fingerprint bits b (its lookups read 3 cells of b bits).
  static unsigned hashes(const void* s) {
    return static_cast<const state*>(s)->filter->fingerprint_bits();
  }

  static harness_impl impl(const char* name, const char* library) {
    return {name,   "C++",    library,
            create, destroy,  ops<classic_kind, false>::prepare_keys<state>,
            insert, contains, filter_bytes,
            hashes, nullptr};
  }
};

}  // namespace

int main(int argc, char** argv) {
  static char library[64];
  std::snprintf(library, sizeof library, "bloomkit %s", bloomkit::version_string);
  static const harness_impl impls[] = {
      ops<classic_kind, false>::impl("bloomkit-classic", library),
      ops<classic_kind, true>::impl("bloomkit-classic-batch", library),
      ops<blocked_kind, false>::impl("bloomkit-blocked", library),
      ops<blocked_kind, true>::impl("bloomkit-blocked-batch", library),
      ops<counting_kind, false>::impl("bloomkit-counting", library),
      ops<counting_kind, true>::impl("bloomkit-counting-batch", library),
      ops<cuckoo_kind, false>::impl("bloomkit-cuckoo", library),
      ops<cuckoo_kind, true>::impl("bloomkit-cuckoo-batch", library),
      ops<scalable_kind, false>::impl("bloomkit-scalable", library),
      static_ops<false>::impl("bloomkit-static", library),
      static_ops<true>::impl("bloomkit-static-batch", library),
  };
  const harness_impl* list[std::size(impls)];
  for (std::size_t i = 0; i < std::size(impls); ++i) list[i] = &impls[i];
  try {
    return harness_main(argc, argv, list, std::size(impls));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argc > 1 ? argv[1] : "bench_harness_bloomkit", e.what());
    return 1;
  }
}
