#pragma once
// Names (file paths, Redis filter names, keys) in the tool's one-line outputs and messages
// (docs/CLI.md, "Names in output"). Names are bytes; every output and error line must stay one
// line, and an ordinary name must print exactly as it always did (scripts parse those lines).
//
// An ordinary name has no control byte (0x00-0x1F, 0x7F) and does not start with "$'": it is
// printed as it is. Any other name is printed in bash's ANSI-C quoting, $'...', with \t, \n, \r,
// \\, \' and \xHH for the other control bytes: one line, distinct names stay distinct (an
// ordinary name never starts with $'), and the text pasted into bash gives the name back.
// Other bytes, UTF-8 or not, are written as they are.

#include <string>
#include <string_view>

namespace bloomkit::cli {

// A name where an output line shows it bare: "created NAME: ...".
std::string printable(std::string_view name);
// A name inside a message: 'name', or $'...' as printable() gives it.
std::string quoted(std::string_view name);
// The name of a file in messages: quoted(name), or "stdin" for "-".
std::string quoted_name(std::string_view name);
// A message (one line by intent) with its control bytes written as C escapes (\n, \t, \r,
// \xHH): for messages that embed names as given, such as the library's ("f.bf: cannot open").
std::string one_line(std::string_view message);
// \t, \n or \r (backslash and letter): the escape of a tab, newline or carriage return, the same in
// C, JSON and bash's $'...'; nullptr for any other byte.
const char* short_escape(char c) noexcept;

}  // namespace bloomkit::cli
