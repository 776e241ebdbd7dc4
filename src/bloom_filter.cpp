#include "bloomkit/bloom_filter.hpp"

namespace bloomkit {
template class basic_bloom_filter<xxh3_probe_policy>;
}  // namespace bloomkit
