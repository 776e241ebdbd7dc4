#include "target.hpp"

#include <cerrno>
#include <system_error>

#include "file_error.hpp"

namespace bloomkit::detail {

namespace {

// Linux's own limit (MAXSYMLINKS).
constexpr int max_symlinks = 40;

const char* type_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "a special file";
}

}  // namespace

std::filesystem::path resolve_symlinks(const std::filesystem::path& path,
                                       const std::string& source) {
  std::filesystem::path at = path;
  for (int links = 0; links <= max_symlinks; ++links) {
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) {
      if (errno == ENOENT) return at;  // a new file (or a missing directory, reported on open)
      fail_errno(source, at == path ? "cannot stat" : "cannot stat " + at.string());
    }
    if (!S_ISLNK(st.st_mode)) return at;
    std::error_code ec;
    const std::filesystem::path link = std::filesystem::read_symlink(at, ec);
    if (ec) fail_file(errc::io_error, source, "cannot read symbolic link " + at.string());
    at = link.is_absolute() ? link : at.parent_path() / link;
  }
  fail_file(errc::io_error, source,
            "too many levels of symbolic links (a loop?): refusing to write through them");
}

void require_regular_file(const struct stat& st, const std::filesystem::path& target,
                          const std::string& source) {
  if (S_ISREG(st.st_mode)) return;
  const std::string what = type_of(st.st_mode);
  if (target.string() == source) {
    fail_file(errc::io_error, source,
              "is " + what + ", not a regular file: refusing to replace it");
  }
  fail_file(
      errc::io_error, source,
      "links to " + target.string() + ", " + what + ", not a regular file: refusing to replace it");
}

}  // namespace bloomkit::detail
