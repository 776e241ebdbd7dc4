#pragma once
// Internal: the file a writer replaces. A path that is a symlink (or a chain of them) names the
// file at its end, which is written while the links stay links; what exists there must be a
// regular file.

#include <sys/stat.h>

#include <filesystem>
#include <string>

namespace bloomkit::detail {

// The path at the end of `path`'s symlink chain (relative links resolve against the link's
// directory); `path` itself when it is not a symlink or does not exist. Throws errc::io_error
// naming `source` for a loop (more than 40 links) or an unreadable link.
std::filesystem::path resolve_symlinks(const std::filesystem::path& path,
                                       const std::string& source);

// Throws errc::io_error naming `source` (and `target`, when `source` is a link to it) unless
// `st` is a regular file's.
void require_regular_file(const struct stat& st, const std::filesystem::path& target,
                          const std::string& source);

}  // namespace bloomkit::detail
