// bloomkit size --capacity N --fpp P [--json]
//
// The sizing calculator: the bits, bytes and hashes of a filter for N keys at FPP P, exactly
// what `create` and `build` would make.

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/sizing.hpp"
#include "commands.hpp"
#include "json.hpp"

namespace bloomkit::cli {

namespace {

struct size_options {
  std::string capacity;
  double fpp = 0;
  bool json = false;
};

void run_size(const size_options& o) {
  const std::uint64_t capacity = parse_count(o.capacity, "--capacity");
  const filter_params params = validate_sizing(capacity, o.fpp);
  report r;
  r.add("capacity", capacity)
      .add("fpp", o.fpp)
      .add("bits", params.bits)
      .add("bytes", bytes_for_bits(params.bits))
      .add("hashes", params.hashes);
  fmt::print("{}", o.json ? r.json() : r.text());
}

}  // namespace

command add_size_command(CLI::App& app) {
  auto o = std::make_shared<size_options>();
  CLI::App* sub = app.add_subcommand("size", "Compute the size of a filter for N keys at FPP P");
  add_capacity_option(*sub, o->capacity)->required();
  add_fpp_option(*sub, o->fpp)->required();
  sub->add_flag("--json", o->json, "Print one JSON object");
  return {sub, "size", [o] { run_size(*o); }};
}

}  // namespace bloomkit::cli
