#include "run_codec.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
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

namespace {

// The last non-empty line of a run's output: what a library prints before it aborts.
std::string last_output_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = text.rfind('\n', end - 1);
    start = start == std::string::npos ? 0 : start + 1;
    std::string_view line(text.data() + start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!line.empty()) return std::string(line.substr(0, 200));
    if (start == 0) break;
    end = start - 1;
  }
  return {};
}

}  // namespace

void add_output_to_crash(RunResult& r, const std::string& output) {
  if (r.kind != RunKind::kCrash) return;
  const std::string line = last_output_line(output);
  if (!line.empty()) r.message += ": " + line;
}

namespace {
std::atomic<int> g_stop_signal{0};
void on_stop_signal(int signal) { g_stop_signal.store(signal); }
}  // namespace

StopSignals::StopSignals() {
  g_stop_signal.store(0);
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &old_int_);
  ::sigaction(SIGTERM, &action, &old_term_);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
}

bool StopSignals::stopped() { return g_stop_signal.load() != 0; }
int StopSignals::signal() { return g_stop_signal.load(); }

MemoryFile::MemoryFile() : fd_(::memfd_create("prowl-run", MFD_CLOEXEC)) {}

MemoryFile::~MemoryFile() {
  if (fd_ >= 0) ::close(fd_);
}

void MemoryFile::reset() {
  if (::ftruncate(fd_, 0) != 0) return;
  ::lseek(fd_, 0, SEEK_SET);
}

std::string MemoryFile::contents() const {
  std::string out;
  char buffer[8192];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd_, buffer, sizeof buffer, at);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
    at += n;
  }
  return out;
}

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
