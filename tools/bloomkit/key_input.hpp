#pragma once
// Keys for add / remove / query and `bloomkit redis add|query`: from the command line's KEY
// arguments, or else from stdin's lines; a KEY argument "-" stands for stdin's lines at that
// point. Keys arrive in batches (spans of string_views) so that the caller can use the
// library's batched insert_many / contains_many; stdin is streamed block by block, never read
// whole into memory.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::cli {

// Keys per batch handed to the library's batched paths.
inline constexpr std::size_t default_key_batch = 4096;

// Receives successive batches of keys; the string_views are valid only during the call.
using key_batch_handler = std::function<void(std::span<const std::string_view>)>;

// Calls `handler` with every key, in input order, in batches of at most `batch_size` keys:
// the keys of `arguments` verbatim, except "-" which stands for stdin's lines; stdin's lines
// when `arguments` is empty. A batch never spans two blocks of stdin, so a slowly arriving
// stdin gets each line handled as soon as it arrives.
void read_keys(const std::vector<std::string>& arguments, const key_batch_handler& handler,
               std::size_t batch_size = default_key_batch);

// Calls `handler` with the keys of the stream on `fd` (named `name` in errors), as above.
void read_stream_keys(int fd, const std::string& name, const key_batch_handler& handler,
                      std::size_t batch_size = default_key_batch);

// What an insert or remove loop reports: keys read, and how many of them the batch operation
// counted (new keys for add, removed keys for remove).
struct key_tally {
  std::uint64_t keys = 0;
  std::uint64_t counted = 0;
};
// Applies a batch operation to a batch of keys and returns how many it counted.
using batch_counter = std::function<std::uint64_t(std::span<const std::string_view>)>;

// The insert loop of add, remove and redis add: read_keys(arguments) with `apply` on every batch.
key_tally tally_keys(const std::vector<std::string>& arguments, const batch_counter& apply);

}  // namespace bloomkit::cli
