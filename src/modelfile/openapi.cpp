#include "prowl/modelfile/openapi.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "openapi_document.hpp"
#include "openapi_plan.hpp"
#include "openapi_writer.hpp"

namespace prowl::modelfile {

namespace {

Status openapi_too_large(const std::string& file, std::string_view size) {
  return Status::invalid(fmt::format("{}: the document is {}; prowl init reads at most {} MiB",
                                     file, size, kMaxOpenApiBytes >> 20));
}

}  // namespace

Result<std::string> model_from_openapi(std::string_view text, const std::string& file,
                                       const OpenApiInitOptions& options) {
  if (text.size() > kMaxOpenApiBytes)
    return openapi_too_large(file, fmt::format("{} bytes", text.size()));
  auto doc = detail::OpenApiDocument::parse(text, file);
  if (!doc) return doc.status();
  const detail::ModelPlan plan = detail::plan_model(*doc);
  // The file name alone, so that the same document writes the same model from any directory.
  const std::string source =
      options.source.empty() ? std::filesystem::path(file).filename().string() : options.source;
  return detail::write_model(plan, options, source);
}

Result<std::string> model_from_openapi_file(const std::string& path,
                                            const OpenApiInitOptions& options) {
  const auto unreadable = [&](const std::string& reason) {
    return Status::invalid(fmt::format(
        "{}: cannot read the OpenAPI document: {}\n  hint: give the path of the document's YAML "
        "or JSON file",
        path, reason));
  };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) return unreadable(ec.message());
  if (std::filesystem::is_directory(status)) return unreadable("it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable(std::error_code(errno, std::generic_category()).message());
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxOpenApiBytes) return openapi_too_large(path, fmt::format("{} bytes", size));
  std::string text;
  std::vector<char> chunk(64 * 1024);
  while (text.size() <= kMaxOpenApiBytes && in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return unreadable(std::error_code(errno, std::generic_category()).message());
  if (text.size() > kMaxOpenApiBytes) {
    return openapi_too_large(path, fmt::format("more than {} bytes", kMaxOpenApiBytes));
  }
  return model_from_openapi(text, path, options);
}

}  // namespace prowl::modelfile
