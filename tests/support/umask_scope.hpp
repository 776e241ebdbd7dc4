#pragma once
// Sets the process's umask for a scope (tests of the modes new files get), restoring it after.

#include <sys/stat.h>

namespace bloomkit::test {

class umask_scope {
 public:
  explicit umask_scope(mode_t mask) : old_(::umask(mask)) {}
  ~umask_scope() { ::umask(old_); }
  umask_scope(const umask_scope&) = delete;
  umask_scope& operator=(const umask_scope&) = delete;

 private:
  mode_t old_;
};

}  // namespace bloomkit::test
