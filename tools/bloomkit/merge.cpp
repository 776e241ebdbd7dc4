// bloomkit merge OUT IN... [--intersect]
//
// Writes the union (default) or the intersection of filter files with identical parameters.
// Prints: merged <N> filters into OUT (union|intersection)

#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "commands.hpp"
#include "errors.hpp"

namespace bloomkit::cli {

namespace {

struct merge_options {
  std::string out;
  std::vector<std::string> inputs;
  bool intersect = false;
};

void run_merge(const merge_options& o) {
  bloom_filter result = load(o.inputs.front());
  for (std::size_t i = 1; i < o.inputs.size(); ++i) {
    const bloom_filter other = map(o.inputs[i]);
    try {
      if (o.intersect) {
        result.intersect(other);
      } else {
        result.merge(other);
      }
    } catch (const error& e) {
      if (e.code() != errc::incompatible) throw;
      throw error(errc::incompatible,
                  fmt::format("{} and {} are incompatible: {}", quoted_name(o.inputs.front()),
                              quoted_name(o.inputs[i]), e.what()));
    }
  }
  save(result, o.out);
  fmt::print("merged {} filters into {} ({})\n", o.inputs.size(), o.out,
             o.intersect ? "intersection" : "union");
}

}  // namespace

command add_merge_command(CLI::App& app) {
  auto o = std::make_shared<merge_options>();
  CLI::App* sub = app.add_subcommand(
      "merge", "Write the union (or intersection) of filters with identical parameters");
  sub->add_option("OUT", o->out, "Filter file to write (replaced if it exists)")
      ->type_name("")
      ->required();
  sub->add_option("IN", o->inputs, "Filter files to combine (at least one)")
      ->type_name("")
      ->required();
  sub->add_flag("--intersect", o->intersect, "Intersection instead of union");
  return {sub, "merge", [o] { run_merge(*o); }};
}

}  // namespace bloomkit::cli
