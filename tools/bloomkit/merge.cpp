// bloomkit merge OUT IN... [--intersect]
//
// Writes the union (default) or the intersection of filter files of one kind with identical
// parameters (kinds that cannot be combined, and mixed kinds, are errors).
// Prints: merged <N> filters into OUT (union|intersection)

#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "output_file.hpp"

namespace bloomkit::cli {

namespace {

struct merge_options {
  std::string out;
  std::vector<std::string> inputs;
  bool intersect = false;
};

void run_merge(const merge_options& o) {
  output_file out(o.out);  // before reading: OUT may be an input
  auto [result, header] = compat::open_any(o.inputs.front(), open_mode::load);
  const key_type keys = header.keys();
  for (std::size_t i = 1; i < o.inputs.size(); ++i) {
    const auto [other, other_header] = compat::open_any(o.inputs[i], open_mode::map);
    if (other_header.keys() != keys) {
      throw error(errc::incompatible,
                  fmt::format("{} and {} are incompatible: one holds 64-bit integer keys, the "
                              "other text keys",
                              quoted_name(o.inputs.front()), quoted_name(o.inputs[i])));
    }
    combine(result, o.inputs.front(), other, o.inputs[i], o.intersect);
  }
  save(result, o.out, keys);
  out.commit(fmt::format("merged {} filters into {} ({})\n", o.inputs.size(), printable(o.out),
                         o.intersect ? "intersection" : "union"));
}

}  // namespace

command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<merge_options>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Write the union (or intersection) of filters with identical parameters");
  add_required_argument(*sub, "OUT", o->out, "Filter file to write (replaced if it exists)");
  add_required_argument(*sub, "IN", o->inputs, "Filter files to combine (at least one)");
  sub->add_flag("--intersect", o->intersect, "Intersection instead of union");
  return {sub, "merge", [o] { run_merge(*o); }};
}

}  // namespace bloomkit::cli
