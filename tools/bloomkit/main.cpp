// bloomkit: Bloom filters from the command line. See docs/CLI.md.

#include <string>
#include <vector>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include "bloomkit/version.hpp"
#include "cli_error.hpp"
#include "commands.hpp"

namespace {

using namespace bloomkit::cli;

// The deepest subcommand CLI11 got to, for the "--help" hint of a usage error.
std::string selected_path(const CLI::App& app) {
  std::string path;
  const CLI::App* current = &app;
  while (true) {
    const auto selected = current->get_subcommands();
    if (selected.empty()) break;
    current = selected.front();
    if (!path.empty()) path += ' ';
    path += current->get_name();
  }
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Bloom filters from the command line: create, fill, query and inspect filter files.",
               "bloomkit"};
  app.set_version_flag("--version", std::string("bloomkit ") + bloomkit::version_string);
  app.require_subcommand(1);
  app.footer(
      "Keys are lines of stdin (or KEY arguments). Exit status: 0 success, 1 error, 2 usage "
      "error. See docs/CLI.md.");

  std::vector<command> commands = {
      add_create_command(app), add_add_command(app),    add_build_command(app),
      add_query_command(app),  add_info_command(app),   add_merge_command(app),
      add_size_command(app),   add_remove_command(app), add_import_command(app),
      add_export_command(app),
  };
#ifdef BLOOMKIT_CLI_REDIS
  for (command& c : add_redis_commands(app)) commands.push_back(std::move(c));
#endif

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    const std::string path = selected_path(app);
    if (path.empty() && argc > 1 && argv[1][0] != '-') {
      print_usage_error(fmt::format("unknown command {}", quoted(argv[1])), "");
      return exit_usage;
    }
    print_usage_error(e.what(), path);
    return exit_usage;
  }

  for (const command& c : commands) {
    if (c.app->parsed()) return run_guarded(c.path, c.run);
  }
  print_usage_error("a subcommand is required", "");
  return exit_usage;
}
