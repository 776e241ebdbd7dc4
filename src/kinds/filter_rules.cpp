#include "filter_rules.hpp"

#include <limits>
#include <string>

#include "../core/exact_double.hpp"

namespace bloomkit::detail {

void require_writable(bool read_only) {
  if (read_only) {
    throw error(errc::read_only, "filter is read-only (it maps a file); load it to modify it");
  }
}

std::uint64_t count_from_estimate(double estimate, std::uint64_t cells) noexcept {
  if (!(estimate < static_cast<double>(cells))) return cells;
  return static_cast<std::uint64_t>(std::llround(estimate));
}

void require_same_geometry(std::string_view kind, std::string_view cell_name,
                           const filter_config& a, const filter_config& b, const char* operation) {
  auto mismatch = [&](std::string_view what, std::uint64_t mine, std::uint64_t theirs) {
    std::string message = std::string("cannot ") + operation + " ";
    if (!kind.empty()) message += std::string(kind) + " ";
    throw error(errc::incompatible, message + "filters: " + std::string(what) + " differ (" +
                                        std::to_string(mine) + " vs " + std::to_string(theirs) +
                                        ")");
  };
  if (a.cells != b.cells) mismatch(cell_name, a.cells, b.cells);
  if (a.hashes != b.hashes) mismatch("hashes", a.hashes, b.hashes);
  if (a.keys != b.keys) {
    const auto name = [](key_type k) { return k == key_type::int64 ? "long" : "string"; };
    throw error(errc::incompatible, std::string("cannot ") + operation +
                                        " filters: key types differ (" + name(a.keys) + " vs " +
                                        name(b.keys) + ")");
  }
}

void check_storage_size(const filter_config& c, std::uint64_t storage_bits,
                        std::uint32_t bits_per_cell) {
  const std::uint64_t expected = c.cells * bits_per_cell;
  if (storage_bits != expected) {
    throw error(
        errc::invalid_argument,
        "filter storage holds " + std::to_string(storage_bits) + " bits, expected " +
            std::to_string(expected) +
            (bits_per_cell == 1 ? "" : " (" + std::to_string(bits_per_cell) + " per cell)"));
  }
}

std::string capacity_and_fpp_problem(const char* capacity_name, std::uint64_t n, double p) {
  if (n < 1) return std::string(capacity_name) + " must be at least 1 (got 0)";
  if (!in_open_unit_interval(p)) return "target fpp must be in (0, 1), got " + exact_double(p);
  return {};
}

std::string range_problem(const char* what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v >= lo && v <= hi) return {};
  return std::string(what) + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
         ", got " + std::to_string(v);
}

void refuse_key_type(key_type keys) {
  throw error(errc::invalid_argument,
              keys == key_type::int64
                  ? "this filter takes integer keys (key type long), not string keys"
                  : "this filter takes string keys, not integer keys (it was not made with key "
                    "type long)");
}

void refuse_integer_keys(hash_scheme scheme) {
  throw error(errc::invalid_argument, "hash scheme " + std::string(to_string(scheme)) +
                                          " has no integer keys (only the native filters' "
                                          "classic, blocked and counting schemes do)");
}

}  // namespace bloomkit::detail
