// prowl init --openapi: an OpenAPI document becomes a model file the loader accepts. The parts:
// $ref resolution and its cycles, the smallest valid values, ids bound from earlier answers,
// enums and small ranges as params:, 4xx as rejected:, the quoting of the document's text, and
// the message of each document prowl init refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "modelfile/openapi_document.hpp"
#include "modelfile/openapi_operations.hpp"
#include "modelfile/openapi_plan.hpp"
#include "modelfile/openapi_values.hpp"
#include "modelfile/openapi_writer.hpp"
#include "prowl/modelfile/loader.hpp"
#include "prowl/modelfile/openapi.hpp"

namespace prowl::modelfile::detail {
namespace {

// A document with `paths` and `components` written after a fixed head.
std::string document(std::string_view paths, std::string_view components = {}) {
  std::string text =
      "openapi: 3.0.3\n"
      "info: {title: Books, version: '1'}\n"
      "paths:\n";
  text += paths;
  if (!components.empty()) text += "components:\n" + std::string(components);
  return text;
}

OpenApiDocument parsed(const std::string& text) {
  auto doc = OpenApiDocument::parse(text, "api.yaml");
  EXPECT_TRUE(doc) << doc.status().message();
  return *doc;
}

std::string refusal(const std::string& text) {
  auto doc = OpenApiDocument::parse(text, "api.yaml");
  EXPECT_FALSE(doc) << "parsed";
  return doc ? std::string() : doc.status().message();
}

// The minimal value of the schema written as YAML `schema`, with `components` available.
std::string minimal(std::string_view schema, std::string_view components = {}) {
  const std::string text =
      document("  /x:\n    get:\n      responses: {'200': {description: ok}}\n", components) +
      "x-schema: " + std::string(schema) + "\n";
  const OpenApiDocument doc = parsed(text);
  return minimal_value(doc, field(doc.root(), "x-schema")).dump();
}

const ActionPlan& action(const ModelPlan& model, std::string_view name) {
  for (const ActionPlan& a : model.actions) {
    if (a.name == name) return a;
  }
  ADD_FAILURE() << "no action " << name;
  return model.actions.front();
}

// Books: POST /books creates one and answers its id; /books/{bookId} reads and deletes it.
constexpr std::string_view kBooks =
    "  /books:\n"
    "    post:\n"
    "      operationId: addBook\n"
    "      requestBody:\n"
    "        content:\n"
    "          application/json:\n"
    "            schema: {$ref: '#/components/schemas/NewBook'}\n"
    "      responses:\n"
    "        '201':\n"
    "          description: added\n"
    "          content:\n"
    "            application/json:\n"
    "              schema: {$ref: '#/components/schemas/Book'}\n"
    "        '400': {description: bad}\n"
    "        '409': {description: taken}\n"
    "        4XX: {description: other}\n"
    "        '500': {description: broken}\n"
    "  /books/{bookId}:\n"
    "    parameters:\n"
    "      - {name: bookId, in: path, required: true, schema: {type: integer}}\n"
    "    get:\n"
    "      operationId: getBook\n"
    "      responses:\n"
    "        '200':\n"
    "          description: the book\n"
    "          content:\n"
    "            application/json:\n"
    "              schema: {$ref: '#/components/schemas/Book'}\n"
    "        '404': {description: none}\n"
    "    delete:\n"
    "      responses: {'204': {description: gone}, '404': {description: none}}\n";
constexpr std::string_view kBookSchemas =
    "  schemas:\n"
    "    NewBook:\n"
    "      type: object\n"
    "      required: [title, pages]\n"
    "      properties:\n"
    "        title: {type: string}\n"
    "        pages: {type: integer, minimum: 1}\n"
    "        note: {type: string}\n"
    "    Book:\n"
    "      allOf:\n"
    "        - {$ref: '#/components/schemas/NewBook'}\n"
    "        - type: object\n"
    "          required: [id]\n"
    "          properties:\n"
    "            id: {type: integer, minimum: 1}\n";

TEST(OpenApiDocuments, JsonIndentedWithTabsReadsAsYamlWould) {
  const ModelPlan model = plan_model(
      parsed("{\n\t\"openapi\": \"3.1.0\",\n\t\"info\": {\"title\": \"T\", \"version\": \"1\"},\n"
             "\t\"paths\": {\"/a\": {\"get\": {\"operationId\": \"getA\",\n"
             "\t\t\"responses\": {\"200\": {\"description\": \"ok\"}}}}}\n}\n"));
  ASSERT_EQ(model.actions.size(), 1u);
  EXPECT_EQ(model.actions[0].name, "getA");
  EXPECT_EQ(model.actions[0].path, "/a");
  EXPECT_EQ(model.actions[0].ok, std::vector<std::string>{"200"});
}

TEST(OpenApiRefs, ResolvesAChainOfReferencesIntoComponents) {
  const OpenApiDocument doc = parsed(
      document("  /x:\n    get:\n      responses: {'200': {$ref: '#/components/responses/Ok'}}\n",
               "  responses:\n    Ok: {$ref: '#/components/responses/Plain'}\n"
               "    Plain: {description: plain ok}\n"));
  const YAML::Node response =
      field(field(field(field(doc.root(), "paths"), "/x"), "get"), "responses");
  EXPECT_EQ(scalar(field(doc.resolve(field(response, "200")), "description")), "plain ok");
}

TEST(OpenApiRefs, DecodesEscapedPointerTokens) {
  const OpenApiDocument doc = parsed(document(
      "  /a/b:\n    get:\n      responses: {'200': {description: ab}}\n"
      "  /c:\n    get:\n      responses: {'200': {$ref: '#/paths/~1a~1b/get/responses/200'}}\n"));
  const YAML::Node ok =
      field(field(field(field(field(doc.root(), "paths"), "/c"), "get"), "responses"), "200");
  EXPECT_EQ(scalar(field(doc.resolve(ok), "description")), "ab");
}

TEST(OpenApiRefs, ACycleOfReferencesIsRefusedNamingIt) {
  EXPECT_EQ(refusal(document(
                "  /x:\n    get:\n      responses: {'200': {$ref: '#/components/responses/A'}}\n",
                "  responses:\n    A: {$ref: '#/components/responses/B'}\n"
                "    B: {$ref: '#/components/responses/A'}\n")),
            "api.yaml:6:33: $ref '#/components/responses/A' is a cycle of references that never "
            "reaches a value ('#/components/responses/A' -> '#/components/responses/B' -> "
            "'#/components/responses/A')\n"
            "  hint: make one of these references name a schema (or other object) itself");
}

TEST(OpenApiRefs, AReferenceToNothingIsRefused) {
  EXPECT_EQ(refusal(document("  /x:\n    get:\n      responses:\n        '200':\n"
                             "          description: ok\n          content:\n"
                             "            application/json:\n"
                             "              schema: {$ref: '#/components/schemas/Nope'}\n",
                             "  schemas:\n    Book: {type: object}\n")),
            "api.yaml:11:30: $ref '#/components/schemas/Nope' does not resolve: there is no "
            "'Nope' in #/components/schemas\n"
            "  hint: correct the reference, or add what it names to the document");
}

TEST(OpenApiRefs, AReferenceIntoAnotherFileIsRefused) {
  EXPECT_EQ(
      refusal(document("  /x:\n    get:\n      responses: {'200': {$ref: 'common.yaml#/Ok'}}\n")),
      "api.yaml:6:33: $ref 'common.yaml#/Ok' points into another file; prowl init reads "
      "one document\n"
      "  hint: bundle the document into one file first (e.g. redocly bundle or swagger-cli "
      "bundle)");
}

TEST(OpenApiRefs, ASchemaThatRequiresItselfIsCutWhereItWouldRepeat) {
  EXPECT_EQ(minimal("{$ref: '#/components/schemas/Node'}",
                    "  schemas:\n    Node:\n      type: object\n      required: [name, parent]\n"
                    "      properties:\n        name: {type: string}\n"
                    "        parent: {$ref: '#/components/schemas/Node'}\n"),
            R"({"name":"a","parent":null})");
}

TEST(OpenApiMinimalValues, AnObjectHasItsRequiredPropertiesOnlyAtTheirSmallestValues) {
  EXPECT_EQ(minimal("{type: object, required: [n, s, b, e, inner, list], properties: {"
                    "n: {type: integer, minimum: 3}, s: {type: string}, b: {type: boolean}, "
                    "e: {type: string, enum: [red, green]}, skipped: {type: string}, "
                    "inner: {type: object, required: [x], properties: {x: {type: number}}}, "
                    "list: {type: array, minItems: 2, items: {type: integer, minimum: 1}}}}"),
            R"({"n":3,"s":"a","b":false,"e":"red","inner":{"x":0},"list":[1,1]})");
}

TEST(OpenApiMinimalValues, NumbersStartAtTheirBoundsExclusiveOnesOneAbove) {
  EXPECT_EQ(minimal("{type: integer}"), "0");
  EXPECT_EQ(minimal("{type: integer, minimum: 5, exclusiveMinimum: true}"), "6");  // 3.0
  EXPECT_EQ(minimal("{type: integer, exclusiveMinimum: 0}"), "1");                 // 3.1
  EXPECT_EQ(minimal("{type: integer, maximum: -4}"), "-4");
  EXPECT_EQ(minimal("{type: integer, minimum: 1, multipleOf: 5}"), "5");
  EXPECT_EQ(minimal("{type: number, minimum: 0.5}"), "1");
}

TEST(OpenApiMinimalValues, StringsFollowMinLengthAndFormats) {
  EXPECT_EQ(minimal("{type: string, minLength: 3}"), R"("aaa")");
  EXPECT_EQ(minimal("{type: string, maxLength: 0}"), R"("")");
  EXPECT_EQ(minimal("{type: string, format: date-time}"), R"("2000-01-01T00:00:00Z")");
  EXPECT_EQ(minimal("{type: string, format: uuid}"), R"("00000000-0000-0000-0000-000000000000")");
}

TEST(OpenApiMinimalValues, ExamplesConstsAndDefaultsComeFirst) {
  EXPECT_EQ(minimal("{type: integer, example: 42}"), "42");
  EXPECT_EQ(minimal("{type: string, examples: ['x y', z]}"), R"("x y")");
  EXPECT_EQ(minimal("{type: string, const: fixed}"), R"("fixed")");
  EXPECT_EQ(minimal("{type: integer, default: 7}"), "7");
  EXPECT_EQ(minimal("{type: string, example: '12'}"), R"("12")");
}

TEST(OpenApiMinimalValues, AllOfMergesAndOneOfTakesTheFirst) {
  EXPECT_EQ(minimal("{$ref: '#/components/schemas/Book'}", kBookSchemas),
            R"({"title":"a","pages":1,"id":1})");
  EXPECT_EQ(minimal("{oneOf: [{type: boolean}, {type: string}]}"), "false");
  EXPECT_EQ(minimal("{type: [string, 'null']}"), R"("a")");
  EXPECT_EQ(minimal("{}"), "null");
}

TEST(OpenApiBindings, TheIdTheCreatingPostAnswersIsBoundForThePathsThatNameIt) {
  const ModelPlan model = plan_model(parsed(document(kBooks, kBookSchemas)));
  const ActionPlan& add = action(model, "addBook");
  ASSERT_EQ(add.bind.size(), 1u);
  EXPECT_EQ(add.bind[0], (std::pair<std::string, std::string>("book_id", "/id")));
  EXPECT_EQ(action(model, "getBook").path, "/books/${book_id}");
  EXPECT_EQ(action(model, "getBook").needs, std::vector<std::string>{"book_id"});
  EXPECT_EQ(action(model, "delete_books_book_id").unbind, std::vector<std::string>{"book_id"});
  EXPECT_EQ(model.state_keys, std::vector<std::string>{"book_id"});
  EXPECT_TRUE(model.context.empty());
}

TEST(OpenApiBindings, ALinkBindsWhatItNamesBeforeAnyGuess) {
  std::string paths(kBooks);
  paths.insert(paths.find("        '400'"),
               "          links:\n"
               "            GetIt:\n"
               "              operationId: getBook\n"
               "              parameters: {bookId: '$response.body#/isbn'}\n");
  const ModelPlan model = plan_model(parsed(document(paths, kBookSchemas)));
  EXPECT_EQ(action(model, "addBook").bind[0],
            (std::pair<std::string, std::string>("book_id", "/isbn")));
}

TEST(OpenApiBindings, AParameterNoAnswerGivesIsAContextValueToCheck) {
  const ModelPlan model = plan_model(parsed(document(
      "  /boxes/{id}:\n    get:\n      parameters:\n"
      "        - {name: id, in: path, required: true, schema: {type: integer, minimum: 1}}\n"
      "      responses: {'200': {description: ok}}\n"
      "  /rooms/{roomCode}:\n    get:\n      parameters:\n"
      "        - {name: roomCode, in: path, required: true, example: B-12, schema: {type: "
      "string}}\n"
      "      responses: {'200': {description: ok}}\n")));
  ASSERT_EQ(model.context.size(), 2u);
  EXPECT_EQ(model.context[0].key, "box_id");
  EXPECT_EQ(model.context[0].value, 1);
  EXPECT_EQ(model.context[0].todo,
            "TODO: no answer gives id: set one that exists (this is a guess)");
  EXPECT_EQ(model.context[1].key, "room_code");
  EXPECT_EQ(model.context[1].value, "B-12");
  EXPECT_EQ(model.context[1].todo,
            "TODO: no answer gives roomCode: set one that exists (this is the document's example)");
  EXPECT_EQ(model.actions[0].path, "/boxes/${box_id}");
}

TEST(OpenApiBindings, NamesComeFromOperationIdsElseMethodAndPath) {
  EXPECT_EQ(key_for("/orders/{id}", "id"), "order_id");
  EXPECT_EQ(key_for("/categories/{id}/items", "id"), "category_id");
  EXPECT_EQ(key_for("/addresses/{id}", "id"), "address_id");
  EXPECT_EQ(key_for("/statuses/{id}", "id"), "status_id");
  EXPECT_EQ(key_for("/{id}", "id"), "id");
  EXPECT_EQ(key_for("/pets/{petId}", "petId"), "pet_id");
  EXPECT_EQ(snake_case("get_/pets/{petId}"), "get_pets_pet_id");
  EXPECT_EQ(identifier("pets.list all"), "pets.list_all");
  EXPECT_EQ(identifier("1st"), "_1st");
}

TEST(OpenApiParams, EnumsAndSmallRangesBecomeParamsLargerOnesAValue) {
  const ModelPlan model = plan_model(parsed(document(
      "  /reports/{kind}:\n    post:\n      parameters:\n"
      "        - {name: kind, in: path, required: true, schema: {type: string, enum: [daily, "
      "weekly]}}\n"
      "        - {name: page, in: query, required: true, schema: {type: integer, minimum: 1, "
      "maximum: 3}}\n"
      "        - {name: size, in: query, required: true, schema: {type: integer, minimum: 1, "
      "maximum: 17}}\n"
      "        - {name: verbose, in: query, schema: {type: string, enum: [yes, no]}}\n"
      "      requestBody:\n        content:\n          application/json:\n            schema:\n"
      "              type: object\n              required: [format, copies]\n"
      "              properties:\n"
      "                format: {type: string, enum: [pdf, csv]}\n"
      "                copies: {type: integer, minimum: 0, maximum: 1000}\n"
      "      responses: {'200': {description: ok}}\n")));
  const ActionPlan& a = model.actions.at(0);
  ASSERT_EQ(a.params.size(), 3u);
  EXPECT_EQ(a.params[0].name, "kind");
  EXPECT_EQ(a.params[0].domain.one_of, (std::vector<OJson>{"daily", "weekly"}));
  EXPECT_EQ(a.params[1].name, "page");
  EXPECT_TRUE(a.params[1].domain.one_of.empty());
  EXPECT_EQ(a.params[1].domain.lo, 1);
  EXPECT_EQ(a.params[1].domain.hi, 3);
  EXPECT_EQ(a.params[2].name, "format");
  EXPECT_EQ(a.path, "/reports/${kind}");
  EXPECT_EQ(a.query,
            (std::vector<std::pair<std::string, OJson>>{{"page", "${page}"}, {"size", 1}}));
  EXPECT_EQ(a.body->dump(), R"({"format":"${format}","copies":0})");
}

TEST(OpenApiParams, AnEnumWhoseValuesReadTheSameIsNoDomain) {
  const OpenApiDocument doc =
      parsed(document("  /x:\n    get:\n      responses: {'200': {description: ok}}\n") +
             "x-a: {enum: [1, '1']}\nx-b: {enum: [only]}\nx-c: {enum: [a, b]}\n");
  EXPECT_FALSE(domain_of(doc, field(doc.root(), "x-a")));
  EXPECT_FALSE(domain_of(doc, field(doc.root(), "x-b")));
  EXPECT_EQ(domain_of(doc, field(doc.root(), "x-c"))->one_of.size(), 2u);
}

TEST(OpenApiStatuses, TwoXxIsOkAndFourXxIsRejectedCodesBeforeClasses) {
  const ModelPlan model = plan_model(parsed(document(kBooks, kBookSchemas)));
  EXPECT_EQ(action(model, "addBook").ok, std::vector<std::string>{"201"});
  EXPECT_EQ(action(model, "addBook").rejected, (std::vector<std::string>{"400", "409", "4xx"}));
  EXPECT_EQ(action(model, "getBook").rejected, std::vector<std::string>{"404"});
}

TEST(OpenApiChecks, AReadAnswersSchemaGivesItsBoundsAndRequiredMembers) {
  const ModelPlan model = plan_model(parsed(document(kBooks, kBookSchemas)));
  ASSERT_EQ(model.invariants.size(), 1u);
  const InvariantPlan& inv = model.invariants[0];
  EXPECT_EQ(inv.name, "getBook_matches_schema");
  EXPECT_EQ(inv.path, "/books/${book_id}");
  EXPECT_EQ(inv.status, std::vector<std::string>{"200"});
  EXPECT_EQ(inv.checks,
            (std::vector<Check>{
                {"/title", "exists", true}, {"/pages", "at_least", 1}, {"/id", "at_least", 1}}));
}

TEST(OpenApiWriter, EveryStringReadsBackAsItWas) {
  for (const std::string text :
       {"plain words", "a: #b", "line\nbreak", "\"quoted\" and \\", "true", "No", "12", "-x", "",
        " lead", "tab\there", "${x}", "{a}", "[1]", "\xE2\x80\xA8", "caf\xC3\xA9"}) {
    for (const bool flow : {false, true}) {
      const YAML::Node node = YAML::Load("[" + yaml_string(text, flow) + "]");
      EXPECT_EQ(node[0].Scalar(), text) << yaml_string(text, flow);
    }
  }
  // Plain only where YAML and the model file read a string; quoted where they would type it.
  EXPECT_EQ(yaml_string("plain words", true), "plain words");
  for (const std::string typed : {"true", "No", "null", "12", "1.5", "", "~", "-1", ".5"}) {
    EXPECT_EQ(yaml_string(typed, false), "\"" + typed + "\"");
  }
  EXPECT_EQ(yaml_string("/orders/${order_id}", false), "/orders/${order_id}");
  EXPECT_EQ(yaml_string("/orders/${order_id}", true), "\"/orders/${order_id}\"");
  EXPECT_EQ(yaml_string("a: #b\nc", false), "\"a: #b\\nc\"");
  EXPECT_EQ(yaml_string("\x01\xE2\x80\xA8", false), "\"\\x01\\L\"");
  EXPECT_EQ(comment_text("two\nlines"), "two lines");
}

TEST(OpenApiWriter, TheModelLoadsAndKeepsTheDocumentsTextAsData) {
  std::string paths(kBooks);
  paths.insert(paths.find("      operationId: getBook"),
               "      summary: \"reads: #1 \\\"book\\\"\\nsecond line\"\n");
  paths.insert(paths.find("      requestBody:"),
               "      requestBody:\n        content:\n          application/json:\n"
               "            example: {title: '${not_a_key}', pages: 3}\n");
  paths.erase(paths.find("      requestBody:\n        content:\n          application/json:\n"
                         "            schema"),
              std::string_view("      requestBody:\n        content:\n          application/json:\n"
                               "            schema: {$ref: '#/components/schemas/NewBook'}\n")
                  .size());
  auto text = model_from_openapi(document(paths, kBookSchemas), "books.yaml");
  ASSERT_TRUE(text) << text.status().message();
  auto spec = parse_model(*text, "model.yaml", "/models", {.resolve_env = false});
  ASSERT_TRUE(spec) << spec.status().message() << "\n" << *text;
  ASSERT_EQ(spec->actions.size(), 3u);
  EXPECT_EQ(spec->actions[1].description, "reads: #1 \"book\"\nsecond line");
  EXPECT_TRUE(spec->actions[0].request.body->keys().empty());
  EXPECT_EQ(spec->actions[0].request.body->skeleton(), R"({"title":"${not_a_key}","pages":3})");
  EXPECT_EQ(spec->invariants.size(), 2u);
}

// Found by openapi_fuzzer: what a model file cannot send is left out with a TODO, and response
// keys that are not statuses are not listed, so that the model still loads.
TEST(OpenApiWriter, ParametersAndStatusesAModelCannotHoldAreLeftOut) {
  auto text = model_from_openapi(
      document("  /x:\n    get:\n      parameters:\n"
               "        - {name: '', in: header, required: true, schema: {type: string}}\n"
               "        - {name: X-A, in: header, required: true, schema: {type: string}}\n"
               "        - {name: x-a, in: header, required: true, schema: {type: string}}\n"
               "        - {name: q, in: body, required: true, schema: {type: string}}\n"
               "      responses: {'20/': {description: ok}, '200': {description: ok}}\n"),
      "api.yaml");
  ASSERT_TRUE(text) << text.status().message();
  for (const char* todo :
       {"# TODO: a required parameter in 'header' is left out: it has no name",
        "# TODO: a required parameter x-a in 'header' is left out: its name is used twice",
        "# TODO: a required parameter q in 'body' is left out: OpenAPI has no such place"}) {
    EXPECT_NE(text->find(todo), std::string::npos) << todo << "\n" << *text;
  }
  EXPECT_NE(text->find("    ok: 200\n"), std::string::npos) << *text;
  auto spec = parse_model(*text, "model.yaml", "/nonexistent", {.resolve_env = false});
  EXPECT_TRUE(spec) << spec.status().message();
}

TEST(OpenApiWriter, DeclaredAuthenticationAndLeftOutOperationsAreTodos) {
  auto text =
      model_from_openapi(document("  /x:\n    trace:\n      responses: {'200': {description: ok}}\n"
                                  "    get:\n      responses: {'200': {description: ok}}\n",
                                  "  securitySchemes:\n    bearer: {type: http, scheme: bearer}\n"),
                         "api.yaml");
  ASSERT_TRUE(text) << text.status().message();
  EXPECT_NE(text->find("# TODO: the document declares authentication (bearer): send it with every "
                       "request, e.g.\n"
                       "# headers: {Authorization: \"Bearer ${env:API_TOKEN}\"}"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("actions:\n  # left out: TRACE /x: the model file cannot send TRACE "
                       "requests\n  - name: get_x\n"),
            std::string::npos)
      << *text;
}

TEST(OpenApiErrors, EachDocumentProwlInitCannotReadIsNamedWithItsFix) {
  EXPECT_EQ(refusal("openapi: 3.0.0\ninfo: {title: x\n"),
            "api.yaml:3:1: YAML syntax error: end of map flow not found\n"
            "  hint: check the indentation and quoting here or just above; a value with '{', '}' "
            "or ': ' inside needs quotes");
  EXPECT_EQ(refusal("just words\n"),
            "api.yaml: not an OpenAPI document: the file holds a scalar, not a mapping\n"
            "  hint: an OpenAPI document is a mapping that starts with openapi: 3.0.3 (or 3.1.0), "
            "info: and paths:");
  EXPECT_EQ(refusal("swagger: '2.0'\ninfo: {title: x, version: '1'}\npaths: {}\n"),
            "api.yaml:1:10: this is a Swagger 2.0 document; prowl init reads OpenAPI 3.0 and 3.1\n"
            "  hint: convert it to OpenAPI 3 first, e.g. with swagger2openapi or in "
            "editor.swagger.io (Edit > Convert to OpenAPI 3)");
  EXPECT_EQ(refusal("info: {title: x}\npaths: {}\n"),
            "api.yaml: not an OpenAPI document: it has no 'openapi' key\n"
            "  hint: an OpenAPI document is a mapping that starts with openapi: 3.0.3 (or 3.1.0), "
            "info: and paths:");
  EXPECT_EQ(refusal("openapi: 4.0.0\npaths: {}\n"),
            "api.yaml:1:10: openapi: '4.0.0' is not a version prowl init reads (3.0.x and 3.1.x)\n"
            "  hint: prowl init reads OpenAPI 3.0 and 3.1; write the version the document "
            "follows, as in openapi: 3.0.3");
  EXPECT_EQ(refusal("openapi: 3.1.0\ninfo: {title: x, version: '1'}\n"),
            "api.yaml: the document has no paths: there is no operation to make an action of\n"
            "  hint: add the API's operations under paths: (prowl makes one action per "
            "operation)");
  EXPECT_EQ(refusal("openapi: 3.1.0\npaths:\n  /x: {parameters: []}\n"),
            "api.yaml:3:3: paths holds no operation prowl can send: there is no operation to "
            "make an action of (TRACE is left out)\n"
            "  hint: add the API's operations under paths: (prowl makes one action per "
            "operation)");
  EXPECT_EQ(refusal("openapi: 3.1.0\npaths:\n  /x: {trace: {}}\n"),
            "api.yaml:3:3: paths holds no operation prowl can send: there is no operation to "
            "make an action of (TRACE is left out)\n"
            "  hint: add the API's operations under paths: (prowl makes one action per "
            "operation)");
  // Found by openapi_fuzzer: a path without its leading '/' was taken as the health check.
  EXPECT_EQ(refusal("openapi: 3.1.0\npaths:\n  /t: {trace: {}}\n  \"a, /health\\e\": {get: {}}\n"),
            "api.yaml:4:3: path 'a, /health\\e' does not start with '/', and no other path "
            "holds an operation prowl can send\n"
            "  hint: an OpenAPI path starts with '/' and is appended to the server's URL, as in "
            "/health");
}

TEST(OpenApiWriter, APathWithoutItsLeadingSlashIsLeftOut) {
  auto text = model_from_openapi(
      document("  utes, /health:\n    get:\n      responses: {'200': {description: ok}}\n"
               "    post:\n      responses: {'200': {description: ok}}\n"
               "  /x:\n    get:\n      responses: {'200': {description: ok}}\n"),
      "api.yaml", {.command = "true", .source = {}});
  ASSERT_TRUE(text) << text.status().message();
  // Noted once for the path, not once per operation.
  EXPECT_NE(text->find("actions:\n  # left out: utes, /health: an OpenAPI path starts with '/'\n"
                       "  - name: get_x\n"),
            std::string::npos)
      << *text;
  EXPECT_EQ(text->find("\n    health:"), std::string::npos) << *text;
  auto spec = parse_model(*text, "model.yaml", "/nonexistent", {.resolve_env = false});
  EXPECT_TRUE(spec) << spec.status().message();
}

// Checked before yaml-cpp recurses into the document or expands an alias.
TEST(OpenApiErrors, AHostileDocumentIsRefusedBeforeItIsRead) {
  EXPECT_EQ(
      refusal("openapi: 3.0.0\npaths: " + std::string(100, '[') + std::string(100, ']') + "\n"),
      "api.yaml:2:71: the document nests deeper than 64 levels");
  std::string bomb = "openapi: 3.0.0\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 8; ++i) {
    bomb += fmt::format("a{}: &a{} [", i, i);
    for (int j = 0; j < 10; ++j) bomb += fmt::format("{}*a{}", j ? ", " : "", i - 1);
    bomb += "]\n";
  }
  EXPECT_EQ(refusal(bomb), "api.yaml:8:10: aliases expand the document to more than 2000000 nodes");
  // Whatever it holds ends up in a model file, which is UTF-8 (found by openapi_fuzzer).
  EXPECT_EQ(
      refusal("openapi: 3.0.0\ninfo: {title: \"caf\xe9\"}\n"),
      "api.yaml:2:19: the file is not UTF-8 text (byte 0xE9)\n  hint: save the file as UTF-8");
}

TEST(OpenApiErrors, APathThatIsNotAReadableFileIsNamed) {
  auto missing = model_from_openapi_file("/nonexistent/api.yaml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.status().message(),
            "/nonexistent/api.yaml: cannot read the OpenAPI document: No such file or directory\n"
            "  hint: give the path of the document's YAML or JSON file");
  const std::string dir = std::filesystem::temp_directory_path().string();
  auto directory = model_from_openapi_file(dir);
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.status().message(),
            dir +
                ": cannot read the OpenAPI document: it is a directory\n"
                "  hint: give the path of the document's YAML or JSON file");
  EXPECT_EQ(directory.status().exit_code(), 2);
}

// Found by the fuzzer: a list where the document should have a mapping, or the reverse, yields
// invalid nodes from yaml-cpp, which threw out of `prowl init`. Such parts are now left out.
TEST(OpenApiWriter, ListsAndMappingsInTheWrongPlaceAreLeftOutNotThrown) {
  auto text = model_from_openapi(document("  /pets:\n"
                                          "    parameters:\n"
                                          "      - {name: id, in: query, schema: {type: integer}}\n"
                                          "    get:\n"
                                          "      parameters: {id: {in: query}, q: {in: query}}\n"
                                          "      responses: [ok]\n"
                                          "  /toys: [get, post]\n"),
                                 "api.yaml");
  ASSERT_TRUE(text) << text.status().message();
  EXPECT_NE(text->find("  - name: get_pets\n    method: GET\n"), std::string::npos) << *text;
  EXPECT_EQ(text->find("toys"), std::string::npos) << *text;
}

}  // namespace
}  // namespace prowl::modelfile::detail
