#pragma once
// The kind registry: what bloomkit knows of each filter type a file can hold, in one traits type
// per filter type (kind_traits<Filter>), and the lists of native filter types (native_kinds, one
// per kind, and native_filters, with the compositions) from which the rest is generated: the
// any_filter variant and load_any / map_any / save (any_filter.hpp), the kind names below, the
// checks of a header's kind-specific fields, save / load / map (file.hpp), and the CLI's --kind
// choices and `info`. The peers' filters (bloomkit::compat) extend the list
// (compat/any_filter.hpp).
//
// Adding a kind: a filter_kind value, a kind_traits specialization here with its file codec in
// src/file/, its filter type in native_kinds, and its answers to the front ends' questions (the
// block "What the front ends ask of a kind" below) where they differ.
//
// A kind_traits<Filter> has:
//   filter_type, kind, name, scheme       the filter type, its kind and hash scheme in files
//   records_key_type                      whether its files may record key_type::int64
//   grows                                 whether it takes the growth parameters of `create`
//   create(request)                       an empty filter sized for request's n and p
//   hashes(f), describe(f, report)        k, and the extra fields of `bloomkit info`
//   check_source(f)                       for a mapped filter: throws if its file changed
//   check_fields(h)                       the problem with the kind's header fields, if any
//   header_of(f), payload_of(f)           what save() writes
//   load(file), map(file, check)          a filter from an open, validated file
// The file codec (the last three lines) is defined in src/file/ and reached only through
// save / load / map and the header checks.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file_header.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/static_filter.hpp"
#include "bloomkit/window_filter.hpp"

namespace bloomkit {

namespace detail {
class filter_file;    // an open, validated filter file (src/file/filter_file.hpp)
struct file_payload;  // the parts of a payload to write (src/file/write_filter_file.hpp)
struct file_problem;  // what is wrong with a file: an errc and a message (src/file/file_error.hpp)
}  // namespace detail

// What `create` asks for: n and p, the growth parameters that growing kinds use, and the window
// of window kinds (n keys per window).
struct kind_request : scalable_params {
  std::uint64_t window = 0;  // W: seconds or inserts
  window_unit unit = window_unit::seconds;
  std::uint32_t slices = 8;  // S
  // Integer keys: the classic, blocked and counting kinds (their integer schemes); the other
  // kinds refuse key_type::int64 (errc::invalid_argument).
  key_type keys = key_type::string;
};

template <class Filter>
struct kind_traits;  // not a filter a file can hold

// Whether files of `scheme` hold a Filter: its traits' scheme, or any scheme its traits'
// reads_scheme accepts (a kind whose filters record one of several schemes: redisbloom_kind.hpp).
template <class Filter>
constexpr bool holds_scheme(hash_scheme scheme) noexcept {
  if constexpr (requires { kind_traits<Filter>::reads_scheme(scheme); }) {
    return kind_traits<Filter>::reads_scheme(scheme);
  } else {
    return kind_traits<Filter>::scheme == scheme;
  }
}

// The scheme a filter's files record: its own file_scheme() when its kind has several.
template <class Filter>
constexpr hash_scheme scheme_of(const Filter& f) noexcept {
  if constexpr (requires { f.file_scheme(); }) {
    return f.file_scheme();
  } else {
    return Filter::scheme();
  }
}

// What the traits of a filter sized by for_capacity(n, p) share: its scheme, k, its storage's
// file check, no key type nor growth of its own, and the file codec of a payload that is its
// storage's words (defined in src/kinds/word_payload.hpp).
template <class Filter>
struct sized_kind {
  using filter_type = Filter;
  static constexpr bool records_key_type = false;
  static constexpr bool grows = false;
  static constexpr hash_scheme scheme = Filter::scheme();
  // Its files record `scheme`, or its policy's integer scheme for a filter of integer keys.
  static constexpr bool reads_scheme(hash_scheme s) noexcept {
    if constexpr (integer_probe_policy<typename Filter::policy_type>) {
      if (s == Filter::policy_type::integer_scheme) return true;
    }
    return s == scheme;
  }
  static filter_type create(const kind_request& r) {
    return filter_type::for_capacity(r.initial_capacity, r.target_fpp, r.keys);
  }
  static std::uint32_t hashes(const filter_type& f) noexcept { return f.hashes(); }
  template <class Report>
  static void describe(const filter_type&, Report&) {}
  static void check_source(const filter_type& f) { f.storage().check_source(); }
  // Defined per kind (src/file/<kind>_kind.cpp); the classic kind's traits declare their own.
  static std::optional<detail::file_problem> check_fields(const file_header& h);

  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};

// What the traits of a composition of sub-filters (scalable chain, window) share: no key type
// of their own, and one check of the mapped files of all their sub-filters.
template <class Filter>
struct composite_kind {
  static constexpr bool records_key_type = false;
  static void check_source(const Filter& f) { f.check_sources(); }
};

// What the traits of a filter with a mapped-file check of its own (static, cuckoo) share: k,
// that check, no key type nor growth. Their file codecs are their own (src/kinds/<kind>_kind.cpp).
template <class Filter>
struct self_checked_kind {
  using filter_type = Filter;
  static constexpr bool records_key_type = false;
  static constexpr bool grows = false;
  static std::uint32_t hashes(const filter_type& f) noexcept { return f.hashes(); }
  static void check_source(const filter_type& f) { f.check_source(); }
};

// Classic filters, with the native probes or a peer's (compat/*.hpp, docs/INTEROP.md).
template <class Policy>
struct kind_traits<basic_bloom_filter<Policy>> : sized_kind<basic_bloom_filter<Policy>> {
  using filter_type = basic_bloom_filter<Policy>;
  static constexpr filter_kind kind = filter_kind::classic;
  static constexpr std::string_view name = "classic";
  // Files of the peers' filters record how keys are funnelled (Guava's longFunnel).
  static constexpr bool records_key_type = Policy::scheme != hash_scheme::xxh3_128;

  static std::optional<detail::file_problem> check_fields(const file_header& h);
};

template <>
struct kind_traits<blocked_bloom_filter> : sized_kind<blocked_bloom_filter> {
  static constexpr filter_kind kind = filter_kind::blocked;
  static constexpr std::string_view name = "blocked";
  static void describe(const filter_type& f, auto& r) {
    r.add("blocks", f.blocks()).add("layout", blocked_layout_name(f.hashes()));
  }
};

template <>
struct kind_traits<counting_bloom_filter> : sized_kind<counting_bloom_filter> {
  static constexpr filter_kind kind = filter_kind::counting;
  static constexpr std::string_view name = "counting";
  static void describe(const filter_type& f, auto& r) {
    r.add("saturated_counters", f.saturated_counters());
  }
};

// Scalable chains, of classic sub-filters (kind "scalable" in native_kinds) or of blocked ones
// (scalable_blocked_bloom_filter: the same kind and file layout, scheme xxh3-64-split-block).
template <class Sub>
struct kind_traits<basic_scalable_filter<Sub>> : composite_kind<basic_scalable_filter<Sub>> {
  using filter_type = basic_scalable_filter<Sub>;
  static constexpr filter_kind kind = filter_kind::scalable;
  static constexpr std::string_view name = "scalable";
  static constexpr hash_scheme scheme = filter_type::scheme();
  static constexpr bool grows = true;
  static filter_type create(const kind_request& r) { return filter_type(r); }
  // k of its first sub-filter.
  static std::uint32_t hashes(const filter_type& f) noexcept {
    return f.sub_filters().front().hashes();
  }
  template <class Report>
  static void describe(const filter_type& f, Report& r) {
    r.add("sub_filters", static_cast<std::uint64_t>(f.sub_filter_count()))
        .add("initial_capacity", f.initial_capacity())
        .add("growth", f.growth())
        .add("tightening", f.tightening())
        .add("memory_ceiling", f.memory_ceiling());
  }

  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};

// What the traits of both window layouts share: `create`, k, and `info`'s window fields.
template <class Filter>
struct window_kind : composite_kind<Filter> {
  using filter_type = Filter;
  static constexpr filter_kind kind = filter_kind::window;
  static constexpr std::string_view name = "window";
  static constexpr hash_scheme scheme = filter_type::scheme();
  static constexpr bool grows = false;
  static filter_type create(const kind_request& r) {
    return filter_type(window_config{r.initial_capacity, r.target_fpp, r.window, r.unit, r.slices});
  }
  static std::uint32_t hashes(const filter_type& f) noexcept { return f.hashes(); }
  // The window, its slices, the current slice and each live slice's fill, newest first.
  template <class Report>
  static void describe(const filter_type& f, Report& r) {
    const bool time = f.unit() == window_unit::seconds;
    r.add("window", f.length())
        .add("window_unit", time ? "seconds" : "inserts")
        .add("slices", f.slices())
        .add("current_slice", f.current_slice());
    if (!time) r.add("insert_count", f.insert_count());
    const std::uint64_t current = f.current_slice();
    const std::size_t slots = f.slot_slices().size();
    std::string fills;
    for (std::uint64_t back = 0; back <= f.slices() && back <= current; ++back) {
      const std::size_t slot = (current - back) % slots;
      const bool live = f.slot_slices()[slot] == current - back;
      const double fill = live ? f.slot_fill_ratio(slot) : 0.0;
      if (!fills.empty()) fills += ' ';
      char text[32];
      std::snprintf(text, sizeof text, "%.6f", fill);
      fills += text;
    }
    r.add("slice_fill", fills);
  }
};

// Windows of grouped words (window_filter: kind "window", scheme xxh3-128-window-groups), and
// the older layout of S + 1 sub-filters, blocked (blocked_window_filter, scheme
// xxh3-64-split-block) or classic (classic_window_filter, scheme xxh3-128).
template <>
struct kind_traits<window_filter> : window_kind<window_filter> {
  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};
template <class Sub>
struct kind_traits<basic_window_filter<Sub>> : window_kind<basic_window_filter<Sub>> {
  using filter_type = basic_window_filter<Sub>;
  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};

// Static filters (static_filter.hpp): built once from a whole key set, by `bloomkit build` or
// static_filter::build, never created empty; the file codec is src/kinds/static_kind.cpp.
template <>
struct kind_traits<static_filter> : self_checked_kind<static_filter> {
  static constexpr filter_kind kind = filter_kind::static_set;
  static constexpr std::string_view name = "static";
  static constexpr hash_scheme scheme = hash_scheme::xxh3_64_binary_fuse;
  // Throws errc::invalid_argument: an empty static filter is no filter (it takes no inserts).
  static filter_type create(const kind_request& r);
  // The fingerprint width, the bits per key it reached, its shards, its distinct keys, and the
  // keys per fingerprint slot its construction reached (the fill by construction).
  template <class Report>
  static void describe(const filter_type& f, Report& r) {
    r.add("fingerprint_bits", f.fingerprint_bits())
        .add("bits_per_key", f.bits_per_key())
        .add("shards", static_cast<std::uint64_t>(f.shards().size()))
        .add("keys", f.size())
        .add("load", f.load());
  }

  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};

// Cuckoo filters (cuckoo_filter.hpp): created for n and p never growing (a chain of tables, its
// expansion, comes from cuckoo_options or a file); the file codec is src/kinds/cuckoo_kind.cpp.
template <>
struct kind_traits<cuckoo_filter> : self_checked_kind<cuckoo_filter> {
  static constexpr filter_kind kind = filter_kind::cuckoo;
  static constexpr std::string_view name = "cuckoo";
  static constexpr hash_scheme scheme = hash_scheme::xxh3_64_cuckoo;
  static filter_type create(const kind_request& r) {
    return filter_type::for_capacity(r.initial_capacity, r.target_fpp);
  }
  // Its load, geometry (of the first table: a chain's later tables have wider fingerprints),
  // fingerprints stored, tables, growth and kick bound.
  template <class Report>
  static void describe(const filter_type& f, Report& r) {
    r.add("load_factor", f.load_factor())
        .add("bucket_size", f.bucket_size())
        .add("fingerprint_bits", f.fingerprint_bits())
        .add("buckets", f.tables().front().buckets())
        .add("items", f.items())
        .add("tables", static_cast<std::uint64_t>(f.tables().size()))
        .add("expansion", f.expansion())
        .add("max_kicks", f.max_kicks())
        .add("bits_per_key",
             static_cast<double>(f.byte_size()) * 8 / static_cast<double>(f.capacity()));
  }

  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};

// A filter type with a kind_traits: one that files can hold.
template <class Filter>
concept file_kind = requires {
  kind_traits<Filter>::kind;
};

// A list of filter types, and the variant that holds any of them.
template <file_kind... Filters>
struct filter_list {
  using variant = std::variant<Filters...>;
  template <file_kind... More>
  using append = filter_list<Filters..., More...>;
  static constexpr std::size_t size = sizeof...(Filters);
};

// The native filters, one per kind, in the order of the kinds: the names, the header checks and
// `create` come from this list.
using native_kinds =
    filter_list<bloom_filter, blocked_bloom_filter, counting_bloom_filter, scalable_bloom_filter,
                window_filter, static_filter, cuckoo_filter>;
// Every native filter type a file can hold: one per kind, then the compositions that share a
// kind with another scheme (a scalable chain of blocked filters, the windows of sub-filters).
using native_filters = native_kinds::append<scalable_blocked_bloom_filter, blocked_window_filter,
                                            classic_window_filter>;

// The kinds and their names, in the order of native_kinds.
struct kind_name {
  filter_kind kind;
  std::string_view name;
};
template <class... Filters>
constexpr std::array<kind_name, sizeof...(Filters)> kind_names_of(filter_list<Filters...>) {
  return {{{kind_traits<Filters>::kind, kind_traits<Filters>::name}...}};
}
inline constexpr auto kind_names = kind_names_of(native_kinds{});

// The figures `bloomkit info` shows of a filter of any kind, after the file's own fields, under
// the names of its JSON (docs/CLI.md): m, bytes, k, capacity, target and estimated figures, then
// the kind's own fields. Report has add(name, value) returning itself: the CLI's text / JSON
// report, the Python binding's dict.
template <class Filter, class Report>
void report_figures(const Filter& f, Report& r) {
  r.add("bits", f.cells())
      .add("bytes", static_cast<std::uint64_t>(f.byte_size()))
      .add("hashes", kind_traits<Filter>::hashes(f))
      .add("capacity", f.capacity())
      .add("target_fpp", f.target_fpp())
      .add("inserted", f.inserted())
      .add("estimated_count", f.estimated_count())
      .add("fill_ratio", f.fill_ratio())
      .add("estimated_fpp", f.estimated_fpp());
  kind_traits<Filter>::describe(f, r);
}

// "classic", "blocked", ...; "unknown" for a value that is not a kind.
std::string_view to_string(filter_kind kind) noexcept;
bool is_known(filter_kind kind) noexcept;
// The kind named `name`, if one is.
std::optional<filter_kind> parse_kind(std::string_view name) noexcept;

// ---- What the front ends ask of a kind ---------------------------------------------------------
// The CLI and the Python binding ask these of a filter type, never which type it is. They follow
// from its kind_traits (its kind, and whether it is one of the native filters); a kind with other
// answers says so here.

// Whether Filter is one of List's filter types.
template <class Filter, class List>
inline constexpr bool listed_in = false;
template <class Filter, class... Filters>
inline constexpr bool listed_in<Filter, filter_list<Filters...>> =
    (std::is_same_v<Filter, Filters> || ...);

// Whether `create` takes a window (kind_request's window, unit and slices).
template <file_kind Filter>
inline constexpr bool takes_window = kind_traits<Filter>::kind == filter_kind::window;

// A repeated insert counts again (a counting filter, a cuckoo filter's fingerprint copies: one
// remove undoes one add).
template <file_kind Filter>
inline constexpr bool counts_repeats = kind_traits<Filter>::kind == filter_kind::counting ||
                                       kind_traits<Filter>::kind == filter_kind::cuckoo;
// An insert of a key it holds refreshes the key (a window moves it to its current slice, and a
// count window counts it).
template <file_kind Filter>
inline constexpr bool refreshes_keys = kind_traits<Filter>::kind == filter_kind::window;
// Whether it takes inserts at all: a static filter is built once (its insert paths throw
// static_filter_takes_no_inserts; front ends refuse before they read keys).
template <file_kind Filter>
inline constexpr bool takes_inserts = kind_traits<Filter>::kind != filter_kind::static_set;
// Whether an insert can be refused because the filter is full (a cuckoo filter that cannot
// grow): its insert answers false and its insert_many stores a prefix of the keys and returns its
// length, so a front end that gets fewer stores than keys reports the filter full (the keys
// before kept, the rest not added).
template <file_kind Filter>
inline constexpr bool refuses_when_full = kind_traits<Filter>::kind == filter_kind::cuckoo;
// Whether every insert changes the filter, its key new or not: a front end saves such a filter
// after any insert.
template <file_kind Filter>
inline constexpr bool counts_every_insert = counts_repeats<Filter> || refreshes_keys<Filter>;

// How a filter shows it holds more keys than it was sized for (the CLI's capacity warning).
enum class capacity_check {
  none,           // scalable chains grow instead; the peers' capacity is only inferred from m, k
  inserted,       // inserted() past capacity()
  distinct_keys,  // counting: inserted() counts repeats, so the keys estimated from its counters
  slice_share,    // windows: the fullest live slice past its share of capacity (fullest_slice_keys)
};
template <file_kind Filter>
inline constexpr capacity_check capacity_check_of = [] {
  if (!listed_in<Filter, native_filters>) return capacity_check::none;
  switch (kind_traits<Filter>::kind) {
    case filter_kind::classic:
    case filter_kind::blocked:
    case filter_kind::cuckoo:  // items() past capacity(): it refuses inserts soon
      return capacity_check::inserted;
    case filter_kind::counting:
      return capacity_check::distinct_keys;
    case filter_kind::window:
      return capacity_check::slice_share;
    default:
      return capacity_check::none;
  }
}();

// What `bloomkit size` shows of a filter after its bits, bytes and hashes: what sizes it beyond n
// and p (docs/CLI.md). Report as report_figures takes it.
template <file_kind Filter, class Report>
void report_sizing(const Filter& f, Report& r) {
  constexpr filter_kind kind = kind_traits<Filter>::kind;
  if constexpr (kind == filter_kind::blocked) {
    // Its layout (sizing.hpp's blocked_params) and what it costs against the classic filter
    // sized for the same n and p.
    const std::uint64_t classic = optimal_params(f.capacity(), f.target_fpp()).bits;
    r.add("blocks", f.blocks())
        .add("layout", blocked_layout_name(f.hashes()))
        .add("bits_per_key", static_cast<double>(f.cells()) / static_cast<double>(f.capacity()))
        .add("classic_bits", classic)
        .add("classic_ratio", static_cast<double>(f.cells()) / static_cast<double>(classic));
  } else if constexpr (kind == filter_kind::scalable) {
    r.add("growth", f.growth())
        .add("tightening", f.tightening())
        .add("memory_ceiling", f.memory_ceiling());
  } else if constexpr (kind == filter_kind::cuckoo) {
    // Its geometry, and what it costs against the counting filter of the same n and p (4-bit
    // counters over the classic filter's m).
    const double bits = static_cast<double>(f.byte_size()) * 8;
    const std::uint64_t counting = 4 * optimal_params(f.capacity(), f.target_fpp()).bits;
    r.add("bucket_size", f.bucket_size())
        .add("fingerprint_bits", f.fingerprint_bits())
        .add("buckets", f.tables().front().buckets())
        .add("design_load", f.tables().front().design_load())
        .add("bits_per_key", bits / static_cast<double>(f.capacity()))
        .add("counting_bits", counting)
        .add("counting_ratio", bits / static_cast<double>(counting));
  } else if constexpr (kind == filter_kind::window) {
    r.add("window", f.length())
        .add("window_unit", f.unit() == window_unit::seconds ? "seconds" : "inserts")
        .add("slices", f.slices());
  }
}

// What `bloomkit size --kind static` shows: the static filter of n distinct keys at p, computed
// (a static filter is never created empty). Throws errc::invalid_argument for p out of range.
template <class Report>
void report_static_sizing(std::uint64_t n, double p, Report& r) {
  const std::uint64_t bits = static_filter::bits_for(n, p);
  r.add("bits", bits)
      .add("bytes", static_filter::bytes_for(n, p))
      .add("hashes", static_filter::hashes())
      .add("fingerprint_bits", static_filter::fingerprint_bits_for(p))
      .add("bits_per_key", n == 0 ? 0.0 : static_cast<double>(bits) / static_cast<double>(n))
      .add("shards", std::uint64_t{1} << static_filter::shard_bits_for(n))
      .add("estimated_fpp",
           std::ldexp(1.0, -static_cast<int>(static_filter::fingerprint_bits_for(p))));
}

}  // namespace bloomkit
