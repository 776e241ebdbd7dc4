#include "query_output.hpp"

#include <memory>

#include <fmt/core.h>

#include "key_input.hpp"

namespace bloomkit::cli {

query_mode query_mode_flags::mode() const noexcept {
  if (present) return query_mode::present;
  if (absent) return query_mode::absent;
  if (count) return query_mode::count;
  return query_mode::lines;
}

void add_query_mode_options(CLI::App& command, query_mode_flags& flags) {
  auto* present =
      command.add_flag("--present", flags.present, "Print only the keys that may be present");
  auto* absent =
      command.add_flag("--absent", flags.absent, "Print only the keys that are definitely absent");
  auto* count =
      command.add_flag("--count", flags.count, "Print only \"present=N absent=M\" at the end");
  present->excludes(absent)->excludes(count);
  absent->excludes(count);
}

void query_printer::add(std::span<const std::string_view> keys, std::span<const bool> results) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool hit = results[i];
    if (hit) {
      ++present_;
    } else {
      ++absent_;
    }
    switch (mode_) {
      case query_mode::lines:
        out_.put(hit ? '1' : '0');
        out_.put('\t');
        break;
      case query_mode::present:
        if (!hit) continue;
        break;
      case query_mode::absent:
        if (hit) continue;
        break;
      case query_mode::count:
        continue;
    }
    out_.write(keys[i]);
    out_.put('\n');
  }
}

void query_printer::finish() {
  if (mode_ == query_mode::count) {
    out_.write(fmt::format("present={} absent={}\n", present_, absent_));
  }
  out_.flush();
}

void answer_queries(const std::vector<std::string>& arguments, query_mode mode,
                    const batch_lookup& lookup) {
  buffered_writer out(stdout);
  query_printer printer(mode, out);
  const auto results = std::make_unique<bool[]>(default_key_batch);
  read_keys(arguments, [&](std::span<const std::string_view> batch) {
    const std::span<bool> answers(results.get(), batch.size());
    lookup(batch, answers);
    printer.add(batch, answers);
    out.flush();
  });
  printer.finish();
}

}  // namespace bloomkit::cli
