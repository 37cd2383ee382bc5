// What ProcessSystem shows: the captured output of its child, the messages of its failures, and
// died(); every text with the secrets redacted.
#include <fmt/format.h>

#include "process_child.hpp"
#include "process_detail.hpp"
#include "prowl/systems/process.hpp"
#include "secrets.hpp"

namespace prowl {
namespace {

std::string last_bytes(std::string text, std::size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

}  // namespace

std::string ProcessSystem::redact(std::string_view text) const {
  return detail::redact_secrets(text, secrets_);
}

std::string ProcessSystem::stdout_tail() const {
  if (!child_) return {};
  std::string out;
  {
    std::lock_guard<std::mutex> lock(child_->mu);
    out = child_->out;
  }
  // Redacted before the cut: a cut never leaves the end of a secret that the buffer holds whole.
  return last_bytes(redact(out), options_.output_limit);
}

std::string ProcessSystem::stderr_tail() const {
  if (!child_) return {};
  std::string err;
  {
    std::lock_guard<std::mutex> lock(child_->mu);
    err = child_->err;
  }
  return last_bytes(redact(err), options_.output_limit);
}

std::string ProcessSystem::output_tail(std::size_t max_bytes_per_stream) const {
  std::string err = last_bytes(stderr_tail(), max_bytes_per_stream);
  std::string out = last_bytes(stdout_tail(), max_bytes_per_stream);
  if (err.empty() && out.empty()) return "(the service wrote nothing to stdout or stderr)";
  auto trimmed = [](std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s.empty() ? std::string("(nothing)") : s;
  };
  return "stderr:\n" + trimmed(std::move(err)) + "\nstdout:\n" + trimmed(std::move(out));
}

std::string ProcessSystem::failure(std::string_view reason) const {
  return redact(
      fmt::format("service '{}' (`{}`) {}\n{}", name(), shown_command_, reason, output_tail()));
}

std::string ProcessSystem::cannot_start(std::string_view reason) const {
  return redact(
      fmt::format("service '{}' (`{}`) cannot be started: {}", name(), shown_command_, reason));
}

std::string ProcessSystem::died() const {
  if (!child_) return {};
  Child& c = *child_;
  if (!c.reaped) {
    // Asked after a failed step: a service killed a moment ago has closed its sockets (the step
    // saw the connection reset or refused) but may not be a zombie yet. It is then exiting; reap()
    // waits the moment it takes.
    if (!c.exited() && !c.exiting()) return {};
    c.reap();  // collects the status and the last of the output
    c.unexpected = true;
  }
  if (!c.unexpected) return {};
  c.reported = true;
  return detail::describe_death(c.wait_status, stderr_tail());
}

}  // namespace prowl
