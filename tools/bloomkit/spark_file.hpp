#pragma once
// Spark's BloomFilter.writeTo files, which `query` and `info` open directly as well as bloomkit's
// own (docs/CLI.md). A Spark file starts with its big-endian version, 00 00 00 01 or 00 00 00 02;
// a bloomkit file with the magic "BLOOMKIT": the first 4 bytes tell them apart. A Spark file
// records no key type: the caller names it (--key-type).

#include <string>
#include <string_view>

#include "bloomkit/compat/any_filter.hpp"

namespace bloomkit::cli {

// Whether `path` starts as a Spark writeTo file does (false when it cannot be read: opening it
// as a bloomkit file then reports why).
bool is_spark_file(const std::string& path);

// The filter of a Spark file (spark::read), with a header of its kind, scheme and key type `keys`.
// Throws bloomkit::error naming the file for a truncated or corrupt one.
opened<compat::any_filter> open_spark_file(const std::string& path, key_type keys);

// What query and info open: a Spark file by open_spark_file, any other by compat::open_any.
opened<compat::any_filter> open_filter_file(const std::string& path, open_mode mode,
                                            key_type spark_keys);

// Warns on stderr when `filter` is a Spark V1 filter: V1's 32-bit index arithmetic loses the
// filter's FPP past about 10^8 items (SPARK-47547); says the FPP its bits give and how to rebuild.
void warn_if_spark_v1(const compat::any_filter& filter, std::string_view file);

}  // namespace bloomkit::cli
