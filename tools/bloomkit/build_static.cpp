// `build --kind static`: the keys of every input go to a static_builder through the parallel
// fill (the same reading, chunking and progress line as the other kinds), which spills their
// hashes to the temp dir past its memory bound; the filter is then built shard by shard and
// saved like every kind (staged, then put in place by output_file::commit).
//
// The temp dir defaults to FILE's directory, not $TMPDIR: the spilled hashes are 8 bytes per
// key, about 7 times the filter, and /tmp is often a RAM-backed tmpfs (spilling there spends
// the memory the spill is meant to save) or a small partition; FILE's file system is the one
// the user chose for a large file.
//
// BLOOMKIT_STATIC_BUILD_TEST (tests only; docs/CLI.md): comma-separated settings of the
// builder's test seams: memory=BYTES (the in-memory bound), spill-limit=BYTES (spill writes
// past it fail as a full disk does), failing-seeds=N, bucket-bits=N.

#include "build_static.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/static_builder.hpp"
#include "cli_error.hpp"
#include "filter_kinds.hpp"
#include "input.hpp"
#include "names.hpp"
#include "numbers.hpp"
#include "output_file.hpp"
#include "parallel_fill.hpp"

namespace bloomkit::cli {

namespace {

constexpr const char* test_settings_variable = "BLOOMKIT_STATIC_BUILD_TEST";

// Applies BLOOMKIT_STATIC_BUILD_TEST to `options`.
void apply_test_settings(static_build_options& options) {
  const char* text = std::getenv(test_settings_variable);
  if (text == nullptr) return;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const std::size_t equals = item.find('=');
    const std::string_view name = item.substr(0, equals);
    if (equals == std::string_view::npos) {
      throw usage_error(fmt::format("{}: '{}' is not NAME=VALUE", test_settings_variable, item));
    }
    const std::uint64_t value = parse_count(item.substr(equals + 1), test_settings_variable);
    if (name == "memory") {
      options.memory_bytes = value;
    } else if (name == "spill-limit") {
      options.spill_byte_limit = value;
    } else if (name == "failing-seeds") {
      options.failing_seeds = static_cast<unsigned>(value);
    } else if (name == "bucket-bits") {
      options.bucket_bits = static_cast<unsigned>(value);
    } else {
      throw usage_error(fmt::format("{}: unknown setting '{}'", test_settings_variable, name));
    }
  }
}

std::filesystem::path default_temp_dir(const std::string& file) {
  const std::filesystem::path dir = std::filesystem::absolute(file).parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

}  // namespace

void run_static_build(const static_build_request& r) {
  const auto start = std::chrono::steady_clock::now();
  static_build_options options;
  options.threads = r.threads > 0 ? r.threads : default_threads();
  options.temp_dir =
      r.temp_dir.empty() ? default_temp_dir(r.file) : std::filesystem::path(r.temp_dir);
  apply_test_settings(options);
  std::error_code ec;
  if (!std::filesystem::is_directory(options.temp_dir, ec)) {
    throw error(
        errc::io_error,
        fmt::format("temp dir {} is not a directory{}", quoted_name(options.temp_dir.string()),
                    ec ? fmt::format(" ({})", ec.message()) : std::string()));
  }
  std::optional<static_builder> builder;
  as_usage_error([&] { builder.emplace(r.fpp, options); });

  // Held from here: a writer of FILE started meanwhile lands after the build, not under it.
  output_file out(r.file);
  std::vector<input_file> inputs = open_inputs(r.inputs);

  const key_tally read = fill_with_progress(
      inputs, options.threads, [&](std::span<const std::string_view> keys) -> std::size_t {
        builder->add_many(keys);
        return 0;
      });
  any_filter filter = builder->finish();
  save(filter, r.file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.commit(fmt::format("built {}: {} keys read, {} new, in {:.3f} s\n", printable(r.file),
                         read.keys, builder->stats().distinct, seconds));
}

}  // namespace bloomkit::cli
