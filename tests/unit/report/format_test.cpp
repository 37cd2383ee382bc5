#include "prowl/report/format.hpp"

#include <gtest/gtest.h>

namespace prowl {
namespace {

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
  EXPECT_EQ(spec.status().message(),
            "unknown report format 'xml' in 'xml:out.xml'; choose one of: json");
}

TEST(ReportFormat, RejectsATextWithoutColonOrFile) {
  EXPECT_EQ(parse_report_spec("out.json").status().message(),
            "report 'out.json' is not FORMAT:FILE (for example json:out.json)");
  EXPECT_EQ(parse_report_spec("json:").status().message(),
            "report 'json:' names no file after the ':'");
}

TEST(ReportFormat, ListsJsonAsTheOnlyFormatSoFar) {
  EXPECT_EQ(report_format_names(), std::vector<std::string>{"json"});
}

}  // namespace
}  // namespace prowl
