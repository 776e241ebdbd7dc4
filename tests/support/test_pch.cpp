// The host of the tests' precompiled header (tests/CMakeLists.txt): a target needs a source.
// Links GoogleTest's main, so it is an empty test program; nothing runs it.
