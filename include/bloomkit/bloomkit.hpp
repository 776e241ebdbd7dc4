#pragma once
// Umbrella header: everything of the in-process library.

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/file_writer.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/mapped_file.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/static_filter.hpp"
#include "bloomkit/version.hpp"
