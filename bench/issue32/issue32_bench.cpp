// issue32_bench: one process of bench/issue32/run. It measures issue 32's rows at one n for the
// bloomkit it was built against (bench/issue32/CMakeLists.txt builds it against the tree before
// issue 32 and against the current one), and the machine's limits in the same process, over an
// array of the filter's size from the filter's own allocator (machine_limits.hpp).
//
//   issue32_bench --group strings|ints|kinds --n N [--queries Q] [--single S] [--reps R]
//
//   strings  blocked filter, 35-byte keys: insert_many (all n keys into an empty filter, then
//            once more into another with each chunk paired with the limit on its keys),
//            contains_many hits and misses (Q queries), contains hits and misses one key at a
//            time (S queries); limits: hash + one prefetched random line read (write for
//            inserts), and hash + one dependent random read for the single-key rows (hash + one
//            unprefetched independent read beside it)
//   ints     blocked filter, 64-bit integer keys (int_keys.hpp: the library's integer API if it
//            has one, else XXH3 of the 8 bytes through the string API); limit: a mixer + one
//            prefetched line read
//   kinds    classic, counting, scalable (classic and blocked sub-filters) and window filters,
//            35-byte keys, batched: insert_many, contains_many hits and misses
//
// Prints JSON lines: one {"type": "process", ...} and one {"type": "row", ...} per row, each
// figure the median of R in-process repetitions (lookups and limits alternate within a
// repetition) in thread CPU ns per key, wall ns beside it.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "bloomkit/window_filter.hpp"
#include "int_keys.hpp"
#include "keys35.hpp"
#include "limit_rows.hpp"
#include "timing.hpp"

namespace {

using namespace bloomkit::bench::issue32;

constexpr double target_p = 0.01;
constexpr std::size_t chunk = std::size_t{1} << 20;   // insert keys generated per chunk
constexpr std::uint64_t keep_all_below = 20'000'000;  // n up to this: keys generated once

struct options {
  std::string group;
  std::uint64_t n = 0;
  std::size_t queries = std::size_t{1} << 22;
  std::size_t single = std::size_t{1} << 20;
  int reps = 3;
};

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "issue32_bench: %s\n", what.c_str());
  std::exit(2);
}

std::uint64_t parse_count(const char* text, const char* what) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || v < 1 || v > 4e9) {
    fail(std::string(what) + " wants a count such as 1e7, got '" + text + "'");
  }
  return static_cast<std::uint64_t>(v);
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (i + 1 >= argc) fail("option " + std::string(a) + " wants a value");
    const char* v = argv[++i];
    if (a == "--group") {
      o.group = v;
    } else if (a == "--n") {
      o.n = parse_count(v, "--n");
    } else if (a == "--queries") {
      o.queries = parse_count(v, "--queries");
    } else if (a == "--single") {
      o.single = parse_count(v, "--single");
    } else if (a == "--reps") {
      o.reps = static_cast<int>(parse_count(v, "--reps"));
    } else {
      fail("unknown option " + std::string(a));
    }
  }
  if (o.group != "strings" && o.group != "ints" && o.group != "kinds") {
    fail("--group wants strings, ints or kinds");
  }
  if (o.n == 0) fail("--n is required");
  return o;
}

// The process's anonymous memory on transparent huge pages, in KiB (smaps_rollup).
long anon_huge_kib() {
  std::ifstream in("/proc/self/smaps_rollup");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("AnonHugePages:", 0) == 0) return std::atol(line.c_str() + 14);
  }
  return -1;
}

// The n inserted keys, chunk by chunk: kept from the first pass when n is small, regenerated
// (untimed) for every chunk otherwise, so 10^8 keys never sit in memory at once.
class insert_stream {
 public:
  explicit insert_stream(std::uint64_t n) : n_(n) {
    if (n <= keep_all_below) all_.emplace(insert_keys(0, n));
  }
  // Calls insert(keys) for consecutive chunks of ids [first, last); insert times its call (timed
  // below, or paired_insert_chunk) and returns it. The time of those calls per key.
  template <class Insert>
  per_key run(std::uint64_t first, std::uint64_t last, Insert insert) const {
    double cpu = 0, wall = 0;
    for (std::uint64_t at = first; at < last;) {
      const std::size_t count = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, last - at));
      std::optional<keys35> generated;
      std::span<const std::string_view> keys;
      if (all_) {
        keys = all_->keys().subspan(at, count);
      } else {
        generated.emplace(insert_keys(at, count));
        keys = generated->keys();
      }
      const per_key t = insert(keys);
      cpu += t.cpu_ns * static_cast<double>(count);
      wall += t.wall_ns * static_cast<double>(count);
      at += count;
    }
    const auto k = static_cast<double>(last - first);
    return {cpu / k, wall / k};
  }
  template <class Insert>
  per_key run(Insert insert) const {
    return run(0, n_, insert);
  }

 private:
  std::uint64_t n_;
  std::optional<keys35> all_;
};

// insert_stream::run's insert for f.insert_many(keys), timed alone.
template <class Filter>
auto timed_insert_many(Filter& f) {
  return [&f](std::span<const std::string_view> keys) {
    return time_per_key(keys.size(), [&] { f.insert_many(keys); });
  };
}

// contains_many over `keys`; checks hits (a false negative ends the run) and counts positives.
// Timed warm, after one untimed pass, as the limits are (limit_rows.hpp): the steady state of a
// filter that is queried all the time.
template <class Filter, class Keys>
per_key batched_lookup(const Filter& f, const Keys& keys, bool hits, std::size_t* positives) {
  std::unique_ptr<bool[]> results(new bool[keys.size()]);
  std::size_t found = f.contains_many(keys, std::span<bool>(results.get(), keys.size()));
  const per_key t = time_per_key(keys.size(), [&] {
    found = f.contains_many(keys, std::span<bool>(results.get(), keys.size()));
  });
  if (hits && found != keys.size()) fail("a false negative: the filter lost an inserted key");
  *positives = found;
  return t;
}

void print_process(const options& o, const char* filter, std::size_t bytes, bool simd) {
  std::printf(
      "{\"type\": \"process\", \"group\": \"%s\", \"n\": %llu, \"filter\": \"%s\", "
      "\"filter_bytes\": %zu, \"simd\": %s, \"int_path\": \"%s\", \"anon_huge_kib\": %ld}\n",
      o.group.c_str(), static_cast<unsigned long long>(o.n), filter, bytes, simd ? "true" : "false",
      int_path, anon_huge_kib());
}

void strings_group(const options& o) {
  const insert_stream inserts(o.n);
  const keys35 hits = hit_keys(o.n, std::min<std::uint64_t>(o.queries, o.n), 0x68697473 + o.n);
  const keys35 misses = miss_keys(o.queries);
  const keys35 limit_inserts = insert_keys(0, std::min<std::uint64_t>(chunk, o.n));

  std::optional<bloomkit::blocked_bloom_filter> f;
  row_samples insert_row("blocked/insert_many"), hit_row("blocked/contains_many_hit"),
      miss_row("blocked/contains_many_miss"), single_hit("blocked/contains_hit"),
      single_miss("blocked/contains_miss");
  const int insert_reps = o.n <= keep_all_below ? o.reps : 1;
  std::optional<limit_array> arr;
  // Each repetition fills a new filter twice: once alone (the row's figure), once with every
  // chunk paired with the limit on its keys (the paired ratio).
  for (int r = 0; r < insert_reps; ++r) {
    f.emplace(bloomkit::blocked_bloom_filter::for_capacity(o.n, target_p));
    insert_row.add(inserts.run(timed_insert_many(*f)));
    if (!arr) arr.emplace(f->byte_size());
    insert_row.add_limit(hash_and_read_variants<xxh3_of_string>(*arr, limit_inserts.keys()));
    insert_row.add_alt_limit(hash_and_write_variants<xxh3_of_string>(*arr, limit_inserts.keys()));
    f.emplace(bloomkit::blocked_bloom_filter::for_capacity(o.n, target_p));
    inserts.run([&](std::span<const std::string_view> keys) {
      return paired_insert_chunk<xxh3_of_string>(insert_row, *arr, keys,
                                                 [&] { f->insert_many(keys); });
    });
  }
  print_process(o, "blocked", f->byte_size(), f->simd());
  for (int r = 0; r < o.reps; ++r) {
    std::size_t pos = 0;
    hit_row.add(batched_lookup(*f, hits.keys(), true, &pos));
    hit_row.add_limit(hash_and_read_variants<xxh3_of_string>(*arr, hits.keys()));
    add_paired_limit<xxh3_of_string>(hit_row, *arr, hits.keys(),
                                     [&] { return batched_lookup(*f, hits.keys(), true, &pos); });
    miss_row.add(batched_lookup(*f, misses.keys(), false, &pos));
    miss_row.positives = pos;
    miss_row.queries = misses.size();
    miss_row.add_limit(hash_and_read_variants<xxh3_of_string>(*arr, misses.keys()));
    add_paired_limit<xxh3_of_string>(miss_row, *arr, misses.keys(), [&] {
      return batched_lookup(*f, misses.keys(), false, &pos);
    });
    const auto one_hit = hits.keys().first(std::min(o.single, hits.size()));
    const auto one_miss = misses.keys().first(std::min(o.single, misses.size()));
    single_hit.add(single_key_loop(*f, one_hit, true));
    single_hit.add_limit(hash_then_chase_limit<xxh3_of_string>(*arr, one_hit));
    single_hit.add_alt_limit(hash_then_read_limit<xxh3_of_string>(*arr, one_hit));
    single_miss.add(single_key_loop(*f, one_miss, false));
    single_miss.add_limit(hash_then_chase_limit<xxh3_of_string>(*arr, one_miss));
    single_miss.add_alt_limit(hash_then_read_limit<xxh3_of_string>(*arr, one_miss));
  }
  for (const auto* row : {&insert_row, &hit_row, &miss_row, &single_hit, &single_miss}) {
    row->print(o.n);
  }
}

void ints_group(const options& o) {
  const int_batch inserts(int_insert_keys(o.n));
  const int_batch hits(int_hit_keys(o.n, std::min<std::uint64_t>(o.queries, o.n), 0x69 + o.n));
  const int_batch misses(int_miss_keys(o.queries));
  const auto limit_keys = std::span<const std::uint64_t>(inserts.ints)
                              .first(std::min<std::size_t>(chunk, inserts.size()));

  row_samples insert_row("blocked_u64/insert_many"), hit_row("blocked_u64/contains_many_hit"),
      miss_row("blocked_u64/contains_many_miss");
  std::optional<decltype(make_int_filter(1, target_p))> f;
  std::optional<limit_array> arr;
  // chunk_insert(at, count) over consecutive chunks of the keys.
  const auto each_chunk = [&](auto chunk_insert) {
    for (std::size_t at = 0; at < inserts.size(); at += chunk) {
      chunk_insert(at, std::min(chunk, inserts.size() - at));
    }
  };
  // As strings_group: a fill alone, then a fill whose chunks pair with the limit.
  for (int r = 0; r < o.reps; ++r) {
    f.emplace(make_int_filter(o.n, target_p));  // new filters, made outside the timings
    insert_row.add(time_per_key(inserts.size(), [&] {
      each_chunk([&](std::size_t at, std::size_t count) { insert_ints(*f, inserts, at, count); });
    }));
    if (!arr) arr.emplace(f->byte_size());
    insert_row.add_limit(hash_and_read_variants<mixer_of_int>(*arr, limit_keys));
    insert_row.add_alt_limit(hash_and_read_variants<xxh3_of_int>(*arr, limit_keys));
    f.emplace(make_int_filter(o.n, target_p));
    each_chunk([&](std::size_t at, std::size_t count) {
      paired_insert_chunk<mixer_of_int>(insert_row, *arr,
                                        std::span(inserts.ints).subspan(at, count),
                                        [&] { insert_ints(*f, inserts, at, count); });
    });
  }
  print_process(o, "blocked", f->byte_size(), f->simd());
  std::unique_ptr<bool[]> results(new bool[std::max(hits.size(), misses.size())]);
  for (int r = 0; r < o.reps; ++r) {
    for (auto [set, row] : {std::pair{&hits, &hit_row}, std::pair{&misses, &miss_row}}) {
      std::size_t found = 0;
      const auto lookups = [&] {
        found = contains_ints(*f, *set, std::span<bool>(results.get(), set->size()));
        const per_key t = time_per_key(set->size(), [&] {  // warm, as batched_lookup
          found = contains_ints(*f, *set, std::span<bool>(results.get(), set->size()));
        });
        if (set == &hits && found != hits.size()) fail("a false negative on integer keys");
        return t;
      };
      row->add(lookups());
      row->positives = found;
      row->queries = set->size();
      row->add_limit(hash_and_read_variants<mixer_of_int>(*arr, std::span(set->ints)));
      row->add_alt_limit(hash_and_read_variants<xxh3_of_int>(*arr, std::span(set->ints)));
      add_paired_limit<mixer_of_int>(*row, *arr, std::span(set->ints), lookups);
    }
  }
  for (const auto* row : {&insert_row, &hit_row, &miss_row}) row->print(o.n);
}

// One kind's batched rows: fill an empty filter with all n keys, then lookups.
template <class Filter, class Make, class Fill>
void kind_rows(const options& o, const std::string& name, const insert_stream& inserts,
               const keys35& hits, const keys35& misses, Make make, Fill fill) {
  row_samples insert_row(name + "/insert_many"), hit_row(name + "/contains_many_hit"),
      miss_row(name + "/contains_many_miss");
  Filter f = make();
  insert_row.add(fill(f, inserts));
  for (int r = 0; r < o.reps; ++r) {
    std::size_t pos = 0;
    hit_row.add(batched_lookup(f, hits.keys(), true, &pos));
    miss_row.add(batched_lookup(f, misses.keys(), false, &pos));
    miss_row.positives = pos;
    miss_row.queries = misses.size();
  }
  for (const auto* row : {&insert_row, &hit_row, &miss_row}) row->print(o.n);
}

void kinds_group(const options& o) {
  const insert_stream inserts(o.n);
  const keys35 hits = hit_keys(o.n, std::min<std::uint64_t>(o.queries, o.n), 0x6b696e64 + o.n);
  const keys35 misses = miss_keys(o.queries);
  print_process(o, "kinds", 0, false);
  const std::uint64_t n = o.n;
  auto plain_fill = [](auto& f, const insert_stream& s) { return s.run(timed_insert_many(f)); };
  kind_rows<bloomkit::bloom_filter>(
      o, "classic", inserts, hits, misses,
      [n] { return bloomkit::bloom_filter::for_capacity(n, target_p); }, plain_fill);
  kind_rows<bloomkit::counting_bloom_filter>(
      o, "counting", inserts, hits, misses,
      [n] { return bloomkit::counting_bloom_filter::for_capacity(n, target_p); }, plain_fill);
  kind_rows<bloomkit::scalable_bloom_filter>(
      o, "scalable", inserts, hits, misses,
      [n] { return bloomkit::scalable_bloom_filter(n / 8 + 1, target_p); }, plain_fill);
  kind_rows<bloomkit::scalable_blocked_bloom_filter>(
      o, "scalable_blocked", inserts, hits, misses,
      [n] { return bloomkit::scalable_blocked_bloom_filter(n / 8 + 1, target_p); }, plain_fill);
  // A time window of n keys in 8 slices of 1000 s, each slice given its n/8 keys, looked up at
  // the end of the last slice: every slice live and full.
  constexpr std::uint32_t slices = 8;
  kind_rows<bloomkit::window_filter>(
      o, "window", inserts, hits, misses,
      [n] {
        return bloomkit::window_filter(bloomkit::window_config{
            n, target_p, slices * 1000, bloomkit::window_unit::seconds, slices});
      },
      [n](bloomkit::window_filter& f, const insert_stream& s) {
        double cpu = 0, wall = 0;
        for (std::uint32_t i = 0; i < slices; ++i) {
          f.set_now(i * 1000);
          const std::uint64_t first = n * i / slices, last = n * (i + 1) / slices;
          const per_key t = s.run(first, last, timed_insert_many(f));
          cpu += t.cpu_ns * static_cast<double>(last - first);
          wall += t.wall_ns * static_cast<double>(last - first);
        }
        f.set_now(slices * 1000 - 1);
        return per_key{cpu / static_cast<double>(n), wall / static_cast<double>(n)};
      });
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    if (o.group == "strings") {
      strings_group(o);
    } else if (o.group == "ints") {
      ints_group(o);
    } else {
      kinds_group(o);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "issue32_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
