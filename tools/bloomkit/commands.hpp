#pragma once
// The subcommands of the bloomkit tool. Each add_*_command() registers its CLI11 subcommand
// (options bound to its own state) and returns how to run it once the command line has parsed.
// Running happens after parsing so that every CLI11 error is a usage error (exit 2) and every
// error while running is reported by run_guarded() (cli_error.hpp).

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace bloomkit::cli {

struct command {
  CLI::App* app = nullptr;  // the CLI11 subcommand; run() when it was parsed
  std::string path;         // "query", "redis query": for "Run 'bloomkit <path> --help'"
  std::function<void()> run;
};

command add_create_command(CLI::App& app);
command add_add_command(CLI::App& app);
command add_build_command(CLI::App& app);
command add_query_command(CLI::App& app);
command add_info_command(CLI::App& app);
command add_merge_command(CLI::App& app);
command add_size_command(CLI::App& app);
command add_import_command(CLI::App& app);
command add_export_command(CLI::App& app);
command add_remove_command(CLI::App& app);
// The `redis` group and its subcommands (redis.cpp; only in builds with bloomkit::redis).
std::vector<command> add_redis_commands(CLI::App& app);

}  // namespace bloomkit::cli
