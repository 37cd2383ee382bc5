// `prowl init --openapi SPEC [-o FILE]`: writes a starter model file from an OpenAPI document
// (docs/model-file.md, "Starting from an OpenAPI document"). The file is written whole or not at
// all: into a temporary file beside it, then renamed (or linked, so that an existing file is
// never replaced without --force, even one created meanwhile).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/modelfile/openapi.hpp"

namespace prowl::app {

namespace {

Status write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::environment(std::strerror(errno));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return Status::ok();
}

// Writes `text` to `path` atomically; an existing `path` is replaced only with `force`.
Status write_model_file(const std::string& path, std::string_view text, bool force) {
  const std::string temporary = fmt::format("{}.prowl-init-{}.tmp", path, ::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    return Status::invalid(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  }
  Status written = write_all(fd, text);
  if (written && ::fsync(fd) != 0) written = Status::environment(std::strerror(errno));
  if (::close(fd) != 0 && written) written = Status::environment(std::strerror(errno));
  if (written) {
    // link() fails with EEXIST where rename() would replace the file.
    const int moved =
        force ? ::rename(temporary.c_str(), path.c_str()) : ::link(temporary.c_str(), path.c_str());
    if (moved != 0 && errno == EEXIST) {
      written = Status::invalid(
          fmt::format("{} exists; give --force to replace it, or another -o FILE", path));
    } else if (moved != 0) {
      written = Status::environment(std::strerror(errno));
    }
  }
  ::unlink(temporary.c_str());
  if (!written && written.code() == StatusCode::kEnvironment) {
    return Status::environment(fmt::format("cannot write {}: {}", path, written.message()));
  }
  return written;
}

}  // namespace

int init_command(int argc, char** argv) {
  CLI::App app(
      "Writes a starter model file for `prowl explore` from an OpenAPI 3.0 or 3.1 document (YAML\n"
      "or JSON): an action per operation, ids bound from earlier answers, bodies from the\n"
      "examples, a no_5xx rule and the checks the answers' schemas imply. Its TODO comments mark\n"
      "what only you can decide. See docs/model-file.md, \"Starting from an OpenAPI document\".\n"
      "Exit codes: 0 written, 2 bad usage, a document prowl cannot read (the message names the\n"
      "file and line) or an -o FILE that exists (without --force) or cannot be created, 3\n"
      "writing it failed.\n",
      "prowl init");
  std::string spec, output = "-", command;
  bool force = false;
  app.add_option("--openapi", spec, "the OpenAPI document (YAML or JSON)")
      ->required()
      ->type_name("SPEC");
  app.add_option("-o,--output", output, "the model file to write; - (default): standard output")
      ->type_name("FILE");
  app.add_flag("--force", force, "replace FILE when it exists");
  app.add_option("--command", command,
                 "the command that starts the service, written into the model (one string, run\n"
                 "by /bin/sh -c in the model's directory; {port} is the port prowl picks)")
      ->type_name("CMD");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  modelfile::OpenApiInitOptions options;
  options.command = command;
  auto model = modelfile::model_from_openapi_file(spec, options);
  if (!model) {
    // "FILE:LINE:COL: message" first on the line, as `prowl explore` writes model errors.
    std::cerr << escape_lines(model.status().message()) << '\n';
    return model.status().exit_code();
  }
  if (output == "-") {
    std::cout << *model;
    return std::cout.flush() ? kExitOk : kExitEnvironment;
  }
  if (Status st = write_model_file(output, *model, force); !st) {
    std::cerr << "prowl init: " << escape_lines(st.message()) << '\n';
    return st.exit_code();
  }
  std::cout << "wrote " << escape_text(output) << " from " << escape_text(spec)
            << "; read its TODO comments, then: prowl explore " << escape_text(output) << '\n';
  return kExitOk;
}

}  // namespace prowl::app
