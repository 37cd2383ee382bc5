// Escaping what the system under test wrote (response bodies, rows, URLs, a service's output)
// before a terminal, a report line or a trace comment shows it. A value holding ESC, CR or LF
// could otherwise recolour the terminal, rewrite a line already printed, or forge a line of
// prowl's own output (a finding, a trace step). Every renderer goes through these two functions.
//
//   ESC                        \e          "\x1b[31mred" -> "\e[31mred"
//   LF, CR, TAB                \n \r \t
//   other C0 controls, DEL     \xNN        "\x07" -> "\x07" (as four characters)
//   C1 controls U+0080-U+009F  \uNNNN      some terminals obey them as ESC sequences
//   U+2028, U+2029, bidi       \uNNNN      line separators, and the overrides that reorder text
//     controls (U+202A-U+202E,             on screen (U+202E "right-to-left override")
//     U+2066-U+2069)
//   bytes that are not UTF-8   \xNN
//
// Everything else, valid UTF-8 included, is kept as it is; a backslash is not escaped (so a value
// holding a literal "\n" looks like an escaped line break: the escaping is for safety, not a
// reversible encoding). Thread-safe, pure functions.
#pragma once

#include <string>
#include <string_view>

namespace prowl {

// `text` with every character above escaped.
std::string escape_text(std::string_view text);

// The same, except that '\n' stays a line break: for prowl's own multi-line fields (a finding's
// message, a state's description, a service's stderr shown line by line), which a renderer
// indents line by line, so that no value can start a line of its own at the left margin. Values
// that go inside such a field one line each are escaped with escape_text where they are made.
std::string escape_lines(std::string_view text);

// True when escape_text(text) would change something.
bool needs_escape(std::string_view text);

}  // namespace prowl
