// bloomkit remove FILE [KEY...]
//
// Removes keys (the KEY arguments, or stdin's lines; "-" is stdin) from a counting or cuckoo
// filter file and saves it (atomically) when anything changed. A key that is definitely absent is
// left alone (counting_bloom_filter::remove and cuckoo_filter::remove refuse it). Other kinds
// cannot remove: an error naming the kind.
// Prints: removed <removed> of <keys> keys

#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "key_input.hpp"
#include "output_file.hpp"

namespace bloomkit::cli {

namespace {

struct remove_options {
  std::string file;
  std::vector<std::string> keys;
};

void run_remove(const remove_options& o) {
  output_file out(o.file);
  any_filter filter = load_any(o.file);
  const key_tally removed = tally_keys(o.keys, [&](auto batch) {
    std::uint64_t n = 0;
    for (std::string_view key : batch) n += remove(filter, o.file, key) ? 1 : 0;
    return n;
  });
  if (removed.counted > 0) save(filter, o.file);
  out.commit(fmt::format("removed {} of {} keys\n", removed.counted, removed.keys));
}

}  // namespace

command add_remove_command(CLI::App& app) {
  auto o = std::make_shared<remove_options>();
  CLI::App* sub = app.add_subcommand("remove", "Remove keys from a counting or cuckoo filter file");
  add_required_argument(*sub, "FILE", o->file, "Counting filter file to update");
  add_keys_argument(*sub, o->keys, "remove");
  return {sub, "remove", [o] { run_remove(*o); }};
}

}  // namespace bloomkit::cli
