// bloomkit info FILE [--json]
//
// Describes a filter file: its header (format version, kind, hash scheme, parameters) and
// figures computed from its bits (estimated count, fill ratio, estimated FPP). The file is
// mapped and fully verified (header and payload checksums). Files of every hash scheme
// (filter_dispatch.hpp); a file of 64-bit integer keys adds "key_type: long".

#include <memory>
#include <string>

#include <fmt/core.h>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "commands.hpp"
#include "filter_dispatch.hpp"
#include "json.hpp"

namespace bloomkit::cli {

namespace {

struct info_options {
  std::string file;
  bool json = false;
};

void run_info(const info_options& o) {
  const file_header header = read_header(o.file);
  with_mapped_filter(o.file, [&](const auto& filter) {
    report r;
    r.add("file", o.file)
        .add("format_version", header.format_version)
        .add("kind", to_string(header.kind))
        .add("hash_scheme", to_string(header.scheme));
    // Only files of 64-bit integer keys (imported with --key-type long) say so; every other
    // file's fields are as they always were.
    if (header.keys() == key_type::int64) r.add("key_type", "long");
    r.add("bits", filter.bits())
        .add("bytes", static_cast<std::uint64_t>(filter.byte_size()))
        .add("hashes", filter.hashes())
        .add("capacity", filter.capacity())
        .add("target_fpp", filter.target_fpp())
        .add("inserted", filter.inserted())
        .add("estimated_count", filter.estimated_count())
        .add("fill_ratio", filter.fill_ratio())
        .add("estimated_fpp", filter.estimated_fpp());
    fmt::print("{}", o.json ? r.json() : r.text());
  });
}

}  // namespace

command add_info_command(CLI::App& app) {
  auto o = std::make_shared<info_options>();
  CLI::App* sub = app.add_subcommand("info", "Describe a filter file");
  sub->add_option("FILE", o->file, "Filter file")->type_name("")->required();
  sub->add_flag("--json", o->json, "Print one JSON object");
  return {sub, "info", [o] { run_info(*o); }};
}

}  // namespace bloomkit::cli
