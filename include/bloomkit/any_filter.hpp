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
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"

namespace bloomkit {

using any_filter =
    std::variant<bloom_filter, blocked_bloom_filter, counting_bloom_filter, scalable_bloom_filter>;

// What a file holds decides the alternative; a kind or scheme this build cannot hold is
// errc::unsupported naming the file.
any_filter load_any(const std::filesystem::path& path);
any_filter map_any(const std::filesystem::path& path, verify check = verify::full);
void save(const any_filter& filter, const std::filesystem::path& path);

// The kind of filter an alternative is.
filter_kind kind_of(const any_filter& filter) noexcept;

}  // namespace bloomkit
