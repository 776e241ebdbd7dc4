#pragma once
// bloomkit build FILE --kind static --fpp P [--threads T] [--temp-dir DIR] [KEYFILE...|-]
// (build.cpp dispatches here): a static filter built from the whole key set, which may come from
// a pipe and be larger than memory (include/bloomkit/static_builder.hpp; docs/CLI.md).

#include <string>
#include <vector>

namespace bloomkit::cli {

struct static_build_request {
  std::string file;
  double fpp = 0;
  unsigned threads = 0;  // 0: every core
  std::string temp_dir;  // empty: FILE's directory
  std::vector<std::string> inputs;
};

void run_static_build(const static_build_request& request);

}  // namespace bloomkit::cli
