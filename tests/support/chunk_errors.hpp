#pragma once
// Catching the chunk error a RedisBloom chunk call throws (redisbloom.hpp's basic_chunk_error:
// BF.* and CF.* chunks), for the tests of refused headers and chunks.

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "bloomkit/compat/redisbloom.hpp"

namespace bloomkit::test {

// chunk_problem_of<Problem>(fn, message): runs fn, expects a basic_chunk_error<Problem>;
// returns its problem (and its message in *message when given), Problem{} and a test failure
// when none is thrown. A function object, so that a test file names it once for its Problem.
template <class Problem>
struct chunk_problem_catcher {
  template <class F>
  Problem operator()(F&& fn, std::string* message = nullptr) const {
    try {
      std::forward<F>(fn)();
    } catch (const redisbloom::basic_chunk_error<Problem>& e) {
      if (message != nullptr) *message = e.what();
      return e.problem();
    }
    ADD_FAILURE() << "no chunk_error";
    return Problem{};
  }
};
template <class Problem>
inline constexpr chunk_problem_catcher<Problem> chunk_problem_of{};

}  // namespace bloomkit::test
