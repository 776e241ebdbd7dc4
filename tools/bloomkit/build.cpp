// bloomkit build FILE [--capacity N] --fpp P [--kind K] [--threads T] [INPUT...]
// bloomkit build FILE --kind static --fpp P [--threads T] [--temp-dir DIR] [KEYFILE...|-]
//   (build_static.cpp: a static filter is built from its whole key set, with no capacity)
// bloomkit build FILE --kind cuckoo --fpp P [--capacity N] [--threads T] [KEYFILE...|-]
//   (build_cuckoo.cpp: the distinct keys, each inserted once; sized for them by default)
//
// Creates a filter and fills it from input files (stdin when there are none, or for "-") with
// T threads (default: every core) inserting through the lock-free insert_many_concurrent. Kinds
// without concurrent inserts (counting, scalable) are filled by one thread.
//
//   - The keys are read and handed to the workers by the parallel fill (parallel_fill.hpp):
//     regular files mapped and cut into chunks, stdin and pipes read in large blocks.
//   - Without --capacity, every input must be a regular file: their lines are counted first
//     (memchr over the mapping) and the filter is sized for that many keys.
//   - On a terminal, a progress line on stderr (progress.hpp).
//   - A mapped input that is truncated or rewritten while it is read (log rotation) fails the
//     build with an error naming it, and no filter is written.
//
// Prints: built FILE: <keys> keys read, <new> new, in <seconds> s
// Warns on stderr when the filter holds more keys than its capacity (not scalable ones).

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/any_filter.hpp"
#include "build_cuckoo.hpp"
#include "build_static.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "filter_kinds.hpp"
#include "input.hpp"
#include "key_encoding.hpp"
#include "output_file.hpp"
#include "parallel_fill.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

namespace {

struct build_options {
  std::string file;
  CLI::Option* capacity_option = nullptr;
  std::string capacity;
  double fpp = 0;
  kind_options kind;
  now_option now;
  unsigned threads = 0;
  std::string temp_dir;
  CLI::Option* temp_dir_option = nullptr;
  std::vector<std::string> inputs;
};

constexpr std::string_view static_kind = "static";
constexpr std::string_view cuckoo_kind = "cuckoo";

// build --kind static: what the other kinds' options would mean is refused, not ignored.
void run_build_static(const build_options& o) {
  if (o.capacity_option->count() > 0) {
    throw usage_error(
        "--capacity does not apply to --kind static: a static filter is sized for the distinct "
        "keys it is built from");
  }
  if (o.now.given()) throw usage_error("--now applies only to --kind window");
  check_kind_options(o.kind);
  run_static_build({o.file, o.fpp, o.threads, o.temp_dir, o.inputs});
}

// build --kind cuckoo: sized from the distinct keys unless --capacity is given.
void run_build_cuckoo(const build_options& o) {
  if (o.now.given()) throw usage_error("--now applies only to --kind window");
  check_kind_options(o.kind);
  std::optional<std::uint64_t> capacity;
  if (o.capacity_option->count() > 0) capacity = parse_count(o.capacity, "--capacity");
  run_cuckoo_build({o.file, o.fpp, capacity, o.threads, o.kind, o.inputs});
}

// Inserts the keys of every input with `threads` workers (one for kinds without concurrent
// inserts). Integer keys (--key-type long) are parsed by the workers too, each its own chunk, and
// inserted with insert_integers_concurrent where the kind has it (parsing is most of their cost).
template <class Filter>
key_tally fill_filter(Filter& filter, std::vector<input_file>& inputs, unsigned threads,
                      const std::string& file) {
  if constexpr (takes_integer_keys<Filter>) {
    if (filter.keys() == key_type::int64) {
      const auto parsed = [&file](std::span<const std::string_view> keys) {
        std::vector<std::uint64_t> values(keys.size());
        for (std::size_t i = 0; i < keys.size(); ++i) values[i] = parse_integer_key(keys[i], file);
        return values;
      };
      if constexpr (inserts_integers_in_parallel<Filter>) {
        return fill_with_progress(inputs, threads, [&](auto keys) {
          return filter.insert_integers_concurrent(std::span<const std::uint64_t>(parsed(keys)));
        });
      } else {
        return fill_with_progress(inputs, 1, [&](auto keys) {
          return filter.insert_integers(std::span<const std::uint64_t>(parsed(keys)));
        });
      }
    }
  }
  if constexpr (inserts_in_parallel<Filter>) {
    return fill_with_progress(inputs, threads,
                              [&](auto keys) { return filter.insert_many_concurrent(keys); });
  } else {
    return fill_with_progress(inputs, 1, [&](auto keys) { return filter.insert_many(keys); });
  }
}

void run_build(const build_options& o) {
  if (o.kind.kind == static_kind) return run_build_static(o);
  if (o.temp_dir_option->count() > 0) throw usage_error("--temp-dir applies only to --kind static");
  if (o.kind.kind == cuckoo_kind) return run_build_cuckoo(o);
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::uint64_t> capacity;
  if (o.capacity_option->count() > 0) {
    capacity = parse_count(o.capacity, "--capacity");
    validate_sizing(*capacity, o.fpp);
  } else {
    validate_fpp_option(o.fpp);
  }
  const unsigned threads = o.threads > 0 ? o.threads : default_threads();

  std::vector<std::string> names = o.inputs;
  if (names.empty()) names.push_back("-");
  if (!capacity) {
    for (const std::string& name : names) {
      if (name == "-") {
        throw usage_error(
            "--capacity is required when keys come from stdin (it can be left out only when "
            "every INPUT is a regular file, whose lines are then counted)");
      }
    }
  }
  // Held from here: a writer of FILE started meanwhile lands after the build, not under it.
  output_file out(o.file);
  std::vector<input_file> inputs = open_inputs(names);

  if (!capacity) {
    std::uint64_t lines = 0;
    for (input_file& input : inputs) {
      if (!input.mappable()) {
        throw usage_error(fmt::format(
            "--capacity is required when INPUT {} is not a regular file (it can be left out only "
            "when every INPUT is a regular file, whose lines are then counted)",
            quoted_name(input.name())));
      }
      lines += count_lines(input.mapped());
      input.check_unchanged();
    }
    // An empty input still makes a valid (empty) filter, sized for one key.
    capacity = std::max<std::uint64_t>(lines, 1);
    validate_sizing(*capacity, o.fpp);
  }

  any_filter filter = make_filter(o.kind, *capacity, o.fpp);
  apply_now(filter, o.now, o.file);
  const key_tally result = std::visit(
      [&](auto& f) { return fill_filter(f, inputs, threads, quoted_name(o.file)); }, filter);
  save(filter, o.file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.commit(fmt::format("built {}: {} keys read, {} new, in {:.3f} s\n", printable(o.file),
                         result.keys, result.counted, seconds));
  warn_if_past_capacity(filter, o.file);
}

}  // namespace

command add_build_command(CLI::App& app) {
  auto o = std::make_shared<build_options>();
  CLI::App* sub =
      app.add_subcommand("build", "Create a filter and fill it from input files, in parallel");
  add_required_argument(*sub, "FILE", o->file, "Filter file to write (replaced if it exists)");
  o->capacity_option = add_capacity_option(*sub, o->capacity)
                           ->description(
                               "Number of keys the filter is sized for (default: the number of "
                               "lines of the INPUT files, which must then be regular files)");
  add_fpp_option(*sub, o->fpp)->required();
  add_kind_options(*sub, o->kind);
  add_now_option(*sub, o->now);
  add_threads_option(*sub, o->threads);
  o->temp_dir_option = sub->add_option("--temp-dir", o->temp_dir,
                                       "Static: where key hashes spill past the memory bound, 8 "
                                       "bytes per key (default: FILE's directory)")
                           ->type_name("DIR");
  add_argument(*sub, "INPUT", o->inputs,
               "Files of keys, one per line (default: stdin; '-' means stdin)");
  return {sub, "build", [o] { run_build(*o); }};
}

}  // namespace bloomkit::cli
