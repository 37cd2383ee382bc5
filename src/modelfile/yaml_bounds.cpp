#include "yaml_bounds.hpp"

#include <algorithm>
#include <cstdint>
#include <istream>
#include <optional>
#include <streambuf>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "prowl/modelfile/loader.hpp"

namespace prowl::modelfile::detail {

namespace {

// Thrown by the handler to leave yaml-cpp's parser at the node that crosses a limit.
struct Stop {
  SourcePos pos;
  std::string message;
};

SourcePos pos_of(const YAML::Mark& mark) {
  return {std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1};
}

// The text as yaml-cpp reads it, in small chunks, counting the indicator characters (the ones
// that can end or start a token: brackets, commas, colons, quotes, anchors, ...) served since
// the handler last saw an event. yaml-cpp's scanner holds every token it scans while a simple key
// may still be pending, which for a flow collection that begins a document or a list entry lasts
// until the collection closes, at well over a hundred bytes a token: 4 MiB of "[1,1,...]" took
// 550 MB, and of "[[[[..." 1 GB, before a single event. Reading stops (end of input) once
// kMaxReadAhead indicators have been served without an event, which bounds those tokens.
class MeteredText final : public std::streambuf {
 public:
  static constexpr std::size_t kMaxReadAhead = 65536;

  explicit MeteredText(std::string_view text) : text_(text) {}

  // The handler has an event: what was read so far has become nodes.
  void event() { since_event_ = 0; }
  // The offset of the indicator that crossed the limit (reading stopped there), or npos.
  std::size_t stopped_at() const { return stopped_at_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (stopped_at_ != std::string_view::npos || served_ == text_.size()) {
      return traits_type::eof();
    }
    const std::size_t n = std::min(kChunk, text_.size() - served_);
    for (std::size_t i = 0; i < n; ++i) {
      if (is_indicator(text_[served_ + i]) && ++since_event_ > kMaxReadAhead) {
        stopped_at_ = served_ + i;
        return traits_type::eof();
      }
    }
    // The get area is only read from.
    char* begin = const_cast<char*>(text_.data() + served_);
    setg(begin, begin, begin + n);
    served_ += n;
    return traits_type::to_int_type(*gptr());
  }

 private:
  static constexpr std::size_t kChunk = 1024;
  static bool is_indicator(char c) {
    return std::string_view(",[]{}:-?#&*!|>'\"%@`").find(c) != std::string_view::npos;
  }

  std::string_view text_;
  std::size_t served_ = 0;
  std::size_t since_event_ = 0;
  std::size_t stopped_at_ = std::string_view::npos;
};

// Line and column (1-based) of byte `offset` of `text`, in characters.
SourcePos position_of(std::string_view text, std::size_t offset) {
  SourcePos pos{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80) {
      ++pos.column;
    }
  }
  return pos;
}

// Counts the expanded document as its events arrive. A collection's level is the number of
// collections around it, itself included (the root's is 1); its height, the levels it spans
// (deepest level inside it, minus its own, plus one); a scalar has height 0.
class Counter final : public YAML::EventHandler {
 public:
  Counter(MeteredText& text, YamlBounds bounds) : text_(text), bounds_(bounds) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { scalar(mark, anchor, 0); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    scalar(mark, anchor, value.size());
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    seen();
    // yaml-cpp refuses an alias to an anchor it has not seen before calling this.
    if (anchor >= anchors_.size() || !anchors_[anchor].done) {
      throw Stop{pos_of(mark),
                 "this alias names a node that contains it: its expansion would never end"};
    }
    const Anchored& a = anchors_[anchor];
    add(mark, a.nodes, a.bytes, /*alias=*/true);
    reach(mark, open_.size() + a.height);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    start(mark, anchor);
  }
  void OnSequenceEnd() override { end(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    start(mark, anchor);
  }
  void OnMapEnd() override { end(); }

 private:
  struct Open {
    std::uint64_t nodes_before = 0;  // total_ before this collection
    std::uint64_t bytes_before = 0;  // bytes_ before this collection
    std::size_t level = 0;
    std::size_t deepest = 0;  // the deepest level inside it so far
    YAML::anchor_t anchor = YAML::NullAnchor;
  };
  struct Anchored {
    std::uint64_t nodes = 0;
    std::uint64_t bytes = 0;  // of its scalars, aliases expanded
    std::size_t height = 0;
    bool done = false;  // false while its collection is open
  };

  void seen() { text_.event(); }
  void add(const YAML::Mark& mark, std::uint64_t nodes, std::uint64_t bytes, bool alias) {
    total_ += nodes;
    bytes_ += bytes;
    if (total_ > bounds_.nodes) {
      throw Stop{pos_of(mark),
                 alias ? fmt::format("aliases expand the document to more than {} "
                                     "nodes",
                                     bounds_.nodes)
                       : fmt::format("the document has more than {} nodes", bounds_.nodes)};
    }
    // A few large scalars repeated by aliases are few nodes but much text to copy.
    if (bytes_ > bounds_.bytes) {
      throw Stop{pos_of(mark), fmt::format("aliases expand the document to more than {} MiB of "
                                           "text",
                                           bounds_.bytes >> 20)};
    }
  }
  // A collection at `level` (an expanded alias's deepest one) lies inside every open one.
  void reach(const YAML::Mark& mark, std::size_t level) {
    if (level > bounds_.depth) {
      throw Stop{pos_of(mark),
                 fmt::format("the document nests deeper than {} levels", bounds_.depth)};
    }
    if (!open_.empty()) open_.back().deepest = std::max(open_.back().deepest, level);
  }
  Anchored& anchored(YAML::anchor_t anchor) {
    if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
    return anchors_[anchor];
  }
  void scalar(const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t size) {
    seen();
    add(mark, 1, size, /*alias=*/false);
    if (anchor != YAML::NullAnchor) anchored(anchor) = {1, size, 0, true};
  }
  void start(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen();
    const std::size_t level = open_.size() + 1;
    reach(mark, level);
    const std::uint64_t before = total_;
    const std::uint64_t bytes_before = bytes_;
    add(mark, 1, 0, /*alias=*/false);
    if (anchor != YAML::NullAnchor) anchored(anchor) = {0, 0, 0, false};
    open_.push_back({before, bytes_before, level, level, anchor});
  }
  void end() {
    text_.event();
    const Open o = open_.back();
    open_.pop_back();
    if (o.anchor != YAML::NullAnchor) {
      anchored(o.anchor) = {total_ - o.nodes_before, bytes_ - o.bytes_before,
                            o.deepest - o.level + 1, true};
    }
    if (!open_.empty()) open_.back().deepest = std::max(open_.back().deepest, o.deepest);
  }

  MeteredText& text_;
  YamlBounds bounds_;
  std::vector<Open> open_;
  std::vector<Anchored> anchors_;  // by yaml-cpp's anchor id
  std::uint64_t total_ = 0;        // nodes so far, aliases expanded
  std::uint64_t bytes_ = 0;        // bytes of scalars so far, aliases expanded
};

}  // namespace

namespace {

struct BadByte {
  int line;
  int column;  // in characters
  unsigned char byte;
};

// The first byte that breaks UTF-8, or nullopt when the text is UTF-8.
std::optional<BadByte> first_non_utf8(std::string_view text) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t len = c < 0x80           ? 1
                            : (c >> 5) == 0x6  ? 2
                            : (c >> 4) == 0xe  ? 3
                            : (c >> 3) == 0x1e ? 4
                                               : 0;
    bool ok = len != 0 && i + len <= text.size() && (len != 2 || c >= 0xc2);
    for (std::size_t k = 1; ok && k < len; ++k) {
      ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    }
    if (!ok) return BadByte{line, column, c};
    column = c == '\n' ? 1 : column + 1;
    line += c == '\n' ? 1 : 0;
    i += len;
  }
  return std::nullopt;
}

}  // namespace

Status check_utf8(std::string_view text, const Reader& reader) {
  if (std::optional<BadByte> bad = first_non_utf8(text)) {
    return reader.error({bad->line, bad->column},
                        fmt::format("the file is not UTF-8 text (byte 0x{:02X})", bad->byte),
                        "save the file as UTF-8");
  }
  return Status::ok();
}

Status yaml_syntax_error(const YAML::Exception& e, const Reader& reader) {
  return reader.error(pos_of(e.mark), fmt::format("YAML syntax error: {}", e.msg),
                      "check the indentation and quoting here or just above; a value with "
                      "'{', '}' or ': ' inside needs quotes");
}

Status check_yaml_bounds(std::string_view text, const Reader& reader, YamlBounds bounds) {
  MeteredText metered(text);
  std::istream in(&metered);
  Counter counter(metered, bounds);
  Status status;
  try {
    YAML::Parser parser(in);
    parser.HandleNextDocument(counter);
  } catch (const Stop& stop) {
    status = reader.error(stop.pos, stop.message);
  } catch (const YAML::Exception& e) {
    status = yaml_syntax_error(e, reader);
  }
  // Once the text is cut short, what yaml-cpp makes of the rest (a syntax error, a key of an
  // implicit mapping at every '[') says nothing about the file: the cut is the reason.
  if (const std::size_t at = metered.stopped_at(); at != std::string_view::npos) {
    return reader.error(
        position_of(text, at),
        fmt::format("more than {} brackets, commas and other YAML indicators before the YAML "
                    "reader could complete a node",
                    MeteredText::kMaxReadAhead),
        "it holds every token of a [...] or {...} collection that begins the document or a list "
        "entry until the collection closes: write one this long in block style, one entry per "
        "line");
  }
  return status;
}

}  // namespace prowl::modelfile::detail
