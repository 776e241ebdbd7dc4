#include "filter_kinds.hpp"

#include <string>
#include <vector>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "errors.hpp"

namespace bloomkit::cli {

namespace {

const std::vector<std::string> kind_names = {"classic"};

}  // namespace

CLI::Option* add_kind_option(CLI::App& command, std::string& kind) {
  kind = "classic";
  return command.add_option("--kind", kind, "Filter kind (default: classic); see docs/VARIANTS.md")
      ->type_name("KIND")
      ->check(CLI::IsMember(kind_names));
}

any_filter make_filter(std::string_view kind, std::uint64_t capacity, double fpp) {
  try {
    if (kind == "classic") return bloom_filter::for_capacity(capacity, fpp);
  } catch (const error& e) {
    if (e.code() == errc::invalid_argument || e.code() == errc::too_large) {
      throw usage_error(e.what());
    }
    throw;
  }
  throw usage_error(fmt::format("--kind: unknown filter kind '{}'", kind));
}

std::string describe_kind(const any_filter& filter) {
  const hash_scheme scheme = std::visit([](const auto& f) { return f.scheme(); }, filter);
  if (scheme == hash_scheme::xxh3_128)
    return fmt::format("a {} filter", to_string(kind_of(filter)));
  // Interop filters (docs/INTEROP.md) are classic filters with another hash scheme.
  return fmt::format("a {} filter with hash scheme {}", to_string(kind_of(filter)),
                     to_string(scheme));
}

bool inserts_concurrently(const any_filter& filter) noexcept {
  return std::visit([](const auto& f) { return inserts_in_parallel<std::decay_t<decltype(f)>>; },
                    filter);
}

std::size_t insert_many(any_filter& filter, std::span<const std::string_view> keys) {
  return std::visit([&](auto& f) -> std::size_t { return f.insert_many(keys); }, filter);
}

std::size_t contains_many(const any_filter& filter, std::span<const std::string_view> keys,
                          std::span<bool> results) {
  return std::visit([&](const auto& f) -> std::size_t { return f.contains_many(keys, results); },
                    filter);
}

void combine(any_filter& into, std::string_view into_name, const any_filter& other,
             std::string_view other_name, bool intersect) {
  const auto incompatible = [&](const std::string& why) {
    return error(errc::incompatible,
                 fmt::format("{} and {} are incompatible: {}", quoted_name(into_name),
                             quoted_name(other_name), why));
  };
  std::visit(
      [&](auto& a, const auto& b) {
        using A = std::decay_t<decltype(a)>;
        using B = std::decay_t<decltype(b)>;
        if constexpr (!std::is_same_v<A, B>) {
          throw incompatible(fmt::format("{} holds {}, {} holds {}", quoted_name(into_name),
                                         describe_kind(into), quoted_name(other_name),
                                         describe_kind(other)));
        } else if constexpr (!merges<A>) {
          throw error(
              errc::unsupported,
              fmt::format("{} holds {}: filters of this kind cannot be {}", quoted_name(into_name),
                          describe_kind(into), intersect ? "intersected" : "merged"));
        } else {
          try {
            if (intersect) {
              a.intersect(b);
            } else {
              a.merge(b);
            }
          } catch (const error& e) {
            if (e.code() != errc::incompatible) throw;
            throw incompatible(e.what());
          }
        }
      },
      into, other);
}

bool remove(any_filter& filter, std::string_view file, std::string_view key) {
  return std::visit(
      [&](auto& f) -> bool {
        if constexpr (removes_keys<std::decay_t<decltype(f)>>) {
          return f.remove(key);
        } else {
          throw error(errc::unsupported,
                      fmt::format("{} holds {}; only counting filters can remove keys",
                                  quoted_name(file), describe_kind(filter)));
        }
      },
      filter);
}

}  // namespace bloomkit::cli
