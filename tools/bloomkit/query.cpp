// bloomkit query FILE [KEY...] [--present | --absent | --count] [--now UNIX_SECONDS]
//                [--key-type string|long|binary]
//
// Looks keys up in a mapped filter file of any kind (no copy: compat::open_any, open_mode::map),
// or in a Spark writeTo file read directly (spark_file.hpp), with the batched contains_many,
// streaming stdin in blocks. Output: see query_output.hpp. Keys are encoded as the key type of
// the same open's header says, or --key-type (binary: hex keys; key_encoding.hpp).

#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/any_filter.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "key_encoding.hpp"
#include "query_output.hpp"
#include "spark_file.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

struct query_options {
  std::string file;
  std::vector<std::string> keys;
  query_mode_flags flags;
  now_option now;
  std::string key_type;  // empty: the file's
};

void run_query(const query_options& o) {
  auto [filter, header] = open_filter_file(o.file, open_mode::map, key_type_of(o.key_type));
  apply_now(filter, o.now, o.file);
  const std::string name = quoted_name(o.file);
  key_encoder encoder(header, key_input_for(o.key_type, header.keys(), name), name);
  answer_queries(o.keys, o.flags.mode(), [&](auto batch, auto answers) {
    encoder.apply(batch, [&](auto keys) { return contains_many(filter, keys, answers); });
  });
}

}  // namespace

command add_query_command(CLI::App& app) {
  auto o = std::make_shared<query_options>();
  CLI::App* sub = app.add_subcommand(
      "query", "Look keys up: \"1<TAB>key\" maybe present, \"0<TAB>key\" definitely absent");
  add_required_argument(*sub, "FILE", o->file, "Filter file to query");
  add_keys_argument(*sub, o->keys, "look up");
  add_query_mode_options(*sub, o->flags);
  add_now_option(*sub, o->now);
  add_key_type_option(*sub, o->key_type,
                      "How keys are hashed: string (their bytes), long (signed 64-bit decimals), "
                      "binary (hex, hashed as the bytes it spells). Default: the file's key type; "
                      "string for a Spark file");
  return {sub, "query", [o] { run_query(*o); }};
}

}  // namespace bloomkit::cli
