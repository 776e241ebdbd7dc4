#pragma once
// The parallel fill of `build` and `redis rebuild`: the keys of input files (and stdin) handed in
// batches to worker threads, with memory bounded whatever the input size.
//
//   - Regular files are mapped and cut into chunks that end at a line end (chunker.hpp); workers
//     take chunks from a bounded queue. A chunk is checked after its keys were inserted
//     (input_file::check_unchanged): a file truncated or rewritten meanwhile fails the fill.
//   - Unmappable inputs (stdin, pipes) are read by the calling thread into a small pool of large
//     buffers of whole lines (line_stream, full blocks), handed to the same workers and reused
//     once they are done: reading a pipe costs one copy, and nothing is allocated per block or
//     per key.

#include <vector>

#include "input.hpp"
#include "key_input.hpp"
#include "progress.hpp"

namespace bloomkit::cli {

// Inserts every key of `inputs`, in input order within each chunk, with `workers` threads
// calling `insert` on batches of up to default_key_batch keys (concurrently when workers > 1;
// with 1, one thread other than the caller makes every call). Returns the keys read and the sum
// of what `insert` returned. Reports keys and bytes to `progress` when given. Rethrows the first
// error of the reading or of a worker, after stopping every thread.
key_tally fill_in_parallel(std::vector<input_file>& inputs, unsigned workers,
                           const batch_counter& insert, progress_bar* progress = nullptr);

// fill_in_parallel() under a progress bar on stderr (a terminal's) over the inputs' total_size(),
// finished once every key is in.
key_tally fill_with_progress(std::vector<input_file>& inputs, unsigned workers,
                             const batch_counter& insert);

}  // namespace bloomkit::cli
