# prowl report: a run's JSON report written again in other formats after the fact, and the
# mistakes it refuses. Included from tests/cli/CMakeLists.txt (prowl_cli_test, ${prowl}).
set(report_work ${PROWL_CLI_WORK}/report)
prowl_cli_test(prowl_report_source_run EXIT 1
  WORKDIR ${report_work}
  JSON_FILE ${report_work}/run.json JSON_VERSION 1 JSON_MODEL shop
  COMMAND ${prowl} demo --quiet --report json:run.json)
set_tests_properties(cli.prowl_report_source_run PROPERTIES FIXTURES_SETUP report_json)

# The JUnit of the JSON is the JUnit of the run: 3 bugs, 4 paths, the steps' requests.
prowl_cli_test(prowl_report_turns_the_json_into_junit EXIT 0
  WORKDIR ${report_work}-junit
  STDERR "^junit report written to again\\.xml\n$"
  FILE ${report_work}-junit/again.xml
  FILE_MATCHES "<testsuite name=\"shop\" tests=\"9\" failures=\"3\" errors=\"0\" skipped=\"0\".*<property name=\"paths\" value=\"4\"/>.*name=\"stock_conserved\".*also reached by 1 other path: \\[3\\] ship \\(4 steps\\)"
  COMMAND ${prowl} report ${report_work}/run.json --to junit:again.xml)
set_tests_properties(cli.prowl_report_turns_the_json_into_junit PROPERTIES
  FIXTURES_REQUIRED report_json FIXTURES_SETUP report_junit)
add_test(NAME cli.prowl_report_junit_passes_the_junit_schema
  COMMAND ${PROWL_XMLLINT} --noout --schema ${CMAKE_CURRENT_SOURCE_DIR}/junit/junit.xsd
    ${report_work}-junit/again.xml)
set_tests_properties(cli.prowl_report_junit_passes_the_junit_schema PROPERTIES
  FIXTURES_REQUIRED report_junit)

# Written again as JSON, the document is the same, byte for byte (structured HTTP steps, settings,
# tool_version and all); without --to it is the console report.
prowl_cli_test(prowl_report_writes_the_same_json_again EXIT 0
  WORKDIR ${report_work}-json
  STDOUT "^{\n  \"version\": \"1\",\n  \"tool\": \"prowl\",\n  \"tool_version\": \"[0-9.]+\",\n  \"model\": \"shop\",.*\"settings\": {\n    \"max_steps\": 0,\n    \"max_depth\": 4,.*\"http\": {\n            \"method\": \"POST\",\n            \"url\": \"http://127\\.0\\.0\\.1:[0-9]+/orders\",\n            \"status\": 201,"
  COMMAND ${prowl} report ${report_work}/run.json --to json:again.json --to json:-)
set_tests_properties(cli.prowl_report_writes_the_same_json_again PROPERTIES
  FIXTURES_REQUIRED report_json FIXTURES_SETUP report_json_again)
add_test(NAME cli.prowl_report_json_is_the_json_it_read
  COMMAND ${CMAKE_COMMAND} -E compare_files ${report_work}/run.json ${report_work}-json/again.json)
set_tests_properties(cli.prowl_report_json_is_the_json_it_read PROPERTIES
  FIXTURES_REQUIRED "report_json;report_json_again")
prowl_cli_test(prowl_report_shows_the_console_report EXIT 0
  STDOUT "critical invariant_violation stock_conserved \\(confirmed\\).*also reached by 1 other path: \\[3\\] ship \\(4 steps\\).*shop: 3 findings \\(4 paths\\); 12 states, 29 transitions"
  COMMAND ${prowl} report ${report_work}/run.json)
set_tests_properties(cli.prowl_report_shows_the_console_report PROPERTIES
  FIXTURES_REQUIRED report_json)

# Bad input (tests/cli/report/*.json): what is wrong, where, and nothing written.
set(report_bad ${CMAKE_CURRENT_SOURCE_DIR}/report)
prowl_cli_test(prowl_report_names_the_field_it_cannot_read EXIT 2
  WORKDIR ${report_work}-bad
  STDERR "^prowl report: [^\n]*/seed\\.json: seed: expected a string, found a number\n$"
  ABSENT_FILE ${report_work}-bad/out.xml
  COMMAND ${prowl} report ${report_bad}/seed.json --to junit:out.xml)
prowl_cli_test(prowl_report_names_the_line_of_broken_json EXIT 2
  WORKDIR ${report_work}-bad
  STDERR "^prowl report: [^\n]*/broken\\.json: not JSON: parse error at line 3, column 1: "
  COMMAND ${prowl} report ${report_bad}/broken.json)
prowl_cli_test(prowl_report_refuses_an_unknown_format EXIT 2
  WORKDIR ${report_work}-bad
  STDERR "^prowl report: --to: unknown report format 'xml' in 'xml:out\\.xml'; choose one of: json, junit"
  COMMAND ${prowl} report ${report_bad}/seed.json --to xml:out.xml)
prowl_cli_test(prowl_report_needs_the_json_file EXIT 2
  WORKDIR ${report_work}-bad
  STDERR "^prowl report: cannot read missing\\.json: No such file or directory\n$"
  COMMAND ${prowl} report missing.json --to junit:out.xml)

# Colour on request (and never by default into a file or pipe): the severity and the count.
string(ASCII 27 esc)
prowl_cli_test(prowl_report_colours_the_console_report_on_request EXIT 0
  STDOUT "${esc}\\[1m\\[1\\]${esc}\\[0m ${esc}\\[1;31mcritical${esc}\\[0m invariant_violation.*shop: ${esc}\\[1;31m3 findings \\(4 paths\\)${esc}\\[0m; 12 states"
  COMMAND ${prowl} report ${report_work}/run.json --color always)
set_tests_properties(cli.prowl_report_colours_the_console_report_on_request PROPERTIES
  FIXTURES_REQUIRED report_json)
prowl_cli_test(prowl_report_has_no_colour_in_a_pipe EXIT 0
  NOT_STDOUT "${esc}"
  COMMAND ${prowl} report ${report_work}/run.json)
set_tests_properties(cli.prowl_report_has_no_colour_in_a_pipe PROPERTIES
  FIXTURES_REQUIRED report_json)
prowl_cli_test(prowl_demo_refuses_an_unknown_colour_choice EXIT 2
  STDERR "^prowl demo: --color: sometimes not in {auto,never,always}"
  COMMAND ${prowl} demo --color sometimes)

# SARIF from the JSON: the invariants keep their lines in the model file, and it validates.
prowl_cli_test(prowl_report_turns_the_json_into_sarif EXIT 0
  WORKDIR ${report_work}-sarif
  FILE ${report_work}-sarif/again.sarif
  FILE_MATCHES "\"ruleId\": \"invariant/stock_conserved\",.*\"uri\": \"file:///[^\"]*/examples/shop_api/shop\\.yaml\"\n[^\n]*\n[^\n]*\n[^\n]*\"startLine\": 70\n"
  COMMAND ${prowl} report ${report_work}/run.json --to sarif:again.sarif)
set_tests_properties(cli.prowl_report_turns_the_json_into_sarif PROPERTIES
  FIXTURES_REQUIRED report_json FIXTURES_SETUP report_sarif)
prowl_cli_test(prowl_report_sarif_passes_the_sarif_schema EXIT 0
  STDOUT "again\\.sarif: valid SARIF 2\\.1\\.0\n$"
  COMMAND ${validate_sarif} ${report_work}-sarif/again.sarif --results 4)
set_tests_properties(cli.prowl_report_sarif_passes_the_sarif_schema PROPERTIES
  FIXTURES_REQUIRED report_sarif)

# HTML from the JSON: the graph the run recorded (it wrote an html report too) is drawn again.
prowl_cli_test(prowl_report_graph_source_run EXIT 1
  WORKDIR ${report_work}-graph
  JSON_FILE ${report_work}-graph/run.json JSON_MODEL shop
  COMMAND ${prowl} demo --quiet --report json:run.json --report dot:run.dot)
set_tests_properties(cli.prowl_report_graph_source_run PROPERTIES FIXTURES_SETUP report_graph)
prowl_cli_test(prowl_report_turns_the_json_into_html EXIT 0
  WORKDIR ${report_work}-html
  FILE ${report_work}-html/again.html
  FILE_MATCHES "^<!DOCTYPE html>.*Content-Security-Policy.*drawn: the whole graph, 12 states and 29 transitions.*<svg"
  COMMAND ${prowl} report ${report_work}-graph/run.json --to html:again.html)
set_tests_properties(cli.prowl_report_turns_the_json_into_html PROPERTIES
  FIXTURES_REQUIRED report_graph)
if(PROWL_SANITIZE)
  # Graphviz's font caches, which LeakSanitizer would report at exit (tests/lsan.supp).
  set_tests_properties(cli.prowl_report_turns_the_json_into_html PROPERTIES
    ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROWL_LSAN_SUPPRESSIONS}")
endif()
# The DOT of the JSON is the DOT of the run.
prowl_cli_test(prowl_report_turns_the_json_into_the_same_dot EXIT 0
  WORKDIR ${report_work}-dot
  COMMAND ${prowl} report ${report_work}-graph/run.json --to dot:again.dot)
set_tests_properties(cli.prowl_report_turns_the_json_into_the_same_dot PROPERTIES
  FIXTURES_REQUIRED report_graph FIXTURES_SETUP report_dot)
add_test(NAME cli.prowl_report_dot_is_the_runs_dot
  COMMAND ${CMAKE_COMMAND} -E compare_files ${report_work}-graph/run.dot ${report_work}-dot/again.dot)
set_tests_properties(cli.prowl_report_dot_is_the_runs_dot PROPERTIES
  FIXTURES_REQUIRED "report_graph;report_dot")
