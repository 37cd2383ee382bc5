// Templates keep the values the service chose as data where they end up: in a URL each value is
// percent-encoded for its part of it (a path segment, the query string or the fragment written in
// the path), unless the template asks for it raw; literal text stays as written.
#include "prowl/modelfile/template.hpp"

#include <gtest/gtest.h>

#include <string>

namespace prowl::modelfile {
namespace {

std::string url(std::string_view path, const Context& ctx) {
  auto t = Template::parse(path);
  EXPECT_TRUE(t.is_ok()) << t.status().message();
  return t->render_url(ctx);
}

Context with(std::string_view key, Value value) {
  Context ctx;
  ctx.set(key, std::move(value));
  return ctx;
}

TEST(TemplateUrl, AValueInThePathIsOneEncodedSegment) {
  const Context ctx = with("id", Value(std::string("../admin?role=root#x")));
  EXPECT_EQ(url("/orders/${id}/pay", ctx), "/orders/..%2Fadmin%3Frole%3Droot%23x/pay");
}

TEST(TemplateUrl, OnlyTheUnreservedCharactersOfAValueStayAsTheyAre) {
  const Context ctx = with("v", Value(std::string("AZaz09-._~ !\"$%&'()*+,/:;=?@[]")));
  EXPECT_EQ(url("/${v}", ctx),
            "/AZaz09-._~%20%21%22%24%25%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D");
}

TEST(TemplateUrl, AValueOfUtf8TextIsEncodedByteByByte) {
  // "café ☕": é is C3 A9, ☕ is E2 98 95.
  EXPECT_EQ(url("/items/${name}", with("name", Value(std::string("caf\xc3\xa9 \xe2\x98\x95")))),
            "/items/caf%C3%A9%20%E2%98%95");
}

TEST(TemplateUrl, ADotSegmentFromAValueIsEncoded) {
  EXPECT_EQ(url("/files/${f}/x", with("f", Value(std::string("..")))), "/files/%2E%2E/x");
  EXPECT_EQ(url("/files/${f}/x", with("f", Value(std::string(".")))), "/files/%2E/x");
  // Only a value that is exactly "." or "..": other dots are unreserved.
  EXPECT_EQ(url("/files/${f}", with("f", Value(std::string("...")))), "/files/...");
  EXPECT_EQ(url("/files/${f}", with("f", Value(std::string("a..b")))), "/files/a..b");
}

TEST(TemplateUrl, AValueAfterAQuestionMarkIsAnEncodedQueryComponent) {
  Context ctx;
  ctx.set("q", Value(std::string("a&b=c d")));
  ctx.set("dots", Value(std::string("..")));
  EXPECT_EQ(url("/search?q=${q}&next=${dots}", ctx), "/search?q=a%26b%3Dc%20d&next=..");
}

TEST(TemplateUrl, AValueAfterAHashIsAnEncodedFragment) {
  Context ctx;
  ctx.set("f", Value(std::string("x#y?z /")));
  ctx.set("dot", Value(std::string(".")));
  EXPECT_EQ(url("/page#${f}${dot}", ctx), "/page#x%23y%3Fz%20%2F.");
  EXPECT_EQ(url("/page?a=1#${f}", ctx), "/page?a=1#x%23y%3Fz%20%2F");
}

TEST(TemplateUrl, AQuestionMarkInAValueDoesNotStartTheQuery) {
  Context ctx;
  ctx.set("a", Value(std::string("?")));
  ctx.set("b", Value(std::string("..")));
  // Still in the path after the value: b is a dot segment to encode.
  EXPECT_EQ(url("/${a}/${b}", ctx), "/%3F/%2E%2E");
}

TEST(TemplateUrl, ARawValueIsInsertedAsItIs) {
  Context ctx;
  ctx.set("next", Value(std::string("/orders/7?page=2")));
  ctx.set("id", Value(std::string("a/b")));
  EXPECT_EQ(url("${raw:next}&id=${id}", ctx), "/orders/7?page=2&id=a%2Fb");
  auto t = Template::parse("${raw:next}/x");
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(t->keys(), std::vector<std::string>{"next"});
  EXPECT_EQ(*t->first_raw(), "next");
  EXPECT_FALSE(t->is_literal());
  EXPECT_FALSE(t->single_key().has_value());
  EXPECT_EQ(*t->missing(Context()), "next");
  // As text (not a URL), raw and plain keys render alike.
  EXPECT_EQ(t->render(ctx), "/orders/7?page=2/x");
}

TEST(TemplateUrl, LiteralTextIsNotChanged) {
  const Context ctx = with("id", Value(std::int64_t{7}));
  EXPECT_EQ(url("/a b/%2F/../${id}?x=y z#f g", ctx), "/a b/%2F/../7?x=y z#f g");
}

TEST(TemplateUrl, NumbersBooleansAndNullRenderAsTheirText) {
  Context ctx;
  ctx.set("n", Value(std::int64_t{-3}));
  ctx.set("d", Value(1e21));
  ctx.set("b", Value(true));
  ctx.set("z", Value(std::monostate{}));
  EXPECT_EQ(url("/${n}/${d}/${b}/${z}", ctx), "/-3/1e%2B21/true/null");
}

TEST(TemplateUrl, ARawReferenceNeedsAContextKeyName) {
  EXPECT_EQ(Template::parse("/${raw:a/b}").status().message(),
            "'${raw:a/b}' in \"/${raw:a/b}\" is not a context key (letters, digits, '_', '-' and "
            "'.', starting with a letter or '_')");
  EXPECT_EQ(Template::parse("/${raw:}").status().message(),
            "empty reference '${raw:}' in \"/${raw:}\"");
}

TEST(TemplateUrl, PercentEncodeKeepsOnlyUnreservedCharacters) {
  EXPECT_EQ(percent_encode(""), "");
  EXPECT_EQ(percent_encode(std::string("a\0b\n\x7f\xff", 6)), "a%00b%0A%7F%FF");
}

TEST(TemplateText, ShowsUnresolvedEnvironmentReferencesAsWritten) {
  auto t = Template::parse("http://${env:HOST}:80/$${x}");
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(t->text(), "http://${env:HOST}:80/${x}");
}

}  // namespace
}  // namespace prowl::modelfile
