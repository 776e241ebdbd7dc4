// bloomkit build FILE [--capacity N] --fpp P [--kind K] [--threads T] [INPUT...]
//
// Creates a filter and fills it from input files (stdin when there are none, or for "-") with
// T threads (default: every core) inserting through the lock-free insert_many_concurrent. Kinds
// without concurrent inserts (counting, scalable) are filled by one thread.
//
//   - Regular files are mapped and cut into chunks that end at a line end; workers take chunks
//     from a bounded queue. Unmappable inputs (stdin, pipes) are read in blocks of whole lines
//     by the main thread and handed to the same workers, so memory stays bounded however large
//     the input.
//   - Without --capacity, every input must be a regular file: their lines are counted first
//     (memchr over the mapping) and the filter is sized for that many keys.
//   - On a terminal, a progress line on stderr (progress.hpp).
//   - A mapped input that is truncated or rewritten while it is read (log rotation) fails the
//     build with an error naming it, and no filter is written: each chunk is checked after its
//     keys were inserted (input_file::check_unchanged).
//
// Prints: built FILE: <keys> keys read, <new> new, in <seconds> s
// Warns on stderr when the filter holds more keys than its capacity (not scalable ones).

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "commands.hpp"
#include "errors.hpp"
#include "filter_kinds.hpp"
#include "input.hpp"
#include "key_input.hpp"
#include "output_file.hpp"
#include "progress.hpp"

namespace bloomkit::cli {

namespace {

struct build_options {
  std::string file;
  CLI::Option* capacity_option = nullptr;
  std::string capacity;
  double fpp = 0;
  kind_options kind;
  unsigned threads = 0;
  std::vector<std::string> inputs;
};

// A run of whole lines: a slice of a mapped file, or a block read from a stream (owned).
struct work_item {
  std::string_view mapped;
  std::vector<char> owned;
  const input_file* source = nullptr;  // the mapped input `mapped` is a slice of
  std::string_view lines() const {
    return owned.empty() ? mapped : std::string_view(owned.data(), owned.size());
  }
};

// A bounded multi-consumer queue: push() blocks while full, so a fast reader never buffers
// more than `limit` blocks ahead of the workers.
class work_queue {
 public:
  explicit work_queue(std::size_t limit) : limit_(limit) {}

  // Returns false (dropping the item) once the queue was aborted.
  bool push(work_item item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return aborted_ || items_.size() < limit_; });
    if (aborted_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  // The next item; nothing once the queue is closed and drained, or aborted.
  std::optional<work_item> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return aborted_ || closed_ || !items_.empty(); });
    if (aborted_ || items_.empty()) return std::nullopt;
    work_item item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    items_.clear();
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<work_item> items_;
  std::size_t limit_;
  bool closed_ = false;
  bool aborted_ = false;
};

struct fill_result {
  std::uint64_t keys = 0;
  std::uint64_t fresh = 0;
};

// Chunk length for splitting a mapped file among `threads` workers: big enough that queue
// traffic is negligible, small enough that every worker gets several chunks.
std::size_t chunk_size_for(std::uint64_t bytes, unsigned threads) {
  constexpr std::uint64_t min_chunk = 256 * 1024;
  constexpr std::uint64_t max_chunk = 8 * 1024 * 1024;
  return static_cast<std::size_t>(
      std::clamp<std::uint64_t>(bytes / (threads * 8ull + 1), min_chunk, max_chunk));
}

// Inserts the keys of every input with `threads` workers (one for kinds without concurrent
// inserts).
template <class Filter>
fill_result fill_concurrently(Filter& filter, std::vector<input_file>& inputs, unsigned threads,
                              progress_bar& progress) {
  if constexpr (!inserts_in_parallel<Filter>) threads = 1;
  work_queue queue(2 * static_cast<std::size_t>(threads) + 2);
  std::vector<fill_result> results(threads);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto fail = [&](std::exception_ptr e) {
    {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = e;
    }
    queue.abort();
  };

  std::vector<std::thread> workers;
  workers.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      try {
        fill_result& mine = results[t];
        std::vector<std::string_view> keys;
        keys.reserve(default_key_batch);
        const auto insert = [&] {
          if constexpr (inserts_in_parallel<Filter>) {
            mine.fresh += filter.insert_many_concurrent(keys);
          } else {
            mine.fresh += filter.insert_many(keys);
          }
          mine.keys += keys.size();
          progress.add(keys.size(), 0);
          keys.clear();
        };
        while (std::optional<work_item> item = queue.pop()) {
          const std::string_view lines = item->lines();
          for_each_line(lines, [&](std::string_view key) {
            keys.push_back(key);
            if (keys.size() == default_key_batch) insert();
          });
          if (!keys.empty()) insert();  // the views point into this item
          if (item->source != nullptr) item->source->check_unchanged();
          progress.add(0, lines.size());
        }
      } catch (...) {
        fail(std::current_exception());
      }
    });
  }

  // The main thread feeds the queue, until the inputs end or a worker fails (push() = false).
  const auto feed = [&](input_file& input) {
    if (input.mappable()) {
      const std::string_view bytes = input.mapped();
      const std::size_t chunk = chunk_size_for(bytes.size(), threads);
      std::size_t begin = 0;
      while (begin < bytes.size()) {
        std::size_t end = std::min(bytes.size(), begin + chunk);
        if (end < bytes.size()) {
          // Extend the chunk to just past the next line end.
          const auto* newline = static_cast<const char*>(
              std::memchr(bytes.data() + end - 1, '\n', bytes.size() - end + 1));
          end = newline ? static_cast<std::size_t>(newline - bytes.data()) + 1 : bytes.size();
        }
        if (!queue.push(work_item{bytes.substr(begin, end - begin), {}, &input})) return false;
        begin = end;
      }
    } else {
      line_stream stream(input.fd(), input.name());
      std::vector<char> block;
      while (stream.next(block)) {
        if (!queue.push(work_item{{}, std::move(block)})) return false;
        block = std::vector<char>();
      }
    }
    return true;
  };
  try {
    for (input_file& input : inputs) {
      if (!feed(input)) break;
    }
  } catch (...) {
    fail(std::current_exception());
  }
  queue.close();
  for (std::thread& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);

  fill_result total;
  for (const fill_result& r : results) {
    total.keys += r.keys;
    total.fresh += r.fresh;
  }
  return total;
}

void run_build(const build_options& o) {
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
  std::vector<input_file> inputs;
  inputs.reserve(names.size());
  for (const std::string& name : names) inputs.emplace_back(name);

  std::optional<std::uint64_t> total_bytes = 0;
  for (const input_file& input : inputs) {
    if (input.regular()) {
      *total_bytes += input.size();
    } else {
      total_bytes.reset();
      break;
    }
  }

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
  fill_result result;
  {
    progress_bar progress(total_bytes);
    result = std::visit([&](auto& f) { return fill_concurrently(f, inputs, threads, progress); },
                        filter);
    progress.finish();
  }
  save(filter, o.file);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.commit(fmt::format("built {}: {} keys read, {} new, in {:.3f} s\n", printable(o.file),
                         result.keys, result.fresh, seconds));
  warn_if_past_capacity(filter, o.file);
}

}  // namespace

command add_build_command(CLI::App& app) {
  auto o = std::make_shared<build_options>();
  CLI::App* sub =
      app.add_subcommand("build", "Create a filter and fill it from input files, in parallel");
  sub->add_option("FILE", o->file, "Filter file to write (replaced if it exists)")
      ->type_name("")
      ->required();
  o->capacity_option = add_capacity_option(*sub, o->capacity)
                           ->description(
                               "Number of keys the filter is sized for (default: the number of "
                               "lines of the INPUT files, which must then be regular files)");
  add_fpp_option(*sub, o->fpp)->required();
  add_kind_options(*sub, o->kind);
  add_threads_option(*sub, o->threads);
  sub->add_option("INPUT", o->inputs,
                  "Files of keys, one per line (default: stdin; '-' means stdin)")
      ->type_name("");
  return {sub, "build", [o] { run_build(*o); }};
}

}  // namespace bloomkit::cli
