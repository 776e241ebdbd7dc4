#pragma once
// What the test build is: sanitized builds run 5-20 times slower, so statistical tests shrink
// their sample sizes there (their bounds widen with the smaller samples; release runs full size).

namespace bloomkit::test {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool sanitized_build = true;
#else
inline constexpr bool sanitized_build = false;
#endif

}  // namespace bloomkit::test
