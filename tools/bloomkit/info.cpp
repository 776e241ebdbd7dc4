// bloomkit info FILE [--json] [--now UNIX_SECONDS]
//
// Describes a filter file of any kind: its header (format version, kind, hash scheme, parameters)
// and figures computed from its bits (estimated count, fill ratio, estimated FPP). The file is
// mapped and fully verified (header and payload checksums).

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "json.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

struct info_options {
  std::string file;
  bool json = false;
  now_option now;
};

void run_info(const info_options& o) {
  auto [filter, header] = compat::open_any(o.file, open_mode::map);
  apply_now(filter, o.now, o.file);
  report r;
  r.add("file", o.file)
      .add("format_version", header.format_version)
      .add("kind", to_string(header.kind))
      .add("hash_scheme", to_string(header.scheme));
  // Only files of 64-bit integer keys (imported with --key-type long) say so; every other file's
  // fields are as they always were.
  if (header.keys() == key_type::int64) r.add("key_type", "long");
  std::visit([&](const auto& f) { report_figures(f, r); }, filter);
  check_mapped_file(filter);  // the figures were read from the mapping
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
