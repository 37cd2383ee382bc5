#include "fsm/run_codec.hpp"

#include <charconv>

#include <fmt/format.h>

namespace prowl::fsm::detail {

// kind, steps, line, then the action and the message, each on its own line (the message last, as
// it may contain line breaks).
std::string encode_run(const RunResult& r) {
  return fmt::format("{}\n{}\n{}\n{}\n{}", static_cast<int>(r.kind), r.steps, r.line, r.action,
                     r.message);
}

namespace {

bool decode_run(const std::string& text, RunResult& r) {
  std::size_t pos = 0;
  auto field = [&](std::string& out) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) return false;
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return true;
  };
  auto number = [](const std::string& s, auto& value) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    return ec == std::errc() && ptr == s.data() + s.size();
  };
  std::string kind, steps, line;
  int k = 0;
  if (!field(kind) || !field(steps) || !field(line) || !field(r.action)) return false;
  if (!number(kind, k) || !number(steps, r.steps) || !number(line, r.line)) return false;
  if (k < 0 || k > static_cast<int>(RunKind::kBadTrace)) return false;
  r.kind = static_cast<RunKind>(k);
  r.message = text.substr(pos);
  return true;
}

}  // namespace

RunResult classify_isolated(const Isolated& iso, double timeout_seconds) {
  RunResult r;
  switch (iso.end) {
    case Isolated::End::kSignaled:
      r.kind = RunKind::kCrash;
      r.message = signal_name(iso.signal);
      return r;
    case Isolated::End::kTimedOut:
    case Isolated::End::kInterrupted:
      r.kind = RunKind::kTimeout;
      r.message = fmt::format("killed after {} s", timeout_seconds);
      return r;
    case Isolated::End::kExited:
      break;
  }
  if (iso.exit_code == 0 && decode_run(iso.payload, r)) return r;
  r = RunResult{};
  r.kind = RunKind::kCrash;
  r.message = fmt::format("exit code {} before the run ended", iso.exit_code);
  return r;
}

}  // namespace prowl::fsm::detail
