#include "prowl/learn/policy_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "prowl/core/escape.hpp"
#include "prowl/core/text_file.hpp"

namespace prowl::learn {
namespace {

constexpr std::string_view kMagic = "prowl-policy";
// A line quoted in a message is cut to this many bytes: a fuzzed file may hold megabyte lines.
constexpr std::size_t kQuoteLimit = 60;

std::string quoted(std::string_view text) {
  if (text.size() <= kQuoteLimit) return "'" + escape_text(text) + "'";
  return "'" + escape_text(text.substr(0, kQuoteLimit)) + "...'";
}

std::string join_sizes(const std::vector<int>& sizes) {
  std::string out;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(sizes[i]);
  }
  return out;
}

void append_numbers(std::string& out, const double* values, Eigen::Index count) {
  for (Eigen::Index i = 0; i < count; ++i) {
    if (i > 0) out += ' ';
    out += fmt::format("{:.17g}", values[i]);
  }
  out += '\n';
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

// The whitespace-separated tokens of a line.
std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

// Reads a policy file one line at a time: the magic line, the header, then each layer's
// "weights K" line, rows, "bias K" line and bias line. Numbers are collected as they are read and
// become matrices only once a layer is complete, so memory follows the text, not its sizes=.
class PolicyReader {
 public:
  PolicyReader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Result<PolicyFile> read();

 private:
  // Moves to the next line; false at the end of the text (line_no_ is then one past the last).
  bool next_line();
  Status fail(const std::string& message) const {
    return Status::invalid(fmt::format("{}:{}: {}", source_, line_no_, message));
  }
  Status read_magic();
  Status read_header();
  Status read_header_line(std::string_view key, std::string_view value);
  Status read_sizes(std::string_view value);
  Status read_layer(std::size_t index);
  Status read_vector();
  Status read_weights(std::size_t index, std::vector<double>& weights);
  Status read_numbers(std::size_t expected, const std::string& count_error,
                      std::vector<double>& out);
  std::string sizes_text() const { return "sizes=" + join_sizes(sizes_); }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
  std::string_view line_;
  std::vector<std::pair<std::string, std::string>> header_;
  std::unordered_map<std::string, std::size_t> key_lines_;  // key -> line it was given on
  std::vector<int> sizes_;
  std::optional<Activation> activation_;
  std::vector<Layer> layers_;
  std::vector<std::pair<std::string, Eigen::VectorXd>> vectors_;
  std::unordered_set<std::string> vector_names_;
};

bool PolicyReader::next_line() {
  ++line_no_;
  if (pos_ >= text_.size()) return false;
  const std::size_t end = text_.find('\n', pos_);
  const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
  line_ = text_.substr(pos_, stop - pos_);
  if (!line_.empty() && line_.back() == '\r') line_.remove_suffix(1);
  pos_ = stop + 1;
  return true;
}

Status PolicyReader::read_magic() {
  if (!next_line()) {
    return fail("the file is empty; a policy file starts with the line 'prowl-policy 1'");
  }
  const std::vector<std::string_view> tokens = tokens_of(line_);
  if (tokens.size() != 2 || tokens[0] != kMagic) {
    return fail(fmt::format(
        "expected 'prowl-policy 1' as the first line, found {}; is this a prowl policy file?",
        quoted(line_)));
  }
  if (tokens[1] != std::to_string(kPolicyFormatVersion)) {
    return fail(fmt::format(
        "policy format version {} is not supported (this prowl reads version {}); read it with "
        "the prowl that wrote it, or train the policy again",
        quoted(tokens[1]), kPolicyFormatVersion));
  }
  return Status::ok();
}

Status PolicyReader::read_header() {
  bool at_weights = false;
  while (next_line()) {
    if (line_ == "weights 1") {
      at_weights = true;
      break;
    }
    const std::size_t eq = line_.find('=');
    if (eq == std::string_view::npos) {
      return fail(
          fmt::format("expected a key=value header line or 'weights 1', found {}", quoted(line_)));
    }
    if (Status s = read_header_line(line_.substr(0, eq), line_.substr(eq + 1)); !s) return s;
  }
  if (sizes_.empty()) {
    return fail(
        "the header has no 'sizes=' line; add the architecture before 'weights 1', e.g. "
        "sizes=12,32,32,2");
  }
  if (!activation_) {
    return fail(
        "the header has no 'activation=' line; add activation=relu or activation=tanh before "
        "'weights 1'");
  }
  if (!at_weights) return fail("the file ends before 'weights 1'; is it truncated?");
  return Status::ok();
}

Status PolicyReader::read_header_line(std::string_view key, std::string_view value) {
  if (!valid_policy_key(key)) {
    return fail(fmt::format(
        "{} is not a valid key; keys are letters, digits, '_', '-' and '.', as in seed=42",
        quoted(key)));
  }
  const std::string name(key);
  if (auto [it, added] = key_lines_.emplace(name, line_no_); !added) {
    return fail(
        fmt::format("'{}' is given twice (first on line {}); keep one of them", name, it->second));
  }
  if (value.find('\r') != std::string_view::npos) {
    return fail(fmt::format(
        "the value of '{}' holds a carriage return ('\\r'); a header value is one line of text",
        name));
  }
  if (key == "sizes") return read_sizes(value);
  if (key == "activation") {
    activation_ = parse_activation(value);
    if (!activation_) {
      return fail(fmt::format("unknown activation {}; use activation=relu or activation=tanh",
                              quoted(value)));
    }
    return Status::ok();
  }
  header_.emplace_back(name, std::string(value));
  return Status::ok();
}

Status PolicyReader::read_sizes(std::string_view value) {
  std::vector<int> sizes;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = value.find(',', start);
    const std::string_view part =
        value.substr(start, comma == std::string_view::npos ? value.npos : comma - start);
    int size = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), size);
    if (ec != std::errc() || ptr != part.data() + part.size() || size < 1) {
      return fail(fmt::format(
          "{} in sizes= is not a positive whole number; write the layer sizes from the inputs "
          "to the outputs, e.g. sizes=12,32,32,2",
          quoted(part)));
    }
    sizes.push_back(size);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (sizes.size() < 2) {
    return fail("sizes= needs at least an input and an output size, e.g. sizes=12,32,32,2");
  }
  sizes_ = std::move(sizes);
  return Status::ok();
}

Status PolicyReader::read_numbers(std::size_t expected, const std::string& count_error,
                                  std::vector<double>& out) {
  const std::vector<std::string_view> tokens = tokens_of(line_);
  if (tokens.size() != expected) return fail(fmt::format(fmt::runtime(count_error), tokens.size()));
  for (std::string_view token : tokens) {
    double value = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (ec == std::errc::invalid_argument || ptr != token.data() + token.size()) {
      return fail(fmt::format(
          "{} is not a number; weights and biases are decimal numbers such as -0.25 or 1.5e-3",
          quoted(token)));
    }
    if (ec == std::errc::result_out_of_range) {
      return fail(
          fmt::format("{} is out of the range of a double; weights and biases are written with 17 "
                      "significant digits, such as -0.25 or 1.5e-3",
                      quoted(token)));
    }
    if (!std::isfinite(value)) {
      return fail(fmt::format(
          "{} is not a finite number; weights and biases must be finite (a network whose "
          "training diverged cannot be saved: train it again)",
          quoted(token)));
    }
    out.push_back(value);
  }
  return Status::ok();
}

Status PolicyReader::read_weights(std::size_t index, std::vector<double>& weights) {
  const std::size_t k = index + 1;
  const auto rows = static_cast<std::size_t>(sizes_[k]);
  const auto cols = static_cast<std::size_t>(sizes_[index]);
  for (std::size_t r = 0; r < rows; ++r) {
    if (!next_line()) {
      return fail(fmt::format(
          "the file ends inside layer {}'s weights after {} of the {} rows {} needs; is it "
          "truncated?",
          k, r, rows, sizes_text()));
    }
    if (line_ == fmt::format("bias {}", k)) {
      return fail(
          fmt::format("layer {} has only {} of the {} weight rows {} needs (one per output of "
                      "the layer)",
                      k, r, rows, sizes_text()));
    }
    const std::string count_error = fmt::format(
        "row {} of layer {}'s weights has {{}} numbers, but {} needs {} (one per "
        "input of the layer)",
        r + 1, k, sizes_text(), cols);
    if (Status s = read_numbers(cols, count_error, weights); !s) return s;
  }
  return Status::ok();
}

Status PolicyReader::read_layer(std::size_t index) {
  const std::size_t k = index + 1;
  const std::string weights_line = fmt::format("weights {}", k);
  const std::string bias_line = fmt::format("bias {}", k);
  // Layer 1's "weights 1" line ended the header.
  if (index > 0) {
    if (!next_line()) {
      return fail(fmt::format("the file ends before '{}' ({} has {} layers); is it truncated?",
                              weights_line, sizes_text(), sizes_.size() - 1));
    }
    if (line_ != weights_line) {
      return fail(fmt::format("expected '{}', found {}", weights_line, quoted(line_)));
    }
  }
  std::vector<double> weights;
  if (Status s = read_weights(index, weights); !s) return s;
  const int rows = sizes_[k];
  if (!next_line()) {
    return fail(fmt::format("the file ends before '{}'; is it truncated?", bias_line));
  }
  if (line_ != bias_line) {
    return fail(fmt::format("expected '{}' after layer {}'s {} weight rows ({}), found {}",
                            bias_line, k, rows, sizes_text(), quoted(line_)));
  }
  if (!next_line()) {
    return fail(fmt::format("the file ends before layer {}'s biases; is it truncated?", k));
  }
  std::vector<double> bias;
  const std::string count_error = fmt::format(
      "layer {}'s bias line has {{}} numbers, but {} needs {} (one per output of the layer)", k,
      sizes_text(), rows);
  if (Status s = read_numbers(static_cast<std::size_t>(rows), count_error, bias); !s) return s;
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  layers_.push_back({Eigen::Map<const RowMajor>(weights.data(), rows, sizes_[index]),
                     Eigen::Map<const Eigen::VectorXd>(bias.data(), rows)});
  return Status::ok();
}

Result<PolicyFile> PolicyReader::read() {
  if (Status s = read_magic(); !s) return s;
  if (Status s = read_header(); !s) return s;
  for (std::size_t index = 0; index + 1 < sizes_.size(); ++index) {
    if (Status s = read_layer(index); !s) return s;
  }
  while (next_line()) {
    if (!line_.starts_with("vector ")) {
      return fail(fmt::format(
          "unexpected {} after the last layer ({} has {} layers); only 'vector NAME COUNT' "
          "blocks may follow",
          quoted(line_), sizes_text(), sizes_.size() - 1));
    }
    if (Status s = read_vector(); !s) return s;
  }
  return PolicyFile{std::move(header_), Mlp(std::move(layers_), *activation_), std::move(vectors_)};
}

Status PolicyReader::read_vector() {
  const std::vector<std::string_view> tokens = tokens_of(line_);
  std::size_t count = 0;
  const auto parsed =
      tokens.size() == 3
          ? std::from_chars(tokens[2].data(), tokens[2].data() + tokens[2].size(), count)
          : std::from_chars_result{nullptr, std::errc::invalid_argument};
  if (parsed.ec != std::errc() || parsed.ptr != tokens[2].data() + tokens[2].size() || count == 0 ||
      !valid_policy_key(tokens[1])) {
    return fail(
        fmt::format("expected 'vector NAME COUNT' (a name of letters, digits, '_', '-' "
                    "and '.', and a count >= 1), found {}",
                    quoted(line_)));
  }
  const std::string name(tokens[1]);
  if (!vector_names_.insert(name).second) {
    return fail(fmt::format("vector '{}' is given twice", name));
  }
  if (!next_line()) {
    return fail(fmt::format("the file ends before vector '{}''s numbers; is it truncated?", name));
  }
  std::vector<double> values;
  const std::string count_error =
      fmt::format("vector '{}' has {{}} numbers on its line, but its count is {}", name, count);
  if (Status s = read_numbers(count, count_error, values); !s) return s;
  vectors_.emplace_back(name, Eigen::Map<const Eigen::VectorXd>(
                                  values.data(), static_cast<Eigen::Index>(values.size())));
  return Status::ok();
}

void check_header(const std::vector<std::pair<std::string, std::string>>& header) {
  std::unordered_map<std::string_view, int> seen;
  for (const auto& [key, value] : header) {
    PROWL_CHECK(valid_policy_key(key), "write_policy: '" + key + "' is not a valid key");
    PROWL_CHECK(key != "sizes" && key != "activation",
                "write_policy: '" + key + "' is written from the network, not the header");
    PROWL_CHECK(seen.emplace(key, 0).second, "write_policy: '" + key + "' is given twice");
    PROWL_CHECK(value.find_first_of("\r\n") == std::string::npos,
                "write_policy: the value of '" + key + "' holds a line break");
  }
}

Status write_all(int fd, const std::string& text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::environment(std::strerror(n < 0 ? errno : EIO));
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return Status::environment(std::strerror(errno));
  return Status::ok();
}

}  // namespace

bool valid_policy_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::string write_policy(const PolicyFile& policy) {
  check_header(policy.header);
  const Mlp& network = policy.network;
  PROWL_CHECK(network.all_finite(), "write_policy: the network has a non-finite parameter");
  std::string out = fmt::format("{} {}\n", kMagic, kPolicyFormatVersion);
  out += "sizes=" + join_sizes(network.sizes()) + "\n";
  out += fmt::format("activation={}\n", activation_name(network.hidden_activation()));
  for (const auto& [key, value] : policy.header) out += key + "=" + value + "\n";
  for (std::size_t l = 0; l < network.layers().size(); ++l) {
    const Layer& layer = network.layers()[l];
    out += fmt::format("weights {}\n", l + 1);
    for (Eigen::Index r = 0; r < layer.weights.rows(); ++r) {
      const Eigen::RowVectorXd row = layer.weights.row(r);
      append_numbers(out, row.data(), row.size());
    }
    out += fmt::format("bias {}\n", l + 1);
    append_numbers(out, layer.bias.data(), layer.bias.size());
  }
  for (const auto& [name, values] : policy.vectors) {
    PROWL_CHECK(valid_policy_key(name) && values.size() > 0 && values.allFinite(),
                "write_policy: vector '" + name + "' needs a valid name and finite numbers");
    out += fmt::format("vector {} {}\n", name, values.size());
    append_numbers(out, values.data(), values.size());
  }
  return out;
}

Result<PolicyFile> parse_policy(std::string_view text, const std::string& source) {
  return PolicyReader(text, source).read();
}

Result<PolicyFile> read_policy_file(const std::string& path) {
  Result<std::string> text = read_text_file(path, "policy file");
  if (!text) return text.status();
  return parse_policy(*text, path);
}

Status write_policy_file(const std::string& path, const PolicyFile& policy) {
  check_header(policy.header);
  if (!policy.network.all_finite()) {
    return Status::invalid(fmt::format(
        "cannot save the policy to '{}': the network has a weight or bias that is not finite "
        "(training diverged); train it again with a lower learning_rate or a gradient_clip",
        path));
  }
  for (const auto& [name, values] : policy.vectors) {
    if (!values.allFinite()) {
      return Status::invalid(fmt::format(
          "cannot save the policy to '{}': vector '{}' has a number that is not finite (training "
          "diverged); train it again with a lower learning rate",
          path, name));
    }
  }
  const std::string text = write_policy(policy);
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::environment(
        fmt::format("cannot write the policy file '{}': {}", temporary, std::strerror(errno)));
  }
  Status written = write_all(fd, text);
  if (::close(fd) != 0 && written) written = Status::environment(std::strerror(errno));
  if (written && std::rename(temporary.c_str(), path.c_str()) != 0) {
    written = Status::environment(std::strerror(errno));
  }
  if (!written) {
    ::unlink(temporary.c_str());
    return Status::environment(
        fmt::format("cannot write the policy file '{}': {}", path, written.message()));
  }
  return Status::ok();
}

}  // namespace prowl::learn
