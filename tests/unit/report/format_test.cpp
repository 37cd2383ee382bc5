#include "prowl/report/format.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace prowl {
namespace {

// The formats prowl::report knows, then html when a test of this program registered it
// (HtmlReport.*: registering lasts for the process).
std::vector<std::string> known_formats() {
  std::vector<std::string> names{"json", "junit", "sarif", "markdown", "dot"};
  if (find_report_format("html") != nullptr) names.push_back("html");
  return names;
}

TEST(ReportFormat, ParsesFormatColonFileAtTheFirstColon) {
  auto spec = parse_report_spec("json:C:/reports/run.json");
  ASSERT_TRUE(spec.is_ok());
  EXPECT_EQ(spec->format, "json");
  EXPECT_EQ(spec->path, "C:/reports/run.json");
}

TEST(ReportFormat, RejectsAnUnknownFormatListingTheKnownOnes) {
  auto spec = parse_report_spec("xml:out.xml");
  ASSERT_FALSE(spec.is_ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalid);
  std::string known;
  for (const std::string& name : known_formats()) known += (known.empty() ? "" : ", ") + name;
  EXPECT_EQ(spec.status().message(),
            "unknown report format 'xml' in 'xml:out.xml'; choose one of: " + known);
  EXPECT_EQ(known.rfind("json, junit, sarif, markdown, dot", 0), 0u);
}

TEST(ReportFormat, RejectsATextWithoutColonOrFile) {
  EXPECT_EQ(parse_report_spec("out.json").status().message(),
            "report 'out.json' is not FORMAT:FILE (for example json:out.json)");
  EXPECT_EQ(parse_report_spec("json:").status().message(),
            "report 'json:' names no file after the ':'");
}

TEST(ReportFormat, ListsJsonJunitAndMarkdown) {
  EXPECT_EQ(report_format_names(), known_formats());
  const auto junit = parse_report_spec("junit:reports/run.xml");
  ASSERT_TRUE(junit.is_ok()) << junit.status().message();
  EXPECT_EQ(junit->format, "junit");
  EXPECT_EQ(junit->path, "reports/run.xml");
}

}  // namespace
}  // namespace prowl

namespace prowl {
namespace {

class ReportDestination : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("prowl-report-dest-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(ReportDestination, CreatesTheDirectoryAndLeavesNoFileBehind) {
  const std::string path = (dir_ / "a" / "b" / "r.json").string();
  EXPECT_TRUE(check_report_destination({"json", path}));
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "a" / "b"));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(ReportDestination, KeepsAFileThatIsAlreadyThere) {
  const std::string path = (dir_ / "r.json").string();
  std::ofstream(path) << "old";
  EXPECT_TRUE(check_report_destination({"json", path}));
  std::ifstream in(path);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "old");
}

// A symbolic link to a file not there yet stays a link, and its target is not created early.
TEST_F(ReportDestination, LeavesALinkToAMissingFileAsItIs) {
  std::filesystem::create_directories(dir_ / "sub");
  const auto link = dir_ / "link.json";
  std::filesystem::create_symlink(dir_ / "sub" / "target.json", link);
  EXPECT_TRUE(check_report_destination({"json", link.string()}));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "sub" / "target.json"));
}

TEST_F(ReportDestination, RefusesADirectoryAndAPathBelowAFile) {
  const Status dir = check_report_destination({"json", dir_.string()});
  EXPECT_EQ(dir.code(), StatusCode::kInvalid);
  EXPECT_EQ(dir.message(), "report 'json:" + dir_.string() + "': '" + dir_.string() +
                               "' is a directory; give a file name, such as " +
                               (dir_ / "report.json").string());
  const Status below = check_report_destination({"json", "/dev/null/r.json"});
  EXPECT_EQ(below.code(), StatusCode::kInvalid);
  EXPECT_EQ(below.message(),
            "report 'json:/dev/null/r.json': cannot create the directory '/dev/null': Not a "
            "directory");
}

TEST_F(ReportDestination, AcceptsStandardOutput) {
  EXPECT_TRUE(check_report_destination({"json", "-"}));
  EXPECT_TRUE(ReportSpec({"json", "-"}).to_stdout());
}

}  // namespace
}  // namespace prowl
