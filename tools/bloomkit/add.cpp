// bloomkit add FILE [KEY...] [--now UNIX_SECONDS] [--print-new]
//
// Inserts keys (the KEY arguments, or stdin's lines; "-" is stdin) into an existing filter file
// with the batched insert_many, and saves it (atomically) when anything changed. The file is
// locked from load to save (output_file.hpp): concurrent writers serialize.
// Prints: added <new> new of <keys> keys (on stderr with --print-new, which prints the new keys
// on stdout: new_keys.hpp)
// Warns on stderr when the filter now holds more keys than its capacity (not scalable ones).
// A filter that refuses a key because it is full (a cuckoo filter) keeps the keys it took before
// (saved) and the command fails naming it (filter_kinds.hpp: full_filter_error).

#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/any_filter.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "key_encoding.hpp"
#include "key_input.hpp"
#include "new_keys.hpp"
#include "output_file.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

struct add_options {
  std::string file;
  std::vector<std::string> keys;
  now_option now;
  bool print_new = false;
  std::string key_type;
};

void run_add(const add_options& o) {
  output_file out(o.file);
  auto [filter, header] = compat::open_any(o.file, open_mode::load);
  apply_now(filter, o.now, o.file);
  const key_type key_type = header.keys();
  const std::string name = quoted_name(o.file);
  key_encoder encoder(header, key_input_for(o.key_type, key_type, name), name);
  const auto held = [&] { return std::visit([](const auto& f) { return f.inserted(); }, filter); };
  const std::uint64_t held_before = held();
  key_tally added;
  try {
    added = o.print_new ? insert_printing_new(o.keys,
                                              [&](auto batch, std::span<bool> answers) {
                                                return encoder.apply(batch, [&](auto keys) {
                                                  return insert_many(filter, keys, answers);
                                                });
                                              })
                        : tally_keys(o.keys, [&](auto batch) {
                            return encoder.apply(
                                batch, [&](auto keys) { return insert_many(filter, keys); });
                          });
  } catch (const filter_full&) {
    // A full filter (kinds.hpp: refuses_when_full): the keys it took are kept, then the error.
    save(filter, o.file, key_type);
    out.commit("");
    throw full_filter_error(filter, o.file, held() - held_before);
  }
  const std::uint64_t keys = added.keys;
  const std::uint64_t fresh = added.counted;
  // A key is new when it changed the filter: no new key means the file would not change, except
  // for the kinds that count every insert (kinds.hpp: counting filters, windows).
  const bool counts_every =
      std::visit([]<class F>(const F&) { return counts_every_insert<F>; }, filter);
  if (fresh > 0 || (counts_every && keys > 0)) save(filter, o.file, key_type);
  const std::string result = fmt::format("added {} new of {} keys\n", fresh, keys);
  if (o.print_new) fmt::print(stderr, "{}", result);
  out.commit(o.print_new ? "" : result);
  warn_if_past_capacity(filter, o.file);
}

}  // namespace

command add_add_command(CLI::App& app) {
  auto o = std::make_shared<add_options>();
  CLI::App* sub = app.add_subcommand("add", "Add keys to a filter file");
  add_required_argument(*sub, "FILE", o->file, "Filter file to update");
  add_keys_argument(*sub, o->keys, "add");
  add_now_option(*sub, o->now);
  add_print_new_option(*sub, o->print_new);
  add_key_type_option(*sub, o->key_type,
                      "string, long or binary: the key type FILE holds (checked; the file's own is "
                      "used); binary reads each key as hex");
  return {sub, "add", [o] { run_add(*o); }};
}

}  // namespace bloomkit::cli
