#include "key_input.hpp"

#include <unistd.h>

#include <algorithm>

#include "input.hpp"
#include "line_stream.hpp"

namespace bloomkit::cli {

void read_stream_keys(int fd, const std::string& name, const key_batch_handler& handler,
                      std::size_t batch_size) {
  batch_size = std::max<std::size_t>(batch_size, 1);
  line_stream stream(fd, name);
  line_buffer block;
  std::vector<std::string_view> keys;
  keys.reserve(batch_size);
  while (stream.next(block)) {
    for_each_line(block.lines(), [&](std::string_view key) {
      keys.push_back(key);
      if (keys.size() == batch_size) {
        handler(keys);
        keys.clear();
      }
    });
    // The views point into `block`: hand them out before it is refilled.
    if (!keys.empty()) {
      handler(keys);
      keys.clear();
    }
  }
}

void read_keys(const std::vector<std::string>& arguments, const key_batch_handler& handler,
               std::size_t batch_size) {
  batch_size = std::max<std::size_t>(batch_size, 1);
  if (arguments.empty()) {
    read_stream_keys(STDIN_FILENO, "-", handler, batch_size);
    return;
  }
  std::vector<std::string_view> keys;
  keys.reserve(std::min(batch_size, arguments.size()));
  const auto flush = [&] {
    if (!keys.empty()) handler(keys);
    keys.clear();
  };
  for (const std::string& argument : arguments) {
    if (argument == "-") {
      flush();
      read_stream_keys(STDIN_FILENO, "-", handler, batch_size);
      continue;
    }
    keys.push_back(argument);
    if (keys.size() == batch_size) flush();
  }
  flush();
}

key_tally tally_keys(const std::vector<std::string>& arguments, const batch_counter& apply) {
  key_tally tally;
  read_keys(arguments, [&](std::span<const std::string_view> batch) {
    tally.keys += batch.size();
    tally.counted += apply(batch);
  });
  return tally;
}

}  // namespace bloomkit::cli
