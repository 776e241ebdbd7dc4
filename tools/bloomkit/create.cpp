// bloomkit create FILE --capacity N --fpp P [--kind K [--growth S] [--tightening R]
//                 [--max-memory BYTES]] [--window DURATION|COUNT [--slices S]] [--now T]
//
// Writes an empty filter sized for N keys at false-positive probability P.
// Prints: created FILE: <bits> bits, <bytes> bytes, <hashes> hashes

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "names.hpp"
#include "output_file.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

struct create_options {
  std::string file;
  std::string capacity;
  double fpp = 0;
  kind_options kind;
  now_option now;
};

void run_create(const create_options& o) {
  const std::uint64_t capacity = parse_count(o.capacity, "--capacity");
  validate_sizing(capacity, o.fpp);
  any_filter filter = make_filter(o.kind, capacity, o.fpp);
  apply_now(filter, o.now, o.file);
  output_file out(o.file);
  save(filter, o.file);
  out.commit(std::visit(
      [&](const auto& f) {
        return fmt::format("created {}: {} bits, {} bytes, {} hashes\n", printable(o.file),
                           f.cells(), f.byte_size(), hashes_of(filter));
      },
      filter));
}

}  // namespace

command add_create_command(CLI::App& app) {
  auto o = std::make_shared<create_options>();
  CLI::App* sub = app.add_subcommand("create", "Create an empty filter file");
  add_required_argument(*sub, "FILE", o->file, "Filter file to write (replaced if it exists)");
  add_capacity_option(*sub, o->capacity)->required();
  add_fpp_option(*sub, o->fpp)->required();
  add_kind_options(*sub, o->kind);
  add_now_option(*sub, o->now);
  return {sub, "create", [o] { run_create(*o); }};
}

}  // namespace bloomkit::cli
