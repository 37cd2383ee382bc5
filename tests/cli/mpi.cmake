# The search over several processes (--mpi), under a real MPI launcher: Open MPI's mpirun starts
# 2 or 4 processes of an example on this machine (oversubscribed beyond its cores), and they must
# find exactly what one process finds: the same states and transitions, per depth (--max-depth
# bounds), and the same findings at the same shortest lengths. Included where prowl::mpi is built.
set(mpirun ${MPIEXEC_EXECUTABLE} --oversubscribe)
# Open MPI refuses to start as root (CI's containers) unless told it is meant.
set(mpi_env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1)

# prowl_mpi_test(NAME ... COMMAND ...): prowl_cli_test with the launcher's environment.
function(prowl_mpi_test name)
  prowl_cli_test(${name} ${ARGN})
  set_tests_properties(cli.${name} PROPERTIES ENVIRONMENT "${mpi_env}" PROCESSORS 2)
endfunction()

set(counters_1296 "counters: no findings. 1296 states, 8640 transitions, 8640 steps in [0-9.]+ s \\(exhausted, seed 5\\)\n$")
prowl_cli_test(counters_1296_states_in_one_process EXIT 0 STDOUT "${counters_1296}"
  COMMAND ${counters} --k 4 --n 6 --seed 5 --quiet)
prowl_mpi_test(counters_over_two_processes_finds_the_same_states EXIT 0 STDOUT "${counters_1296}"
  COMMAND ${mpirun} -np 2 ${counters} --k 4 --n 6 --seed 5 --quiet --color never --mpi)
prowl_mpi_test(counters_over_four_processes_finds_the_same_states EXIT 0
  STDOUT "${counters_1296}"
  COMMAND ${mpirun} -np 4 ${counters} --k 4 --n 6 --seed 5 --quiet --color never --mpi)
# Rank 0 shows the progress of every rank (a line a millisecond, in a run of about 50 rounds).
prowl_mpi_test(rank_0_shows_the_progress_of_every_rank EXIT 0
  STDERR "^progress: [0-9]+ states, [0-9]+ transitions, 0 findings, [0-9.]+ s\n"
  COMMAND ${mpirun} -np 2 ${counters} --k 4 --n 12 --seed 5 --color never --mpi
    --progress-every 0.001)
# Per depth: the states within 2 and 3 steps, as one process counts them.
foreach(depth_states IN ITEMS "2;15;24" "3;35;80")
  list(GET depth_states 0 depth)
  list(GET depth_states 1 states)
  list(GET depth_states 2 transitions)
  set(bounded "counters: no findings. ${states} states, ${transitions} transitions")
  prowl_cli_test(counters_within_depth_${depth}_in_one_process EXIT 0 STDOUT "${bounded}"
    COMMAND ${counters} --k 4 --n 6 --seed 5 --quiet --max-depth ${depth})
  prowl_mpi_test(counters_within_depth_${depth}_over_three_processes EXIT 0 STDOUT "${bounded}"
    COMMAND ${mpirun} -np 3 ${counters} --k 4 --n 6 --seed 5 --quiet --color never --mpi
      --max-depth ${depth})
endforeach()

# Findings: the grid's three bugs (six paths: an invariant after three different last actions,
# one after two, an action that throws), at the lengths one process finds them, confirmed.
set(grid_re "\\[1\\] critical invariant_violation not_x6y1 \\(confirmed\\)\n.*      7\\. [a-z_]+  <- fails\n    also reached by 2 other paths: \\[2\\] inc_y \\(7 steps\\), \\[3\\] swap \\(8 steps\\)\n\n\\[4\\] high action_error glitch \\(confirmed\\)\n    glitch at y=2; after it, invariant 'clean' \\(high\\) fails: invariant 'clean' does not hold\n.*      6\\. glitch \\[error\\]: glitch at y=2  <- fails\n\n\\[5\\] high invariant_violation sum_small \\(confirmed\\)\n.*      12\\. [a-z_]+  <- fails\n    also reached by 1 other path: \\[6\\] inc_y \\(12 steps\\)\n.*grid: 3 findings \\(6 paths\\); 64 states, 183 transitions, 184 steps in [0-9.]+ s \\(exhausted, seed 3\\)\n$")
prowl_cli_test(grid_findings_in_one_process EXIT 1 STDOUT "${grid_re}"
  COMMAND ${fixture} --case 9 --seed 3 --color never)
prowl_mpi_test(grid_findings_over_two_processes EXIT 1
  WORKDIR ${PROWL_CLI_WORK}/grid-mpi
  STDOUT "${grid_re}"
  FILE ${PROWL_CLI_WORK}/grid-mpi/grid.json
  FILE_MATCHES "\"termination\": \"exhausted\""
  COMMAND ${mpirun} -np 2 ${fixture} --case 9 --seed 3 --color never --mpi
    --report json:grid.json)
prowl_mpi_test(grid_findings_over_four_processes EXIT 1 STDOUT "${grid_re}"
  COMMAND ${mpirun} -np 4 ${fixture} --case 9 --seed 3 --color never --mpi)

# Bad usage: --mpi without a launcher; a strategy the processes cannot share.
prowl_cli_test(mpi_without_a_launcher_says_how_to_start_it EXIT 2
  STDERR "^counters: --mpi: this process was not started by an MPI launcher; start every process with one, as in: mpirun -np 4 counters --mpi\n$"
  COMMAND ${CMAKE_COMMAND} -E env --unset=OMPI_COMM_WORLD_RANK --unset=PMIX_RANK --unset=PMI_RANK
    ${counters} --mpi)
# Said once, by rank 0 (every rank refuses it alike), before the launcher's own account.
prowl_mpi_test(mpi_refuses_depth_first_search EXIT 2
  STDERR "^counters: a search over several processes \\(--mpi\\) needs breadth-first search of an in-memory model, and strategy 'dfs' is not breadth-first\n---"
  COMMAND ${mpirun} -np 2 ${counters} --strategy dfs --mpi)
# A rank that dies (the fixture's rank 1 kills itself): the other stops with exit 3 and names it.
# Each rank's shell ignores the launcher's SIGTERM and says how its rank ended; the launcher's
# own exit code is its business.
prowl_mpi_test(a_rank_that_dies_stops_the_others_naming_it EXIT 0
  STDERR "rank 1 \\(process [0-9]+ on [^)]*\\) died. rank 0 stops the search over 2 processes\n(.*\n)?rank 0 exit 3\n"
  COMMAND sh -c "\"$@\" || true" sh ${mpirun} -np 2 sh -c
    "trap '' TERM\n\"$0\" \"$@\"\necho \"rank $OMPI_COMM_WORLD_RANK exit $?\" >&2"
    ${fixture} --case 8 --mpi --quiet --color never)
# A rank that dies after the others were asked to stop (the launcher's SIGTERM may come first):
# the run still ends with the death, exit 3, its report saying so, not as an interrupted run.
prowl_mpi_test(a_rank_that_dies_after_a_sigterm_is_still_a_death EXIT 0
  WORKDIR ${PROWL_CLI_WORK}/mpi-dies-stopped
  STDERR "rank 1 \\(process [0-9]+ on [^)]*\\) died. rank 0 stops the search over 2 processes\n(.*\n)?rank 0 exit 3\n"
  FILE ${PROWL_CLI_WORK}/mpi-dies-stopped/dead.json
  FILE_MATCHES "\"termination\": \"error\".*\"error\": \"rank 1 \\(process [0-9]+ on [^)]*\\) died. rank 0 stops"
  COMMAND sh -c "\"$@\" || true" sh ${mpirun} -np 2 sh -c
    "trap '' TERM\n\"$0\" \"$@\"\necho \"rank $OMPI_COMM_WORLD_RANK exit $?\" >&2"
    ${fixture} --case 10 --mpi --quiet --color never --report json:dead.json)
# An error of one rank's own (its world cannot be built, the others' can): it says so and ends the
# job with its exit code, instead of leaving the others waiting for it.
prowl_mpi_test(an_error_of_one_rank_ends_the_job_with_its_exit_code EXIT 3
  STDERR "rank 1's database at 127\\.0\\.0\\.1:1 is unreachable"
  COMMAND ${mpirun} -np 2 ${fixture} --case 11 --mpi --quiet --color never)
set_tests_properties(cli.an_error_of_one_rank_ends_the_job_with_its_exit_code PROPERTIES
  TIMEOUT 60)
