#pragma once
// The lookup loop and output of a query (`bloomkit query`, `bloomkit redis query`):
//
//   (default)  one line per key, in input order: "1\t<key>" maybe present, "0\t<key>" definitely
//              absent
//   --present  the keys that may be present, one per line (like grep)
//   --absent   the keys that are definitely absent, one per line (like grep -v)
//   --count    one line at the end: "present=<N> absent=<M>"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "output.hpp"

namespace bloomkit::cli {

enum class query_mode { lines, present, absent, count };

// The mutually exclusive --present / --absent / --count flags.
struct query_mode_flags {
  bool present = false;
  bool absent = false;
  bool count = false;
  query_mode mode() const noexcept;
};
void add_query_mode_options(CLI::App& command, query_mode_flags& flags);

class query_printer {
 public:
  query_printer(query_mode mode, buffered_writer& out) : mode_(mode), out_(out) {}

  // Records (and, unless counting, prints) the answers for one batch of keys:
  // results[i] is whether keys[i] may be present.
  void add(std::span<const std::string_view> keys, std::span<const bool> results);
  // Prints the count line in --count mode and flushes the output.
  void finish();

  std::uint64_t present() const noexcept { return present_; }
  std::uint64_t absent() const noexcept { return absent_; }

 private:
  query_mode mode_;
  buffered_writer& out_;
  std::uint64_t present_ = 0;
  std::uint64_t absent_ = 0;
};

// Looks up a batch of keys: results[i] is whether keys[i] may be present.
using batch_lookup = std::function<void(std::span<const std::string_view>, std::span<bool>)>;

// The lookup loop of query and redis query: the keys of `arguments` (key_input.hpp) looked up in
// batches with `lookup`, answers printed in `mode` on stdout, one write per batch (cheap, and a
// pipeline that feeds keys slowly gets answers as they come).
void answer_queries(const std::vector<std::string>& arguments, query_mode mode,
                    const batch_lookup& lookup);

}  // namespace bloomkit::cli
