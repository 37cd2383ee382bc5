// Trace: the one replayable record prowl writes and reads — explorer findings, fuzz runs and
// hand-written scripts (docs/trace-format.md). A trace is a header (the model and its options)
// and a list of steps; each step carries its own seed, an action name, its arguments as text
// tokens, and the names of the handles it produced (terms, sorts, ids), which later steps refer
// to by name, so a shortened trace still binds correctly. Plain data; not thread-safe to share
// while mutating.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl::trace {

inline constexpr int kFormatVersion = 1;

struct Header {
  std::string model;  // the model's name, e.g. "smt_fuzz" or a YAML model's file name
  // The model's options in the order written (solver=z3, seed=42, ...). Keys are unique.
  std::vector<std::pair<std::string, std::string>> options;

  // The value of an option, or nullopt.
  std::optional<std::string> option(std::string_view key) const;
  // Sets an option, replacing an earlier value with the same key in place.
  void set_option(std::string key, std::string value);
};

struct Step {
  std::uint64_t seed = 0;
  std::string action;
  std::vector<std::string> args;     // tokens; a handle is referred to by its name
  std::vector<std::string> returns;  // names of the handles this step produced (its return line)
  std::vector<std::string> comments_before;  // comment lines before the step, without the '#'
  std::size_t line = 0;  // 1-based line of the step in the file it was read from; 0 if built
};

struct Trace {
  Header header;
  std::vector<Step> steps;
  std::vector<std::string> trailing_comments;  // comment lines after the last step
};

// A handle's name is its kind (lower-case letters) followed by a decimal number: t12 is a
// handle of kind "t". Returns the kind, or nullopt when `name` is not a handle name.
std::optional<std::string_view> handle_kind(std::string_view name);

// Writes a trace in the text format; parse_trace(write_trace(t)) == t for every trace whose
// tokens, names and comments are valid (see docs/trace-format.md), and
// write_trace(parse_trace(text)) == text for every text written by write_trace.
std::string write_trace(const Trace& trace);

// One line of the text format, without its newline.
std::string format_header(const Header& header);
std::string format_step(const Step& step);     // "SEED ACTION ARG..."
std::string format_returns(const Step& step);  // "return NAME..."; empty when nothing returned
// A token as written: bare when it is a plain word, otherwise quoted with escapes.
std::string quote_token(std::string_view token);

// Reads a trace. `source` names the file in messages. Errors are invalid Statuses (exit code 2)
// reading "SOURCE:LINE: what was expected".
Result<Trace> parse_trace(std::string_view text, std::string_view source = "<trace>");
// Reads a trace file: an unreadable file is an invalid Status naming it.
Result<Trace> read_trace_file(const std::string& path);
// Writes write_trace(trace) to `path`, replacing the file. Failing is an environment Status
// naming the file.
Status write_trace_file(const std::string& path, const Trace& trace);
// Where `shrink` writes by default: ".shrunk" before the file name's extension
// (dir/001-x.trace -> dir/001-x.shrunk.trace; a name without an extension gets ".shrunk" added).
std::string shrunk_trace_path(std::string_view path);

// Streams a trace to a file descriptor one line at a time with write(2), so that each line is in
// the file before the step it describes runs: a crash leaves a complete trace. Does not own the
// descriptor. Not thread-safe.
class TraceWriter {
 public:
  explicit TraceWriter(int fd) : fd_(fd) {}
  void header(const Header& header);
  void step(const Step& step);  // the comments before it, then the step line
  void returns(const std::vector<std::string>& names);  // nothing when `names` is empty
  void comment(std::string_view text);
  // False once a write failed (the trace is incomplete).
  bool ok() const { return ok_; }

 private:
  void line(const std::string& text);
  int fd_;
  bool ok_ = true;
};

}  // namespace prowl::trace
