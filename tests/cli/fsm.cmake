# Black-box tests of an FSM fuzzer built on prowl::fsm::fuzz_main: journal_fuzz, the planted-bug
# library's fuzzer (examples/journal). Included from CMakeLists.txt when the examples are built.
set(journal $<TARGET_FILE:journal_fuzz>)
set(journal_traces ${CMAKE_CURRENT_SOURCE_DIR}/traces/journal)

prowl_cli_test(journal_print_fsm_shows_each_states_transitions EXIT 0
  STDOUT "^machine journal: 3 states, 7 actions, 9 transitions\n\nstate empty \\(initial\\)\n  100\\.00%  open                     -> open\n\nstate open\n    6\\.45%  open                     -> open\n    3\\.23%  \\(no action\\)              -> closed\n   25\\.81%  put                      -> open\n.*   12\\.90%  compact                  -> open\n\nstate closed \\(final\\)\n$"
  COMMAND ${journal} fuzz --print-fsm)
prowl_cli_test(journal_fuzz_finds_the_planted_bug EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/journal-fuzz
  STDOUT "^fuzzing journal kind=fuzz with seed 1, output in out/\nrun 7: new finding bucket 1: finding in get: get\\(N\\) returned N, expected N\n  trace: out/001-finding/trace \\(20 steps\\)\n.*fuzzed 600 runs in [0-9.]+ s \\([0-9.]+ runs/s, [0-9]+ steps/s\\): [0-9]+ ok, [0-9]+ findings, 0 crashes, 0 timeouts\n.*  001 +[0-9]+ runs  finding in get: get\\(N\\) returned N, expected N\n       out/001-finding/trace\n.*action +attempted +succeeded +declined\nopen +[0-9]+ +[0-9]+ +0\n"
  FILE ${PROWL_CLI_WORK}/journal-fuzz/out/001-finding/signature
  FILE_MATCHES "^finding in get: get\\(N\\) returned N, expected N\n$"
  COMMAND ${journal} fuzz --runs 600 --seed 1 --out out --stats)
prowl_cli_test(journal_replay_reproduces_the_planted_bug EXIT 1
  STDOUT "^replaying [^\n]*/planted.trace: 7 steps\nfinding at step 7 \\(get, line 11\\)\n  finding in get: get\\(N\\) returned N, expected N\n  get\\(0\\) returned 1, expected 0\n$"
  COMMAND ${journal} replay ${journal_traces}/planted.trace)
prowl_cli_test(journal_replay_of_a_clean_trace_exits_0 EXIT 0
  STDOUT "ran clean: 3 steps\n$"
  COMMAND ${journal} replay ${journal_traces}/clean.trace)
prowl_cli_test(journal_replay_in_process_gives_the_same_failure EXIT 1
  STDOUT "finding at step 7 \\(get, line 11\\)"
  COMMAND ${journal} replay --no-fork ${journal_traces}/planted.trace)
prowl_cli_test(journal_shrink_leaves_exactly_the_planted_sequence EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/journal-shrink COPY ${journal_traces}/found.trace
  STDOUT "^shrinking found.trace: 20 steps, failing with\n  finding in get: get\\(N\\) returned N, expected N\nsteps: 20 -> 7 \\([0-9]+ candidates tried, [0-9.]+ s\\)\n"
  FILE ${PROWL_CLI_WORK}/journal-shrink/found.shrunk.trace
  FILE_MATCHES "^prowl-trace 1 journal seed=4956422748121352362\n[0-9]+ open\nreturn j1\n[0-9]+ put j1 0 0\n[0-9]+ begin j1\n[0-9]+ put j1 0 1\n[0-9]+ compact j1\n[0-9]+ rollback j1\n[0-9]+ get j1 0\n$"
  COMMAND ${journal} shrink found.trace)
set_tests_properties(cli.journal_shrink_leaves_exactly_the_planted_sequence PROPERTIES FIXTURES_SETUP journal_shrunk)
prowl_cli_test(journal_shrunk_trace_replays_to_the_same_failure EXIT 1
  STDOUT "finding at step 7 \\(get, line 9\\)\n  finding in get: get\\(N\\) returned N, expected N\n"
  COMMAND ${journal} replay ${PROWL_CLI_WORK}/journal-shrink/found.shrunk.trace)
set_tests_properties(cli.journal_shrunk_trace_replays_to_the_same_failure PROPERTIES FIXTURES_REQUIRED journal_shrunk)
prowl_cli_test(journal_shrink_of_a_clean_trace EXIT 2
  STDERR "clean.trace: the trace runs clean \\(3 steps\\). there is nothing to shrink\n$"
  COMMAND ${journal} shrink ${journal_traces}/clean.trace)
prowl_cli_test(journal_replay_of_a_malformed_trace EXIT 2
  STDERR "^[^\n]*/malformed.trace:4: column 10: unterminated quoted token \\(a '\"' is missing\\)\n$"
  COMMAND ${journal} replay ${journal_traces}/malformed.trace)
prowl_cli_test(journal_replay_of_an_unknown_handle EXIT 2
  STDERR "^[^\n]*/unknown_handle.trace:4: put: unknown handle 'j2'\n$"
  COMMAND ${journal} replay ${journal_traces}/unknown_handle.trace)
prowl_cli_test(journal_replay_of_another_models_trace EXIT 2
  STDERR "padded.trace:1: a trace of model 'fixture'. journal_fuzz runs 'journal'\n$"
  COMMAND ${journal} replay ${CMAKE_CURRENT_SOURCE_DIR}/traces/padded.trace)
prowl_cli_test(journal_without_a_subcommand EXIT 2
  STDERR "^journal_fuzz: A subcommand is required\nRun 'journal_fuzz --help' for usage.\n$"
  COMMAND ${journal})
prowl_cli_test(journal_help_lists_the_subcommands EXIT 0
  STDOUT "Fuzzes the Journal library.*fuzz +run weighted random walks.*replay +run a trace.*shrink +reduce a failing trace"
  COMMAND ${journal} --help)

# The campaign as reports (--report, as the explorer's): a JUnit error and a SARIF result per
# bucket, as many as the summary lists, each read by its validator (xmllint with junit/junit.xsd,
# sarif/validate_sarif.py); and the reports of a campaign stopped by SIGTERM.
set(journal_reports ${PROWL_CLI_WORK}/journal-reports)
prowl_cli_test(journal_fuzz_writes_a_junit_and_a_sarif_report EXIT 1
  WORKDIR ${journal_reports}
  STDOUT "\n3 buckets:\n.*junit report written to reports/j\\.xml\nsarif report written to reports/j\\.sarif\n$"
  FILE ${journal_reports}/reports/j.xml
  FILE_MATCHES "<testsuite name=\"journal\" tests=\"10\" failures=\"0\" errors=\"3\" skipped=\"0\" time=\"[0-9.]+\">\n.*<property name=\"strategy\" value=\"fuzz\"/>\n      <property name=\"seed\" value=\"1\"/>\n.*<testcase classname=\"journal\\.actions\" name=\"finding in get: get\\(N\\) returned N, expected N\" time=\"0\">\n      <error type=\"action_error\" message=\"get\\(0\\) returned [0-9]+, expected [0-9]+\">\\[1\\] high action_error finding in get: get\\(N\\) returned N, expected N \\(unconfirmed: fuzz buckets are not replayed. replay the kept trace to confirm it\\)\n.*\n      1\\. open: -&gt. j1\n"
  COMMAND ${journal} fuzz --runs 600 --seed 1 --out out --quiet
    --report junit:reports/j.xml --report sarif:reports/j.sarif)
set_tests_properties(cli.journal_fuzz_writes_a_junit_and_a_sarif_report PROPERTIES
  FIXTURES_SETUP journal_reports)
prowl_cli_test(journal_fuzz_sarif_report_has_a_result_per_bucket EXIT 0
  STDOUT "\"results\": \\[\n        {\n          \"ruleId\": \"action_error/get\",\n          \"ruleIndex\": 0,\n          \"level\": \"error\",\n          \"message\": {\n            \"text\": \"get\\(0\\) returned [0-9]+, expected [0-9]+\\\\n\\(bug 1 of 3: action_error finding in get: get\\(N\\) returned N, expected N\\)\"\n.*\"locations\": \\[\n            {\n              \"physicalLocation\": {\n                \"artifactLocation\": {\n                  \"uri\": \"out/001-finding/trace\",\n                  \"uriBaseId\": \"SRCROOT\"\n                },\n                \"region\": {\n                  \"startLine\": 1\n.*\"prowlBug/v1\": \"action_error/finding in get: get\\(N\\) returned N, expected N\"\n.*\"text\": \"20 steps from the initial state\".*\"text\": \"open: -> j1\".*\"ruleId\": \"action_error/get\",\n          \"ruleIndex\": 0,.*\"ruleId\": \"action_error/get\",\n          \"ruleIndex\": 0,.*\"strategy\": \"fuzz\",.*\"termination\": \"max_steps\",.*\"restores\": 600,"
  COMMAND ${CMAKE_COMMAND} -E cat ${journal_reports}/reports/j.sarif)
add_test(NAME cli.journal_fuzz_junit_report_passes_the_junit_schema
  COMMAND ${PROWL_XMLLINT} --noout --schema ${CMAKE_CURRENT_SOURCE_DIR}/junit/junit.xsd
    ${journal_reports}/reports/j.xml)
prowl_cli_test(journal_fuzz_sarif_report_passes_the_sarif_schema EXIT 0
  STDOUT "j\\.sarif: valid SARIF 2\\.1\\.0\n$"
  COMMAND ${validate_sarif} ${journal_reports}/reports/j.sarif --results 3)
set_tests_properties(cli.journal_fuzz_sarif_report_has_a_result_per_bucket
  cli.journal_fuzz_junit_report_passes_the_junit_schema
  cli.journal_fuzz_sarif_report_passes_the_sarif_schema PROPERTIES
  FIXTURES_REQUIRED journal_reports)
prowl_cli_test(journal_fuzz_writes_a_report_to_standard_output EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/journal-stdout
  STDOUT "^{\n  \"\\$schema\": [^\n]*\n  \"version\": \"2\\.1\\.0\",\n.*\n}\n$"
  STDERR "^fuzzing journal kind=fuzz with seed 1, output in out/\nrun 7: new finding bucket 1: .*\n1 bucket:\n"
  COMMAND ${journal} fuzz --runs 20 --seed 1 --out out --report sarif:-)
prowl_cli_test(journal_fuzz_refuses_an_unknown_report_format EXIT 2
  STDERR "^journal_fuzz: unknown report format 'xml' in 'xml:r\\.xml'. choose one of: json, junit, sarif"
  NOT_STDOUT "."
  COMMAND ${journal} fuzz --runs 20 --report xml:r.xml)
prowl_cli_test(journal_fuzz_refuses_a_report_it_cannot_write_before_fuzzing EXIT 2
  STDERR "^journal_fuzz: report 'sarif:/dev/null/r\\.sarif': cannot create the directory '/dev/null'"
  NOT_STDOUT "."
  COMMAND ${journal} fuzz --runs 20 --report sarif:/dev/null/r.sarif)
find_program(PROWL_TIMEOUT timeout)
if(PROWL_TIMEOUT)
  # timeout(1) sends SIGTERM after 2 s and exits with the fuzzer's own code: a stopped campaign
  # exits as a finished one would, and still writes its reports.
  prowl_cli_test(journal_fuzz_writes_its_reports_when_interrupted EXIT 1
    WORKDIR ${PROWL_CLI_WORK}/journal-interrupted
    STDOUT "\ninterrupted after [0-9]+ runs in [^\n]*\n.*junit report written to j\\.xml\nsarif report written to j\\.sarif\n$"
    FILE ${PROWL_CLI_WORK}/journal-interrupted/j.sarif
    FILE_MATCHES "\"executionSuccessful\": false,\n          \"toolExecutionNotifications\": \\[\n            {\n              \"descriptor\": {\n                \"id\": \"run/interrupted\"\n.*\"ruleId\": \"action_error/get\",.*\"termination\": \"interrupted\","
    COMMAND ${PROWL_TIMEOUT} --preserve-status -s TERM 2 ${journal} fuzz --seed 1 --out out --quiet
      --report junit:j.xml --report sarif:j.sarif)
endif()
