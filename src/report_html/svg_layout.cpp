#include "svg_layout.hpp"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <memory>
#include <mutex>

#include <fmt/format.h>

namespace prowl::detail {

namespace {

std::mutex graphviz_mutex;
std::string* graphviz_errors = nullptr;  // under graphviz_mutex: where messages go meanwhile

int collect_error(char* message) {
  if (graphviz_errors != nullptr) *graphviz_errors += message;
  return 0;
}

// Graphviz's messages go to `errors` instead of standard error while it is alive.
class ErrorCapture {
 public:
  explicit ErrorCapture(std::string& errors) : previous_(agseterrf(collect_error)) {
    graphviz_errors = &errors;
  }
  ~ErrorCapture() {
    agseterrf(previous_);
    graphviz_errors = nullptr;
  }
  ErrorCapture(const ErrorCapture&) = delete;
  ErrorCapture& operator=(const ErrorCapture&) = delete;

 private:
  agusererrf previous_;
};

// The process's one Graphviz context, made on first use and never freed. Graphviz 2.42 keeps a
// cache of the last font across contexts that freeing a context leaves dangling: the next
// context's text layout reads freed memory (AddressSanitizer shows it). REQUIRES: graphviz_mutex.
GVC_t* graphviz_context() {
  static GVC_t* const context = gvContext();
  return context;
}

Status graphviz_failed(std::string_view what, std::string errors) {
  while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' ')) errors.pop_back();
  return Status::environment(fmt::format("Graphviz could not {} the state graph{}{}", what,
                                         errors.empty() ? "" : ": ", errors));
}

// The SVG element of Graphviz's document, its comments left out.
std::string svg_element(std::string_view document) {
  const std::size_t start = document.find("<svg");
  if (start == std::string_view::npos) return "";
  std::string_view rest = document.substr(start);
  std::string out;
  out.reserve(rest.size());
  while (!rest.empty()) {
    const std::size_t open = rest.find("<!--");
    if (open == std::string_view::npos) {
      out += rest;
      break;
    }
    out += rest.substr(0, open);
    const std::size_t close = rest.find("-->", open + 4);
    if (close == std::string_view::npos) break;
    rest.remove_prefix(close + 3);
    // The line the comment stood on, when it had one of its own.
    if (!rest.empty() && rest.front() == '\n' && (out.empty() || out.back() == '\n')) {
      rest.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace

Result<std::string> layout_svg(const std::string& dot) {
  std::lock_guard<std::mutex> lock(graphviz_mutex);
  std::string errors;
  ErrorCapture capture(errors);
  GVC_t* const gvc = graphviz_context();
  if (gvc == nullptr) return graphviz_failed("start to lay out", errors);
  const std::unique_ptr<Agraph_t, int (*)(Agraph_t*)> graph(agmemread(dot.c_str()), agclose);
  if (!graph) return graphviz_failed("read", errors);
  if (gvLayout(gvc, graph.get(), "dot") != 0) {
    gvFreeLayout(gvc, graph.get());  // what it allocated before it failed
    return graphviz_failed("lay out", errors);
  }
  char* data = nullptr;
  unsigned int length = 0;
  const int rendered = gvRenderData(gvc, graph.get(), "svg", &data, &length);
  std::string document = data != nullptr ? std::string(data, length) : std::string();
  if (data != nullptr) gvFreeRenderData(data);
  gvFreeLayout(gvc, graph.get());
  if (rendered != 0 || document.empty()) return graphviz_failed("render", errors);
  std::string svg = svg_element(document);
  if (svg.empty()) return graphviz_failed("render", errors);
  return svg;
}

}  // namespace prowl::detail
