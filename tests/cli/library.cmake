# Black-box tests of the lending library (examples/library_api): 7 actions with parameters stand
# for 18, and breadth-first search over real HTTP still reports each seeded bug by its shortest
# sequence. Included from CMakeLists.txt when the examples are built.
set(library_model ${PROJECT_SOURCE_DIR}/examples/library_api/library.yaml)
set(library_work ${PROWL_CLI_WORK}/library)
set(library_url "http://127\\.0\\.0\\.1:[0-9]+")

# The listing: borrow, give_back and reserve once per member and book, suspend and reinstate once
# per member, tick and inventory once. Each action is its name and two lines (request, limits),
# so the regex matches exactly these 18, in this order, and nothing between them.
set(library_actions_re "")
foreach(action borrow give_back reserve)
  foreach(member 1 2)
    foreach(book 1 2)
      string(APPEND library_actions_re
        "  ${action}\\(member=${member}, book=${book}\\)\n    [^\n]*\n    [^\n]*\n")
    endforeach()
  endforeach()
endforeach()
foreach(action suspend reinstate)
  foreach(member 1 2)
    string(APPEND library_actions_re "  ${action}\\(member=${member}\\)\n    [^\n]*\n    [^\n]*\n")
  endforeach()
endforeach()
string(APPEND library_actions_re
  "  tick\n    POST /clock/tick\n    at most 2 per path. weight 1\n"
  "  inventory\n    GET /inventory\n    weight 1\n")
prowl_cli_test(library_lists_18_actions_from_7 EXIT 0
  STDOUT "^model library: 18 actions, 3 invariants\n\nactions:\n${library_actions_re}\ninvariants:\n"
  COMMAND ${CMAKE_COMMAND} -E env --unset=LIBRARY_API --unset=LIBRARY_DB
    ${prowl} explore ${library_model} --list-actions)

# Exploring to depth 3: each seeded bug by its shortest sequence, one heading each. The same bug
# is reached through every member and book (12 paths): the heading shows the shortest, the
# earliest of equal lengths, and lists the others by their numbers, those of the trace files.
set(library_double_loan_re "\\[1\\] critical invariant_violation one_loan_per_copy \\(confirmed\\)
    1 offending row: \\(book=1, copies=1, open_loans=2\\)
    steps:
      1\\. borrow\\(member=2, book=1\\): POST ${library_url}/loans {\"member\":2,\"book\":1} -> 201 {\"book\":1,\"borrowed_on\":0,\"member\":2}
      2\\. reserve\\(member=1, book=1\\): POST ${library_url}/reservations {\"member\":1,\"book\":1} -> 201 {\"book\":1,\"expires_on\":2,\"made_on\":0,\"member\":1}
      3\\. borrow\\(member=1, book=1\\): POST ${library_url}/loans {\"member\":1,\"book\":1} -> 201 {\"book\":1,\"borrowed_on\":0,\"member\":1}  <- fails
    state:
.*
    also reached by 3 other paths: \\[2\\] borrow\\(member=1, book=2\\) \\(3 steps\\), \\[3\\] borrow\\(member=2, book=1\\) \\(3 steps\\), \\[4\\] borrow\\(member=2, book=2\\) \\(3 steps\\)
")
set(library_suspended_re "\\[5\\] critical invariant_violation suspended_members_hold_no_loans \\(confirmed\\)
    1 offending row: \\(member=1, book=1\\)
    steps:
      1\\. suspend\\(member=1\\): POST ${library_url}/members/1/suspension -> 200 {\"member\":1,\"reservations_cancelled\":0,\"suspended\":true}
      2\\. reserve\\(member=1, book=1\\): POST ${library_url}/reservations {\"member\":1,\"book\":1} -> 201 {\"book\":1,\"expires_on\":2,\"made_on\":0,\"member\":1}
      3\\. borrow\\(member=1, book=1\\): POST ${library_url}/loans {\"member\":1,\"book\":1} -> 201 {\"book\":1,\"borrowed_on\":0,\"member\":1}  <- fails
    state:
")
set(library_500_re "\\[9\\] high invariant_violation no_server_errors \\(confirmed\\)
    POST ${library_url}/returns answered 500: {\"error\":\"internal error: no row to read \\(in: SELECT open FROM loans WHERE member = \\?1 AND book = \\?2\\)\"}
    steps:
      1\\. give_back\\(member=1, book=1\\) \\[rejected\\]: POST ${library_url}/returns {\"member\":1,\"book\":1} -> 500 {\"error\":\"internal error: no row to read [^\n]*  <- fails
    state:
")
prowl_cli_test(library_explore_finds_each_seeded_bug_by_its_shortest_sequence EXIT 1
  WORKDIR ${library_work}
  STDOUT "^${library_double_loan_re}.*${library_suspended_re}.*${library_500_re}.*\nlibrary: 3 findings \\(12 paths\\). 319 states, 1403 transitions, 1403 steps in [0-9.]+ s \\(exhausted, seed [0-9]+\\)\n$"
  FILE ${library_work}/traces/005-invariant-suspended_members_hold_no_loans.trace
  FILE_MATCHES "^prowl-trace 1 library kind=explore finding=invariant:suspended_members_hold_no_loans severity=critical [^\n]*\n# ok: [^\n]*\n[0-9]+ suspend\\(member=1\\)\n# ok: [^\n]*\n[0-9]+ \"reserve\\(member=1, book=1\\)\"\n# ok: [^\n]*\n[0-9]+ \"borrow\\(member=1, book=1\\)\"\n# fails after step 3: 1 offending row: \\(member=1, book=1\\)\n$"
  COMMAND ${CMAKE_COMMAND} -E env LIBRARY_API=$<TARGET_FILE:library_api>
    LIBRARY_DB=${library_work}/library.db
    ${prowl} explore ${library_model} --max-depth 3 --quiet --trace-dir traces)
set_tests_properties(cli.library_explore_finds_each_seeded_bug_by_its_shortest_sequence
  PROPERTIES FIXTURES_SETUP library_traces)

# A written trace replays on a service of its own and fails the same way at the same step.
prowl_cli_test(library_replay_reproduces_the_suspended_member_loan EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/library-replay
  STDOUT "^trace     [^\n]*/005-invariant-suspended_members_hold_no_loans.trace
model     library
recorded  invariant:suspended_members_hold_no_loans
steps     3

  1\\. suspend\\(member=1\\) \\[ok\\]: POST ${library_url}/members/1/suspension -> 200 [^\n]*
  2\\. reserve\\(member=1, book=1\\) \\[ok\\]: POST ${library_url}/reservations [^\n]* -> 201 [^\n]*
  3\\. borrow\\(member=1, book=1\\) \\[ok\\]: POST ${library_url}/loans [^\n]* -> 201 [^\n]*  <- fails

failures:
  after step 3: critical invariant_violation suspended_members_hold_no_loans
    1 offending row: \\(member=1, book=1\\)
.*
reproduced: invariant:suspended_members_hold_no_loans after step 3 of 3
$"
  COMMAND ${CMAKE_COMMAND} -E env LIBRARY_API=$<TARGET_FILE:library_api>
    LIBRARY_DB=${PROWL_CLI_WORK}/library-replay/library.db
    ${prowl} replay ${library_work}/traces/005-invariant-suspended_members_hold_no_loans.trace)
set_tests_properties(cli.library_replay_reproduces_the_suspended_member_loan
  PROPERTIES FIXTURES_REQUIRED library_traces)
