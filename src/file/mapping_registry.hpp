#pragma once
// Internal: the live file mappings that bloomkit's process-wide SIGBUS handler covers.
//
// A read of a mapped page that the file no longer has (it was truncated, or cp is rewriting it
// in place) raises SIGBUS, which by default kills the process. For an address inside a
// registered mapping the handler maps all-one bytes over the faulting region instead, sets the
// mapping's fault flag and returns: the read is retried and sees 0xFF bytes (a filter answers
// "present", never a wrong "absent"; a counter reads 15). The reader checks the flag afterwards
// and reports the error (bloomkit/mapped_file.hpp). Faults anywhere else go to the handler that
// was installed before bloomkit's (by default the process dies, as it would have).
//
// The handler may run on any thread at any time, so it takes no lock and allocates nothing: the
// registry is a list of fixed blocks of slots, claimed and released with atomics, never freed.

#include <atomic>
#include <cstddef>

namespace bloomkit::detail {

struct mapping_slot;

// Registers the read-only mapping [base, base + length) (its pages) and installs the handler the
// first time. Throws errc::io_error when the handler cannot be installed.
mapping_slot& register_mapping(const void* base, std::size_t length);

// Forgets the mapping. Call it before munmap, so that a later mapping of the same addresses is
// never taken for this one.
void unregister_mapping(mapping_slot& slot) noexcept;

// Set by the handler once a read of the mapping faulted (and saw all-ones).
const std::atomic<bool>& fault_flag(const mapping_slot& slot) noexcept;

}  // namespace bloomkit::detail
