#pragma once
// `bloomkit add --print-new` and `bloomkit redis add --print-new`: the insert loop that also
// prints each key that was new (what insert answers: no cell of it was set, or for a window, not
// inserted within the window), one per line in input order, so that the command is a filter in
// a pipeline: `crawl_queue | bloomkit add --print-new seen.bf | fetch` fetches each URL once per
// window. The keys of a batch are printed once the batch is inserted; the result line
// ("added N new of M keys") then goes to stderr.

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "key_input.hpp"

namespace bloomkit::cli {

void add_print_new_option(CLI::App& command, bool& print_new);

// Inserts a batch: added[i] is whether keys[i] was new; returns how many were.
using answered_insert =
    std::function<std::uint64_t(std::span<const std::string_view>, std::span<bool>)>;

// The keys of `arguments` (key_input.hpp) inserted in batches with `insert`, the new ones
// printed on stdout after each batch (flushed, so that a slow pipeline gets them as they come).
key_tally insert_printing_new(const std::vector<std::string>& arguments,
                              const answered_insert& insert);

}  // namespace bloomkit::cli
