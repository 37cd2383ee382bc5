# prowl reach and the replay of its traces (docs/symbolic.md), on examples/reach.
set(reach_dir ${PROJECT_SOURCE_DIR}/examples/reach)
set(reach_work ${PROWL_CLI_WORK}/reach)
file(MAKE_DIRECTORY ${reach_work})

prowl_cli_test(reach_counter2_fixpoint EXIT 0
  STDOUT "status: fixpoint at depth 8 \\(9 iterations\\).*states: 15\n.*invariant:x_bounded: proved"
  JSON_FILE ${reach_work}/counter2.json JSON_VERSION 1 JSON_MODEL counter2
  COMMAND ${prowl} reach ${reach_dir}/counter2.yaml --count --json ${reach_work}/counter2.json)
prowl_cli_test(reach_counter2_psyco EXIT 0
  STDOUT "image psyco.*status: fixpoint at depth 8 \\(9 iterations\\).*states: 15\n"
  COMMAND ${prowl} reach ${reach_dir}/counter2.yaml --image psyco --count)
prowl_cli_test(reach_counter2_p1 EXIT 0
  STDOUT "status: fixpoint at depth 11 \\(12 iterations\\).*states: 12\n"
  COMMAND ${prowl} reach ${reach_dir}/counter2_p1.yaml --count)
prowl_cli_test(reach_counter2_unbounded_is_inconclusive EXIT 4
  STDOUT "status: interrupted at depth 20 .*depth cap 20 reached"
  COMMAND ${prowl} reach ${reach_dir}/counter2_unbounded.yaml --max-depth 20)
prowl_cli_test(reach_counter2_cross_check EXIT 0
  STDOUT "states 15 / 15, depth 8 / 8\n  states per level: 1 2 2 1 2 2 1 2 2\n  agree"
  COMMAND ${prowl} reach ${reach_dir}/counter2.yaml --cross-check)
prowl_cli_test(reach_no_depth_cap_warns EXIT 0
  STDERR "warning: --max-depth 0: no depth cap"
  COMMAND ${prowl} reach ${reach_dir}/counter2.yaml --max-depth 0)
prowl_cli_test(reach_bug_writes_its_trace EXIT 1
  STDOUT "invariant:x_below_4: violated in 2 steps \\(trace [^)]*001-invariant-x_below_4.trace\\)"
  FILE ${reach_work}/traces/001-invariant-x_below_4.trace
  FILE_MATCHES "prowl-trace 1 counter2 kind=reach finding=invariant:x_below_4 init=\"x=0 y=0\" depth=2 .*\n0 inc p=2\n# x=2 y=0\n0 inc p=2\n# x=4 y=0\n"
  COMMAND ${prowl} reach ${CMAKE_CURRENT_SOURCE_DIR}/models/reach_counter2_bug.yaml --trace-dir ${reach_work}/traces)
prowl_cli_test(reach_replay_reproduces EXIT 1
  STDOUT "step 2: inc p=2 -> x=4 y=0\nthe failure happens: invariant:x_below_4 after step 2"
  COMMAND ${prowl} replay ${reach_work}/traces/001-invariant-x_below_4.trace)
prowl_cli_test(reach_replay_of_another_system EXIT 2
  STDERR "the trace is of system 'counter2', but the system file describes 'counter2_p1'"
  COMMAND ${prowl} replay ${reach_work}/traces/001-invariant-x_below_4.trace
    --system ${reach_dir}/counter2_p1.yaml)
set_tests_properties(cli.reach_replay_reproduces cli.reach_replay_of_another_system PROPERTIES
  FIXTURES_REQUIRED fx.reach_bug_writes_its_trace)
# The orders systems: slots of status codes (control locations) over prices and balances.
prowl_cli_test(reach_orders_small_cross_check EXIT 0
  STDOUT "status: fixpoint at depth 17 \\(18 iterations\\).*money_conserved: proved.*states 750 / 750, depth 17 / 17\n.*agree"
  COMMAND ${prowl} reach ${reach_dir}/orders_small.yaml --cross-check)
prowl_cli_test(reach_orders_1e6_proved EXIT 0
  STDOUT "status: fixpoint at depth 9 \\(10 iterations\\).*invariant:money_conserved: proved"
  COMMAND ${prowl} reach ${reach_dir}/orders_1e6.yaml)
prowl_cli_test(reach_orders_bug_small_cross_check EXIT 1
  STDOUT "money_conserved: violated in 4 steps.*states 1777 / 1777, depth 10 / 10\n.*agree: states, depth, states per level and shortest findings are equal"
  COMMAND ${prowl} reach ${reach_dir}/orders_bug_small.yaml --cross-check)
prowl_cli_test(reach_orders_bug_writes_its_trace EXIT 1
  STDOUT "invariant:money_conserved: violated in 4 steps \\(trace [^)]*001-invariant-money_conserved.trace\\)"
  FILE ${reach_work}/orders_bug/001-invariant-money_conserved.trace
  FILE_MATCHES "prowl-trace 1 orders_bug kind=reach finding=invariant:money_conserved init=\"cbal=10000000 mbal=0 nref=0 st0=0 amt0=0 st1=0 amt1=0 st2=0 amt2=0\" depth=4 .*\n0 create_[012] price=[0-9]+\n#[^\n]*\n0 pay_[012]\n#[^\n]*\n0 refund_[012]\n#[^\n]*\n0 refund_[012]\n"
  COMMAND ${prowl} reach ${reach_dir}/orders_bug.yaml --trace-dir ${reach_work}/orders_bug)
prowl_cli_test(reach_orders_bug_replays EXIT 1
  STDOUT "step 4: refund_[012] -> .*\nthe failure happens: invariant:money_conserved after step 4"
  COMMAND ${prowl} replay ${reach_work}/orders_bug/001-invariant-money_conserved.trace)
set_tests_properties(cli.reach_orders_bug_replays PROPERTIES
  FIXTURES_REQUIRED fx.reach_orders_bug_writes_its_trace)
# Z3's qe2 often does not look at its interrupt for seconds: the time limit still holds, 2 s of
# grace after it, with the report as it stood (tests/integration/reliability: signals). When Z3
# does stop at its interrupt, the run ends at the limit the ordinary way (its status says when);
# either way within 3-5 s.
prowl_cli_test(reach_time_limit_holds_inside_a_long_z3_call EXIT 4
  STDOUT "status: interrupted at depth 0 [^\n]*(in [3-5]\\.[0-9]+ s\n +time limit reached\n|\n +time limit reached after [3-5]\\.[0-9] s. Z3 did not return within 2 s of its interrupt)"
  COMMAND ${prowl} reach ${PROJECT_SOURCE_DIR}/tests/integration/reliability/models/reach-nonlinear.yaml
    --time-limit 3)
set_tests_properties(cli.reach_time_limit_holds_inside_a_long_z3_call PROPERTIES TIMEOUT 15)
prowl_cli_test(reach_undeclared_symbol EXIT 2
  STDERR "reach_undeclared.yaml:6:17: transitions\\[0\\] \\(inc\\).guard: unknown symbol 'limit'"
  COMMAND ${prowl} reach ${CMAKE_CURRENT_SOURCE_DIR}/models/reach_undeclared.yaml)
prowl_cli_test(reach_missing_file EXIT 2
  STDERR "nope.yaml: cannot read the system file"
  COMMAND ${prowl} reach ${reach_work}/nope.yaml)
prowl_cli_test(reach_bad_image EXIT 2
  STDERR "--image qe3: the image modes are qe2, qe, qe_rec, qe-light, psyco"
  COMMAND ${prowl} reach ${reach_dir}/counter2.yaml --image qe3)
prowl_cli_test(reach_negative_time_limit EXIT 2
  STDERR "--time-limit: -1 is not a number of seconds \\(0 or more; 0: no limit\\)"
  COMMAND ${prowl} reach ${reach_dir}/counter2.yaml --time-limit -1)
prowl_cli_test(help_names_exit_code_4 EXIT 0
  STDOUT "4 inconclusive"
  COMMAND ${prowl} help)

prowl_cli_writers(
  reach_bug_writes_its_trace
  reach_orders_bug_writes_its_trace)
