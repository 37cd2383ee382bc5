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
