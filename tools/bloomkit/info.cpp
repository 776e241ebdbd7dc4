// bloomkit info FILE [--json] [--now UNIX_SECONDS]
//
// Describes a filter file of any kind: its header (format version, kind, hash scheme, parameters)
// and figures computed from its bits (estimated count, fill ratio, estimated FPP). The file is
// mapped and fully verified (header and payload checksums). A Spark writeTo file is read directly
// (spark_file.hpp): `format: spark` in place of format_version. A Spark V1 filter gets a warning
// on stderr (V1's FPP past about 10^8 items).

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "json.hpp"
#include "spark_file.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

struct info_options {
  std::string file;
  bool json = false;
  now_option now;
};

void run_info(const info_options& o) {
  const bool spark = is_spark_file(o.file);
  auto [filter, header] =
      spark ? open_spark_file(o.file, key_type::string) : compat::open_any(o.file, open_mode::map);
  apply_now(filter, o.now, o.file);
  report r;
  r.add("file", o.file);
  if (spark) {
    r.add("format", "spark");
  } else {
    r.add("format_version", header.format_version);
  }
  r.add("kind", to_string(header.kind)).add("hash_scheme", to_string(header.scheme));
  // Only files of 64-bit integer keys (imported with --key-type long) say so; every other file's
  // fields are as they always were.
  if (header.keys() == key_type::int64) r.add("key_type", "long");
  std::visit([&](const auto& f) { report_figures(f, r); }, filter);
  check_mapped_file(filter);  // the figures were read from the mapping
  warn_if_spark_v1(filter, o.file);
  fmt::print("{}", o.json ? r.json() : r.text());
}

}  // namespace

command add_info_command(CLI::App& app) {
  auto o = std::make_shared<info_options>();
  CLI::App* sub = app.add_subcommand("info", "Describe a filter file");
  add_required_argument(*sub, "FILE", o->file, "Filter file");
  sub->add_flag("--json", o->json, "Print one JSON object");
  add_now_option(*sub, o->now);
  return {sub, "info", [o] { run_info(*o); }};
}

}  // namespace bloomkit::cli
