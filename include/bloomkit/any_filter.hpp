#pragma once
// A filter of whichever kind a file holds, for code that handles them all (the CLI does):
//
//   bloomkit::any_filter f = bloomkit::map_any("ids.bloom");
//   std::visit([](const auto& filter) { return filter.contains("42"); }, f);
//
// Every alternative has the common surface (insert, contains, insert_many, contains_many, bits,
// capacity, target_fpp, inserted, estimated_count, estimated_fpp, fill_ratio, byte_size).

#include <filesystem>
#include <variant>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"

namespace bloomkit {

// Classic filters come with the native scheme or an interop one (compat/*.hpp, docs/INTEROP.md).
using any_filter = std::variant<bloom_filter, blocked_bloom_filter, counting_bloom_filter,
                                scalable_bloom_filter, guava::mitz_32_filter, guava::mitz_64_filter,
                                bits_and_blooms::filter, go_zero::filter>;

// What a file holds decides the alternative; a kind or scheme this build cannot hold is
// errc::unsupported naming the file.
any_filter load_any(const std::filesystem::path& path);
any_filter map_any(const std::filesystem::path& path, verify check = verify::full);
void save(const any_filter& filter, const std::filesystem::path& path);
// Records the key type in the file too (file.hpp); only interop filters take key_type::int64
// (errc::unsupported for others).
void save(const any_filter& filter, const std::filesystem::path& path, key_type keys);

// The kind of filter an alternative is.
filter_kind kind_of(const any_filter& filter) noexcept;

// For a filter that maps a file: throws errc::io_error naming the file when it was truncated or
// overwritten in place since it was mapped (mapped_file.hpp); nothing for other filters. Lookups
// check by themselves; call it after reading figures of a mapped filter (fill_ratio,
// estimated_count, ...), which do not.
void check_mapped_file(const any_filter& filter);

}  // namespace bloomkit
