#pragma once
// The filter kinds of `create` / `build --kind` (the native kinds of the registry, kinds.hpp), and
// the operations commands apply to a filter of whichever kind a file holds, the peers' filters
// included (bloomkit::compat::any_filter). An operation a kind does not have (merge of a scalable
// filter, remove from a classic one) is an error naming the file and its kind.

#include <concepts>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/compat/any_filter.hpp"

namespace bloomkit::cli {

// The tool opens every kind a file can hold.
using compat::any_filter;
using compat::check_mapped_file;
using compat::kind_of;
using compat::load_any;
using compat::map_any;
using compat::save;

// What a kind can do beyond the common surface.
template <class Filter>
concept removes_keys = requires(Filter& f, std::string_view key) {
  { f.remove(key) } -> std::same_as<bool>;
};
template <class Filter>
concept merges = requires(Filter& f, const Filter& other) {
  f.merge(other);
};
// The kinds `merge --intersect` takes (docs/CLI.md): set filters (every filter has intersect(),
// but the counting filter's counter minimum and the scalable filter's refusal stay off the CLI).
template <class Filter>
concept intersects = requires(Filter& f, const Filter& other) {
  f.intersect(other);
  typename Filter::storage_type;
}
&&!Filter::storage_type::removable;
template <class Filter>
concept inserts_in_parallel = requires(Filter& f, std::span<const std::string_view> keys) {
  f.insert_many_concurrent(keys);
};
template <class Filter>
concept inserts_integers_in_parallel = requires(Filter& f, std::span<const std::uint64_t> keys) {
  f.insert_integers_concurrent(keys);
};

// --window DURATION|COUNT (parsed by window_options.hpp) and --slices S of window filters.
struct window_length_options {
  std::string window;
  std::uint32_t slices = 8;
  CLI::Option* window_option = nullptr;
  CLI::Option* slices_option = nullptr;
  bool given() const { return window_option != nullptr && window_option->count() > 0; }
};
// Registers them with their help texts: what --window takes (`window_type`) and means, and what
// --slices means.
void add_window_length_options(CLI::App& command, window_length_options& o,
                               const std::string& window_help, const std::string& window_type,
                               const std::string& slices_help);

// --kind and the scalable and window filters' parameters, as create and build take them.
struct kind_options : window_length_options {
  std::string kind = "classic";
  std::uint32_t growth = 2;
  double tightening = 0.5;
  std::uint64_t max_memory = 0;     // bytes; 0 = no ceiling
  std::string key_type = "string";  // --key-type string|long
  CLI::Option* growth_option = nullptr;
  CLI::Option* tightening_option = nullptr;
  CLI::Option* max_memory_option = nullptr;
};

// --kind with the names of the native kinds (kinds.hpp: classic|blocked|counting|scalable|window;
// default classic), for growing (scalable) filters --growth S, --tightening R and --max-memory
// BYTES, for window filters --window DURATION|COUNT and --slices S, and --key-type string|long
// (long: 64-bit integer keys, classic, blocked and counting only).
void add_kind_options(CLI::App& command, kind_options& options);

// Throws usage_error when a scalable or window filter's option was given with another kind,
// --kind window without --window, or --key-type long with a kind that takes no integer keys.
void check_kind_options(const kind_options& options);

// The empty filter a create or build asks for. Out-of-range values, and scalable options with
// another kind, are usage errors (exit 2).
any_filter make_filter(const kind_options& options, std::uint64_t capacity, double fpp);

// k of a filter (of a scalable filter: of its first sub-filter).
std::uint32_t hashes_of(const any_filter& filter) noexcept;

// "a classic filter", "a counting filter": for messages.
std::string describe_kind(const any_filter& filter);

// Whether a filter of this kind takes concurrent inserts (build uses every core for those).
bool inserts_concurrently(const any_filter& filter) noexcept;

// What insert_many throws when a filter that refuses inserts once full (kinds.hpp:
// refuses_when_full, a cuckoo filter) stored only the first `stored` keys of a batch.
struct filter_full {
  std::uint64_t stored = 0;
};
// The error that `file`, found full, is reported with: it names the file, the keys it took
// (`added`: kept) and its load, and says the rest were not added. errc::too_large.
error full_filter_error(const any_filter& filter, std::string_view file, std::uint64_t added);

// Batched insert and lookup, whatever the kind. Throws filter_full as above.
std::size_t insert_many(any_filter& filter, std::span<const std::string_view> keys);
// As above, and added[i]: whether keys[i] was new (detail/answered_inserts.hpp).
std::size_t insert_many(any_filter& filter, std::span<const std::string_view> keys,
                        std::span<bool> added);
std::size_t contains_many(const any_filter& filter, std::span<const std::string_view> keys,
                          std::span<bool> results);
// The same of integer keys (a filter of integer keys; others refuse: integer_keys.hpp).
std::size_t insert_many(any_filter& filter, std::span<const std::uint64_t> keys);
std::size_t insert_many(any_filter& filter, std::span<const std::uint64_t> keys,
                        std::span<bool> added);
std::size_t contains_many(const any_filter& filter, std::span<const std::uint64_t> keys,
                          std::span<bool> results);

// --key-type string|long of add and query, which the file's own key type must match (a usage
// error naming the file otherwise); the key type the file records is what counts.

// into |= other (union) or into &= other (intersection). Throws errc::incompatible naming both
// files when their kinds differ or the kind cannot be combined.
void combine(any_filter& into, std::string_view into_name, const any_filter& other,
             std::string_view other_name, bool intersect);

// Warns on stderr (warn_past_capacity) when the filter of `file` holds more keys than its
// capacity: inserted() > capacity(); for a counting filter, whose inserted() counts repeats, when
// the distinct keys estimated from its counters are past it beyond the estimate's error. Never
// for scalable filters, which grow instead, nor for filters imported from another system's
// format, whose capacity is only inferred from m and k (docs/INTEROP.md).
void warn_if_past_capacity(const any_filter& filter, std::string_view file);

// Removes one key from a counting or cuckoo filter; true if it was (probably) present. Throws
// errc::unsupported naming the file for kinds that cannot remove.
bool remove(any_filter& filter, std::string_view file, std::string_view key);

}  // namespace bloomkit::cli
