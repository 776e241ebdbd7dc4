#pragma once
// Catching the bloomkit::error a call throws, for tests of error paths.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"

namespace bloomkit::test {

// Runs fn; returns the bloomkit::error it throws, or nothing (and a test failure) if it returns.
template <typename F>
std::optional<error> thrown_by(F&& fn) {
  try {
    std::forward<F>(fn)();
  } catch (const error& e) {
    return e;
  }
  ADD_FAILURE() << "no bloomkit::error thrown";
  return std::nullopt;
}

// Runs fn, expects a bloomkit::error with `code`; returns its message ("" if none was thrown).
template <typename F>
std::string error_of(F&& fn, errc code) {
  const auto e = thrown_by(std::forward<F>(fn));
  if (!e) return {};
  EXPECT_EQ(e->code(), code) << e->what();
  return e->what();
}

// Runs fn; returns the code of the bloomkit::error it throws (errc{} and a failure if none).
template <typename F>
errc code_of(F&& fn) {
  const auto e = thrown_by(std::forward<F>(fn));
  return e ? e->code() : errc{};
}

}  // namespace bloomkit::test
