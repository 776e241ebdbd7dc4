#pragma once
// Statistical tests (a false-positive rate or a count measured over 10^4-10^7 keys) run in the
// release build only. Their figures are the same under every preset, the sanitizers find memory
// errors and races in the paths the other tests drive with fewer keys, and under ASan/TSan these
// tests took a fifth of the sanitized runs (BloomFilter's FPP grid alone 39 s under ASan). The
// first statement of such a test: BLOOMKIT_STATISTICAL_TEST();

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BLOOMKIT_STATISTICAL_TEST() \
  GTEST_SKIP() << "a statistical test: the release build runs it (support/statistical.hpp)"
#else
#define BLOOMKIT_STATISTICAL_TEST() static_cast<void>(0)
#endif
