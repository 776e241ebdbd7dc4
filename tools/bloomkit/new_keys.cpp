#include "new_keys.hpp"

#include <memory>

#include "output.hpp"

namespace bloomkit::cli {

void add_print_new_option(CLI::App& command, bool& print_new) {
  command.add_flag("--print-new", print_new,
                   "Print the keys that were new, one per line in input order (the result line "
                   "goes to stderr)");
}

key_tally insert_printing_new(const std::vector<std::string>& arguments,
                              const answered_insert& insert) {
  buffered_writer out(stdout);
  const auto added = std::make_unique<bool[]>(default_key_batch);
  key_tally tally;
  read_keys(arguments, [&](std::span<const std::string_view> batch) {
    const std::span<bool> answers(added.get(), batch.size());
    tally.keys += batch.size();
    tally.counted += insert(batch, answers);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!answers[i]) continue;
      out.write(batch[i]);
      out.put('\n');
    }
    out.flush();
  });
  return tally;
}

}  // namespace bloomkit::cli
