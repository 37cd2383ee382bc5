# The graph reports of the demo's run, read by their real readers. Included from
# tests/cli/CMakeLists.txt (prowl_cli_test, ${prowl}, PROWL_CLI_WORK).
#
# DOT: `dot -Tsvg` (the graphviz package) must read the demo's report and draw its states.
find_program(PROWL_DOT dot)
if(NOT PROWL_DOT)
  message(FATAL_ERROR "Graphviz's dot is needed by the tests (apt-get install graphviz; "
    "scripts/bootstrap.sh installs it)")
endif()
# The shop's 12 states and 29 transitions, the three bugs' shortest paths in red; no step fails
# off the graph (each bug is an invariant broken in a state the graph has).
prowl_cli_test(prowl_demo_writes_a_dot_report EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/demo-dot
  FILE ${PROWL_CLI_WORK}/demo-dot/demo.dot
  FILE_MATCHES "^digraph prowl {\n  graph \\[[^\n]*label=\"shop: 3 findings \\(4 paths\\)\\\\ndrawn: the whole graph, 12 states and 29 transitions\"\\];\n.*  n0 \\[label=\"0\", class=\"state initial path shortest\"[^\n]*\n.*  n11 \\[label=\"11\"[^\n]*\n  n[0-9]+ -> n[0-9]+ \\[label=\"create_order\", class=\"transition path shortest\".*}\n$"
  ABSENT_FILE ${PROWL_CLI_WORK}/demo-dot/prowl-demo-report.json
  COMMAND ${prowl} demo --quiet --report dot:demo.dot)
set_tests_properties(cli.prowl_demo_writes_a_dot_report PROPERTIES FIXTURES_SETUP demo_dot)
prowl_cli_test(prowl_dot_report_is_drawn_by_graphviz_dot EXIT 0
  STDOUT "^<\\?xml.*<svg .*<g id=\"node1\" class=\"node state initial path shortest\">.*<g id=\"node12\" class=\"node state[^\"]*\">.*</svg>\n$"
  NOT_STDOUT "id=\"node13\""
  COMMAND ${PROWL_DOT} -Tsvg ${PROWL_CLI_WORK}/demo-dot/demo.dot)
set_tests_properties(cli.prowl_dot_report_is_drawn_by_graphviz_dot PROPERTIES
  FIXTURES_REQUIRED demo_dot)

# HTML: one self-contained page; the run recorded its graph for it (the whole graph is drawn).
prowl_cli_test(prowl_demo_writes_an_html_report EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/demo-html
  FILE ${PROWL_CLI_WORK}/demo-html/demo.html
  FILE_MATCHES "^<!DOCTYPE html>\n.*<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'. style-src 'unsafe-inline'. img-src data:\">\n.*<h1>prowl: <code>shop</code> &mdash. 3 findings \\(4 paths\\)</h1>\n.*<p class=\"drawn\">drawn: the whole graph, 12 states and 29 transitions</p>\n.*<figure class=\"graph\">\n<svg .*</svg>\n</figure>\n.*<h2>3 findings \\(4 paths\\)</h2>\n.*<p class=\"also\">also reached by 1 other path: \\[3\\] ship \\(4 steps\\)</p>\n.*<span class=\"method\">POST</span> <code class=\"url\">http://127\\.0\\.0\\.1:[0-9]+/orders</code> &rarr. <span class=\"http-status\">201</span>.*</html>\n$"
  ABSENT_FILE ${PROWL_CLI_WORK}/demo-html/prowl-demo-report.json
  COMMAND ${prowl} demo --quiet --report html:demo.html)
set_tests_properties(cli.prowl_demo_writes_an_html_report PROPERTIES FIXTURES_SETUP demo_html)
if(PROWL_SANITIZE)
  # Graphviz's font caches, which LeakSanitizer would report at exit (tests/lsan.supp).
  set_tests_properties(cli.prowl_demo_writes_an_html_report PROPERTIES
    ENVIRONMENT "LSAN_OPTIONS=suppressions=${PROWL_LSAN_SUPPRESSIONS}")
endif()
# Headless Chromium, network off, builds the page: each bug's heading and shortest path, the
# graph's SVG; and takes the screenshot that docs/images/html-report.png is a copy of.
add_test(NAME cli.prowl_html_report_in_headless_chromium
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/html/check_html.sh ${PROWL_CLI_WORK}/demo-html/demo.html
    ${PROWL_CLI_WORK}/demo-html/html-report.png
    stock_conserved=create_order,cancel,cancel
    refunds_within_payments=create_order,pay,refund,refund
    shipped_orders_paid=create_order,pay,cancel,ship)
set_tests_properties(cli.prowl_html_report_in_headless_chromium PROPERTIES
  FIXTURES_REQUIRED demo_html TIMEOUT 180
  # A pass regex makes CTest ignore the exit code: every failure of the script says check_html.
  FAIL_REGULAR_EXPRESSION "check_html:"
  PASS_REGULAR_EXPRESSION "html: bug 1 stock_conserved steps create_order,cancel,cancel\nhtml: bug 2 refunds_within_payments steps create_order,pay,refund,refund\nhtml: bug 3 shipped_orders_paid steps create_order,pay,cancel,ship\nhtml: graph svg nodes=12 edges=[0-9]+ shortest_path_edges=[0-9]+\nhtml: screenshot 1200x900 [0-9]+ bytes\n")
