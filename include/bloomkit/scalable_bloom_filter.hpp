#pragma once
// The scalable Bloom filter over classic sub-filters (scalable_bloom_filter) and over blocked
// ones (scalable_blocked_bloom_filter). This header names the aliases; the class is
// basic_scalable_filter (scalable_filter.hpp).

#include "bloomkit/scalable_filter.hpp"
