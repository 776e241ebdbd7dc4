#include "filter_kinds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/detail/answered_inserts.hpp"
#include "bloomkit/error.hpp"
#include "cli_error.hpp"
#include "key_encoding.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

// A visitor of several lambdas.
template <class... Lambdas>
struct overloaded : Lambdas... {
  using Lambdas::operator()...;
};

std::vector<std::string> kind_choices() {
  std::vector<std::string> names;
  for (const kind_name& k : kind_names) names.emplace_back(k.name);
  return names;
}

// The empty filter of the native kind named `kind` (one --kind accepts).
// Whether the native kind named `kind` takes the growth parameters.
template <class... Filters>
bool grows(std::string_view kind, filter_list<Filters...>) {
  return ((kind_traits<Filters>::name == kind && kind_traits<Filters>::grows) || ...);
}

// Whether the native kind named `kind` takes a window.
template <class... Filters>
bool windowed(std::string_view kind, filter_list<Filters...>) {
  return ((kind_traits<Filters>::name == kind && takes_window<Filters>) || ...);
}

}  // namespace

void add_kind_options(CLI::App& command, kind_options& o) {
  command.add_option("--kind", o.kind, "Filter kind (default: classic); see docs/VARIANTS.md")
      ->type_name("KIND")
      ->check(CLI::IsMember(kind_choices()));
  o.growth_option =
      add_whole_number_option(
          command, "--growth", o.growth, std::uint32_t{1}, scalable_bloom_filter::max_growth,
          "Scalable: each new sub-filter holds S times the keys of the last (default 2)")
          ->type_name("S");
  o.tightening_option = add_real_option(command, "--tightening", o.tightening,
                                        "Scalable: each new sub-filter's FPP is R times the last's "
                                        "(default 0.5)")
                            ->type_name("R");
  o.max_memory_option = add_whole_number_option(
                            command, "--max-memory", o.max_memory, std::uint64_t{0},
                            std::numeric_limits<std::uint64_t>::max(),
                            "Scalable: never grow past this many bytes of bits (default: no limit)")
                            ->type_name("BYTES");
  add_key_type_option(command, o.key_type,
                      "string: keys are byte strings (binary: the same, read as hex by add and "
                      "query); long: 64-bit integers, one decimal per line, hashed by the integer "
                      "scheme (classic, blocked, counting). Default: string");
  add_window_length_options(command, o,
                            "Window: forget keys older than DURATION (90s, 15m, 24h, 7d) or than "
                            "the last COUNT inserts; see docs/VARIANTS.md",
                            "DURATION|COUNT",
                            "Window: slices per window (default 8); keys are forgotten between "
                            "W and W + W/S after their insert");
}

void add_window_length_options(CLI::App& command, window_length_options& o,
                               const std::string& window_help, const std::string& window_type,
                               const std::string& slices_help) {
  o.window_option = command.add_option("--window", o.window, window_help)->type_name(window_type);
  o.slices_option = add_whole_number_option(command, "--slices", o.slices, std::uint32_t{1},
                                            window_slices::max_slices, slices_help)
                        ->type_name("S");
}

void check_kind_options(const kind_options& o) {
  const auto only_for = [](std::initializer_list<const CLI::Option*> options,
                           std::string_view kind) {
    for (const CLI::Option* option : options) {
      if (option != nullptr && option->count() > 0) {
        throw usage_error(fmt::format("{} applies only to --kind {}", option->get_name(), kind));
      }
    }
  };
  if (!grows(o.kind, native_kinds{})) {
    only_for({o.growth_option, o.tightening_option, o.max_memory_option}, "scalable");
  }
  if (!windowed(o.kind, native_kinds{})) {
    only_for({o.window_option, o.slices_option}, "window");
  } else if (o.window_option == nullptr || o.window_option->count() == 0) {
    throw usage_error(
        "--kind window needs --window DURATION|COUNT (90s, 15m, 24h, 7d, or a "
        "number of inserts)");
  }
  if (o.key_type == "long" && o.kind != "classic" && o.kind != "blocked" && o.kind != "counting") {
    throw usage_error(fmt::format(
        "--key-type long applies only to --kind classic, blocked or counting (a {} filter takes "
        "string keys)",
        o.kind));
  }
}

any_filter make_filter(const kind_options& o, std::uint64_t capacity, double fpp) {
  check_kind_options(o);
  kind_request request;
  static_cast<scalable_params&>(request) = {capacity, fpp, o.growth, o.tightening, o.max_memory};
  request.keys = o.key_type == "long" ? key_type::int64 : key_type::string;
  if (windowed(o.kind, native_kinds{})) {
    const window_length window = parse_window(o.window, "--window");
    request.window = window.length;
    request.unit = window.unit;
    request.slices = o.slices;
  }
  return as_usage_error([&] {
    std::optional<any_filter> f = create_any_of<any_filter>(native_kinds{}, o.kind, request);
    if (!f) throw usage_error(fmt::format("unknown filter kind '{}'", o.kind));
    return std::move(*f);
  });
}

std::uint32_t hashes_of(const any_filter& filter) noexcept {
  return std::visit([](const auto& f) { return kind_traits<std::decay_t<decltype(f)>>::hashes(f); },
                    filter);
}

std::string describe_kind(const any_filter& filter) {
  const filter_kind kind = kind_of(filter);
  const hash_scheme scheme = std::visit([](const auto& f) { return f.scheme(); }, filter);
  // Interop filters (docs/INTEROP.md) are classic filters with another system's hash scheme.
  if (kind == filter_kind::classic && scheme != hash_scheme::xxh3_128) {
    return fmt::format("a {} filter with hash scheme {}", to_string(kind), to_string(scheme));
  }
  return fmt::format("a {} filter", to_string(kind));
}

bool inserts_concurrently(const any_filter& filter) noexcept {
  return std::visit([](const auto& f) { return inserts_in_parallel<std::decay_t<decltype(f)>>; },
                    filter);
}

error full_filter_error(const any_filter& filter, std::string_view file, std::uint64_t added) {
  const auto [held, load] = std::visit(
      [](const auto& f) {
        return std::pair{f.inserted(), f.fill_ratio()};
      },
      filter);
  return error(errc::too_large,
               fmt::format("{} is full: it took {} of the keys and refused the next ({}, {} "
                           "fingerprints, load factor {:.3f}); the keys it took were saved, the "
                           "rest were not added (create it with a larger --capacity)",
                           quoted_name(file), added, describe_kind(filter), held, load));
}

std::size_t insert_many(any_filter& filter, std::span<const std::string_view> keys) {
  return std::visit(
      [&]<class F>(F& f) -> std::size_t {
        const std::size_t stored = f.insert_many(keys);
        if constexpr (refuses_when_full<F>) {
          if (stored < keys.size()) throw filter_full{stored};
        }
        return stored;
      },
      filter);
}

std::size_t insert_many(any_filter& filter, std::span<const std::string_view> keys,
                        std::span<bool> added) {
  return std::visit(
      [&]<class F>(F& f) -> std::size_t {
        if constexpr (refuses_when_full<F>) {
          // Every insert it stores is new to it (it counts repeats): the stored prefix.
          detail::require_result_slots(keys.size(), added.size(), "insert_many");
          const std::size_t stored = f.insert_many(keys);
          for (std::size_t i = 0; i < keys.size(); ++i) added[i] = i < stored;
          if (stored < keys.size()) throw filter_full{stored};
          return stored;
        } else {
          return detail::insert_many_answering(f, keys, added);
        }
      },
      filter);
}

std::size_t contains_many(const any_filter& filter, std::span<const std::string_view> keys,
                          std::span<bool> results) {
  return std::visit([&](const auto& f) -> std::size_t { return f.contains_many(keys, results); },
                    filter);
}

std::size_t insert_many(any_filter& filter, std::span<const std::uint64_t> keys) {
  return insert_integers(filter, keys);
}

std::size_t insert_many(any_filter& filter, std::span<const std::uint64_t> keys,
                        std::span<bool> added) {
  return insert_integers(filter, keys, added);
}

std::size_t contains_many(const any_filter& filter, std::span<const std::uint64_t> keys,
                          std::span<bool> results) {
  return contains_integers(filter, keys, results);
}

void combine(any_filter& into, std::string_view into_name, const any_filter& other,
             std::string_view other_name, bool intersect) {
  const auto incompatible = [&](const std::string& why) {
    return error(errc::incompatible,
                 fmt::format("{} and {} are incompatible: {}", quoted_name(into_name),
                             quoted_name(other_name), why));
  };
  // Filters of two types are incompatible; the overload of one type is the more specialized.
  const auto differ = [&](auto&, const auto&) {
    throw incompatible(fmt::format("{} holds {}, {} holds {}", quoted_name(into_name),
                                   describe_kind(into), quoted_name(other_name),
                                   describe_kind(other)));
  };
  const auto same = [&]<class A>(A& a, const A& b) {
    const auto cannot = [&] {
      return error(errc::unsupported, fmt::format("{} holds {}: filters of this kind cannot be {}",
                                                  quoted_name(into_name), describe_kind(into),
                                                  intersect ? "intersected" : "merged"));
    };
    try {
      if (intersect) {
        if constexpr (intersects<A>) {
          a.intersect(b);
        } else {
          throw cannot();
        }
      } else {
        a.merge(b);  // a kind without a union (scalable) throws errc::unsupported
      }
    } catch (const error& e) {
      if (e.code() == errc::unsupported) throw cannot();
      if (e.code() != errc::incompatible) throw;
      throw incompatible(e.what());
    }
  };
  std::visit(overloaded{differ, same}, into, other);
}

void warn_if_past_capacity(const any_filter& filter, std::string_view file) {
  std::visit(
      [&]<class Filter>(const Filter& f) {
        constexpr capacity_check check = capacity_check_of<Filter>;
        if constexpr (check == capacity_check::distinct_keys) {
          // Its inserted() counts repeats too (each needs a remove), so the distinct keys are
          // estimated from the non-zero counters.
          const double n = f.estimated_count();
          if (estimate_past(static_cast<double>(f.counters()), f.hashes(), n, f.capacity())) {
            // Every counter non-zero (n infinite): its count of inserts is all there is.
            warn_past_capacity(quoted_name(file), std::isfinite(n) ? keys_held(0, n) : f.inserted(),
                               f.capacity(), f.estimated_fpp(), f.target_fpp());
          }
        } else if constexpr (check == capacity_check::inserted) {
          if (f.inserted() > f.capacity()) {
            warn_past_capacity(quoted_name(file), keys_held(f.inserted(), f.estimated_count()),
                               f.capacity(), f.estimated_fpp(), f.target_fpp());
          }
        } else if constexpr (check == capacity_check::slice_share) {
          // A window's slices are sized for capacity / S keys each: a burst overfills one.
          if (const std::uint64_t held = f.fullest_slice_keys(); held > f.slice_share()) {
            warn_slice_past_share(quoted_name(file), f.capacity(), f.slices(), held,
                                  f.estimated_fpp(), f.target_fpp());
          }
        }
      },
      filter);
}

bool remove(any_filter& filter, std::string_view file, std::string_view key) {
  return std::visit(
      [&](auto& f) -> bool {
        using F = std::decay_t<decltype(f)>;
        if constexpr (removes_keys<F>) {
          if constexpr (takes_integer_keys<F>) {
            if (f.keys() == key_type::int64) {
              return f.remove_integer(parse_integer_key(key, quoted_name(file)));
            }
          }
          return f.remove(key);
        } else {
          throw error(errc::unsupported,
                      fmt::format("{} holds {}; only counting and cuckoo filters can remove keys",
                                  quoted_name(file), describe_kind(filter)));
        }
      },
      filter);
}

}  // namespace bloomkit::cli
