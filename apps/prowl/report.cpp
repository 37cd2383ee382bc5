// `prowl report IN.json [--to FORMAT:FILE]...`: a run's JSON report written again in other
// formats after the fact (a CI job that kept the JSON and wants JUnit, SARIF or HTML), or shown
// as the console report. Every destination is checked before anything is written.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.hpp"
#include "prowl/core/escape.hpp"
#include "prowl/core/exit_code.hpp"
#include "prowl/report/console.hpp"
#include "prowl/report/format.hpp"
#include "prowl/report/json.hpp"
#include "prowl/report_html/html.hpp"

namespace prowl::app {

namespace {

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::invalid(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::invalid(fmt::format("cannot read {}", path));
  return text.str();
}

}  // namespace

int report_command(int argc, char** argv) {
  register_html_report();  // before the help text lists the formats
  CLI::App app(
      "Reads the JSON report of a run (--report json:FILE) and writes it again in other formats,\n"
      "or, without --to, shows it as the console report. The findings are grouped into bugs\n"
      "again; the graph-drawing formats draw the graph the JSON holds (runs that wrote an html\n"
      "or dot report keep it), else only the findings' paths.\n"
      "Exit codes: 0 written, 2 bad usage, a file that is not a prowl JSON report (the message\n"
      "names the field) or a destination that cannot be written, 3 writing failed.\n",
      "prowl report");
  std::string input;
  std::vector<std::string> to;
  std::string color = "auto";
  app.add_option("REPORT", input, "the JSON report a run wrote")->required()->type_name("FILE");
  app.add_option("--to", to,
                 fmt::format("FORMAT:FILE to write (repeatable; FILE - is standard output);\n"
                             "formats: {}",
                             fmt::join(report_format_names(), ", ")))
      ->type_name("FORMAT:FILE");
  app.add_option("--color", color,
                 "colour the console report: auto (default: on a terminal, unless NO_COLOR is "
                 "set), never or always")
      ->check(CLI::IsMember({"auto", "never", "always"}))
      ->type_name("WHEN");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  std::vector<ReportSpec> specs;
  for (const std::string& text : to) {
    auto spec = parse_report_spec(text);
    if (!spec) {
      std::cerr << "prowl report: --to: " << escape_lines(spec.status().message()) << '\n';
      return kExitUsage;
    }
    specs.push_back(std::move(*spec));
  }
  auto text = read_file(input);
  if (!text) {
    std::cerr << "prowl report: " << escape_lines(text.status().message()) << '\n';
    return text.status().exit_code();
  }
  auto report = parse_json_report(*text);
  if (!report) {
    std::cerr << fmt::format("prowl report: {}: {}\n", escape_text(input),
                             escape_lines(report.status().message()));
    return report.status().exit_code();
  }
  if (specs.empty()) {
    const ColorChoice choice = color == "always"  ? ColorChoice::kAlways
                               : color == "never" ? ColorChoice::kNever
                                                  : ColorChoice::kAuto;
    write_console_report(std::cout, *report,
                         {.color = console_color(choice, ::isatty(STDOUT_FILENO) != 0)});
    return std::cout.flush() ? kExitOk : kExitEnvironment;
  }
  for (const ReportSpec& spec : specs) {
    if (Status st = check_report_destination(spec); !st) {
      std::cerr << "prowl report: " << escape_lines(st.message()) << '\n';
      return st.exit_code();
    }
  }
  int code = kExitOk;
  for (const ReportSpec& spec : specs) {
    if (Status st = write_report(spec, *report); !st) {
      std::cerr << "prowl report: " << escape_lines(st.message()) << '\n';
      code = st.exit_code();
    } else if (!spec.to_stdout()) {
      std::cerr << fmt::format("{} report written to {}\n", spec.format, escape_text(spec.path));
    }
  }
  return code;
}

}  // namespace prowl::app
