#pragma once
// A filter of whichever kind a file holds, the peers' filters included (target bloomkit::compat):
// the native registry (kinds.hpp) extended with the classic filters of the peers' hash schemes
// (docs/INTEROP.md). The same operations as bloomkit::any_filter (any_filter.hpp), from the
// same generator.
//
//   bloomkit::compat::any_filter f = bloomkit::compat::map_any("users.bloom");  // any scheme

#include <filesystem>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/compat/redisbloom_kind.hpp"
#include "bloomkit/compat/spark.hpp"

namespace bloomkit::compat {

// The native filters, then the peers' (classic filters with their probe policies, RedisBloom's
// chain, and Spark's filters: V2 keeps its seed).
using filters =
    native_filters::append<guava::mitz_32_filter, guava::mitz_64_filter, bits_and_blooms::filter,
                           go_zero::filter, redisbloom::chain, spark::v1_filter, spark::v2_filter>;
using any_filter = filters::variant;

// The filter and its file's header from one open (bloomkit::open_any).
opened<any_filter> open_any(const std::filesystem::path& path, open_mode mode,
                            verify check = verify::full, const header_check& before = {});
any_filter load_any(const std::filesystem::path& path);
any_filter map_any(const std::filesystem::path& path, verify check = verify::full);
// save, kind_of and check_mapped_file take either variant (any_filter.hpp). Only the peers'
// filters take key_type::int64 (errc::unsupported for others).
using bloomkit::check_mapped_file;
using bloomkit::kind_of;
using bloomkit::save;

}  // namespace bloomkit::compat
