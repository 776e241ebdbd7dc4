#pragma once
// bloomkit build FILE --kind cuckoo --fpp P [--capacity N] [--threads T] [KEYFILE...|-]
// (build.cpp dispatches here): a cuckoo filter of the distinct keys of the inputs, sized for
// their count unless --capacity says otherwise (docs/CLI.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "filter_kinds.hpp"

namespace bloomkit::cli {

struct cuckoo_build_request {
  std::string file;
  double fpp = 0;
  std::optional<std::uint64_t> capacity;  // none: the distinct keys
  unsigned threads = 0;                   // 0: every core
  kind_options kind;
  std::vector<std::string> inputs;
};

void run_cuckoo_build(const cuckoo_build_request& request);

}  // namespace bloomkit::cli
