#include "atomic_file.hpp"

#include "lock_state.hpp"

namespace bloomkit {

namespace detail {

atomic_file::atomic_file(const std::filesystem::path& path)
    : lock_(lock_for_update(path)),
      temp_(state_of(lock_).dir.get(), state_of(lock_).target, path.string()) {}

void atomic_file::commit() {
  temp_.sync();
  lock_state& state = state_of(lock_);
  if (state.defer_saves) {
    state.staged.emplace(std::move(temp_));  // replaces (discards) an earlier staged version
  } else {
    temp_.replace_target();
  }
}

}  // namespace detail

void write_file(const std::filesystem::path& path, std::span<const unsigned char> bytes) {
  detail::atomic_file out(path);
  out.write(bytes);
  out.commit();
}

}  // namespace bloomkit
