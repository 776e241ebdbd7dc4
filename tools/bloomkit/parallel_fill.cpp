#include "parallel_fill.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>

#include "bounded_queue.hpp"
#include "chunker.hpp"
#include "line_stream.hpp"

namespace bloomkit::cli {

namespace {

// A run of whole lines for a worker: a slice of a mapped input, or a pool buffer read from a
// stream (returned to the pool once its keys are in).
struct line_chunk {
  std::string_view lines;
  const input_file* mapped_source = nullptr;
  line_buffer* buffer = nullptr;
};

// Streamed blocks: large enough that a worker's batches fill up and queue traffic is rare.
constexpr std::size_t stream_block_size = std::size_t{2} << 20;

class fill {
 public:
  fill(unsigned workers, const batch_counter& insert, progress_bar* progress)
      : workers_(std::max(1u, workers)),
        insert_(insert),
        progress_(progress),
        queue_(2 * static_cast<std::size_t>(workers_) + 2),
        // Every queued chunk plus one per worker and one being read: the reader never waits
        // for a buffer while a worker is idle. Capped to bound memory (2 MiB each).
        buffers_(std::min<std::size_t>(3 * static_cast<std::size_t>(workers_) + 3, 32)),
        free_buffers_(buffers_.size()),
        results_(workers_) {
    for (line_buffer& b : buffers_) free_buffers_.push(&b);
  }

  key_tally run(std::vector<input_file>& inputs) {
    std::vector<std::thread> threads;
    threads.reserve(workers_);
    for (unsigned t = 0; t < workers_; ++t) threads.emplace_back([this, t] { work(results_[t]); });
    try {
      for (input_file& input : inputs) {
        if (!(input.mappable() ? feed_mapped(input) : feed_stream(input))) break;
      }
    } catch (...) {
      fail(std::current_exception());
    }
    queue_.close();
    for (std::thread& t : threads) t.join();
    if (failure_) std::rethrow_exception(failure_);
    key_tally total;
    for (const key_tally& r : results_) {
      total.keys += r.keys;
      total.counted += r.counted;
    }
    return total;
  }

 private:
  // The feeders return false once a worker failed (the queue was aborted).
  bool feed_mapped(input_file& input) {
    const std::string_view bytes = input.mapped();
    return for_each_chunk(bytes, chunk_size_for(bytes.size(), workers_), [&](std::string_view c) {
      return queue_.push(line_chunk{c, &input, nullptr});
    });
  }

  bool feed_stream(const input_file& input) {
    line_stream stream(input.fd(), input.name(), stream_block_size,
                       line_stream::pacing::full_blocks);
    while (true) {
      const std::optional<line_buffer*> buffer = free_buffers_.pop();
      if (!buffer) return false;
      if (!stream.next(**buffer)) {
        free_buffers_.push(*buffer);
        return true;
      }
      if (!queue_.push(line_chunk{(*buffer)->lines(), nullptr, *buffer})) return false;
    }
  }

  void work(key_tally& mine) {
    try {
      std::vector<std::string_view> keys;
      keys.reserve(default_key_batch);
      const auto insert = [&] {
        mine.counted += insert_(keys);
        mine.keys += keys.size();
        if (progress_ != nullptr) progress_->add(keys.size(), 0);
        keys.clear();
      };
      while (std::optional<line_chunk> chunk = queue_.pop()) {
        for_each_line(chunk->lines, [&](std::string_view key) {
          keys.push_back(key);
          if (keys.size() == default_key_batch) insert();
        });
        if (!keys.empty()) insert();  // the views point into this chunk
        if (chunk->mapped_source != nullptr) chunk->mapped_source->check_unchanged();
        if (chunk->buffer != nullptr) free_buffers_.push(chunk->buffer);
        if (progress_ != nullptr) progress_->add(0, chunk->lines.size());
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }

  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(failure_mutex_);
      if (!failure_) failure_ = e;
    }
    queue_.abort();
    free_buffers_.abort();
  }

  unsigned workers_;
  const batch_counter& insert_;
  progress_bar* progress_;
  bounded_queue<line_chunk> queue_;
  std::vector<line_buffer> buffers_;
  bounded_queue<line_buffer*> free_buffers_;  // never full: it holds at most every buffer
  std::vector<key_tally> results_;
  std::mutex failure_mutex_;
  std::exception_ptr failure_;
};

}  // namespace

key_tally fill_in_parallel(std::vector<input_file>& inputs, unsigned workers,
                           const batch_counter& insert, progress_bar* progress) {
  return fill(workers, insert, progress).run(inputs);
}

key_tally fill_with_progress(std::vector<input_file>& inputs, unsigned workers,
                             const batch_counter& insert) {
  progress_bar progress(total_size(inputs));
  const key_tally read = fill_in_parallel(inputs, workers, insert, &progress);
  progress.finish();
  return read;
}

}  // namespace bloomkit::cli
