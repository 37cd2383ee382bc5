# prowl worst-case and the replay of its witnesses (docs/worst-case.md), on the bundled programs.
set(wc_work ${PROWL_CLI_WORK}/worst_case)
file(MAKE_DIRECTORY ${wc_work})

prowl_cli_test(worst_case_lists_its_programs EXIT 0
  STDOUT "^insertion_sort  .*\nboyer_moore3  .*\nsmith_waterman  .*\ndijkstra  .*\n$"
  COMMAND ${prowl} worst-case --list)
prowl_cli_test(worst_case_exhaustive_boyer_moore3 EXIT 0
  STDOUT "n=3: longest 3 in 4 paths .*n=10: longest 9 in 40 paths .*n=20: longest 18 in 1093 paths "
  JSON_FILE ${wc_work}/bm.json JSON_VERSION 1 JSON_MODEL boyer_moore3
  COMMAND ${prowl} worst-case boyer_moore3 --n 3,10,20 --json ${wc_work}/bm.json)
prowl_cli_test(worst_case_spf_wca_writes_witnesses EXIT 0
  STDOUT "history 2, learned at n=6 \\(longest 6, 13 paths\\), n=7 \\(longest 6, 13 paths\\).*n=10: longest 9 in 1 path \\(first at path 1\\), 1 run,.*n=100: longest 99 in 1 path "
  FILE ${wc_work}/traces/boyer_moore3-n10.trace
  FILE_MATCHES "^prowl-trace 1 boyer_moore3 kind=worst-case n=10 length=9 search=spf-wca objective=decisions\n(# [TF] boyer_moore3.cpp:[0-9]+\n)+0 input text\\[0\\]=-?[0-9]+ "
  COMMAND ${prowl} worst-case boyer_moore3 --n 10,100 --search spf-wca --train-n 6,7
    --trace-dir ${wc_work}/traces)
prowl_cli_test(worst_case_witness_replays EXIT 1
  STDOUT "recorded  9 decisions\nreplayed  9 decisions: TTFTTFTTF\nreproduced: the input takes a path of 9 decisions, as recorded\n"
  COMMAND ${prowl} replay ${wc_work}/traces/boyer_moore3-n10.trace)
set_tests_properties(cli.worst_case_witness_replays PROPERTIES
  FIXTURES_REQUIRED fx.worst_case_spf_wca_writes_witnesses)
prowl_cli_test(worst_case_wise_cannot_learn_boyer_moore3 EXIT 0
  STDOUT "n=10: longest 9 in 40 paths "
  COMMAND ${prowl} worst-case boyer_moore3 --n 10 --search wise --train-n 6)
prowl_cli_test(worst_case_wise_sorts_in_one_path EXIT 0
  STDOUT "n=12: longest 66 in 1 path "
  COMMAND ${prowl} worst-case insertion_sort --n 12 --search wise --train-n 3)
prowl_cli_test(worst_case_path_limit_is_inconclusive EXIT 4
  STDOUT "n=8: longest [0-9]+ in 10 paths .*, path limit"
  COMMAND ${prowl} worst-case insertion_sort --n 8 --max-paths 10)
prowl_cli_test(worst_case_unknown_program EXIT 2
  STDERR "unknown program 'nosuch' \\(the programs: insertion_sort, boyer_moore3, smith_waterman, dijkstra\\)"
  COMMAND ${prowl} worst-case nosuch --n 3)
prowl_cli_test(worst_case_size_below_one EXIT 2
  STDERR "--n 3,0: '0' is not a size \\(an integer from 1 to 100000"
  COMMAND ${prowl} worst-case insertion_sort --n 3,0)
prowl_cli_test(worst_case_needs_sizes EXIT 2
  STDERR "--n is required"
  COMMAND ${prowl} worst-case insertion_sort)
prowl_cli_test(worst_case_pyse_pretrained EXIT 0
  STDOUT "search pyse \\(history 2, seed 1, pre-trained at n=5 \\(longest 3, 4 runs\\)\\)\n  n=5: longest 3 in 4 paths .*complete\n.*n=10: longest 9 in 40 paths .*complete"
  COMMAND ${prowl} worst-case boyer_moore3 --n 5,10 --search pyse --pretrain-n 5)
prowl_cli_test(worst_case_pretrain_larger_than_n EXIT 2
  STDERR "--pretrain-n 5 is larger than every size of --n \\(the largest is 4\\)"
  COMMAND ${prowl} worst-case boyer_moore3 --n 3,4 --search pyse)
prowl_cli_test(worst_case_pyse_writes_its_policy EXIT 0
  STDOUT "pre-trained at n=5 .*n=10: longest 9 in 40 paths .*policy written to [^\n]*/bm.policy\n"
  FILE ${wc_work}/bm.policy
  FILE_MATCHES "^prowl-policy 1\nsizes=54,32,32,2\nactivation=relu\nprogram=boyer_moore3\nsearch=pyse\nhistory=2\nsites=[0-9]+\nseed=1\ntrained=5,10\nweights 1\n"
  COMMAND ${prowl} worst-case boyer_moore3 --n 10 --search pyse --policy-out ${wc_work}/bm.policy)
prowl_cli_test(worst_case_pyse_reads_its_policy EXIT 4
  STDOUT "policy from [^\n]*/bm.policy \\(trained at n=5,10\\)\\)\n  n=20: longest 18 in 20 paths "
  COMMAND ${prowl} worst-case boyer_moore3 --n 20 --search pyse --policy-in ${wc_work}/bm.policy
    --max-paths 20)
prowl_cli_test(worst_case_policy_of_another_program EXIT 2
  STDERR "bm.policy: the policy is of program 'boyer_moore3', not 'insertion_sort'"
  COMMAND ${prowl} worst-case insertion_sort --n 4 --search pyse --policy-in ${wc_work}/bm.policy)
prowl_cli_test(worst_case_policy_of_another_history EXIT 2
  STDERR "bm.policy: the policy reads 2 decisions of history, not 3: give --history 2"
  COMMAND ${prowl} worst-case boyer_moore3 --n 4 --search pyse --policy-in ${wc_work}/bm.policy
    --history 3)
set_tests_properties(cli.worst_case_pyse_reads_its_policy cli.worst_case_policy_of_another_program
  cli.worst_case_policy_of_another_history PROPERTIES FIXTURES_REQUIRED fx.worst_case_pyse_writes_its_policy)

# smith_waterman (Class 1): WISE learned at 3 runs one path at every size.
prowl_cli_test(worst_case_wise_smith_waterman_in_one_path EXIT 0
  STDOUT "learned at n=3 \\(longest 9, 64 paths\\): 1 rules.*n=10: longest 30 in 1 path .*n=100: longest 300 in 1 path "
  FILE ${wc_work}/sw/smith_waterman-n30.trace
  FILE_MATCHES "^prowl-trace 1 smith_waterman kind=worst-case n=30 length=90 search=wise "
  COMMAND ${prowl} worst-case smith_waterman --n 10,20,30,100 --search wise
    --trace-dir ${wc_work}/sw)
prowl_cli_test(worst_case_smith_waterman_witness_replays EXIT 1
  STDOUT "recorded  90 decisions\nreplayed  90 decisions: F+\nreproduced"
  COMMAND ${prowl} replay ${wc_work}/sw/smith_waterman-n30.trace)
set_tests_properties(cli.worst_case_smith_waterman_witness_replays PROPERTIES
  FIXTURES_REQUIRED fx.worst_case_wise_smith_waterman_in_one_path)

# --seeds K: PySE once per seed, the median reported, each seed in the JSON.
prowl_cli_test(worst_case_pyse_seeds_reports_the_median EXIT 4
  STDOUT "search pyse \\(history 2, seeds 1..3, each pre-trained at n=5\\)\n  n=10: longest 30 in [0-9]+ paths \\(first at path [0-9]+\\), 50 runs.*\n    seeds 1..3: longest first at path [0-9]+, [0-9]+, [0-9]+ \\(median [0-9]+\\)\\; witness of seed [1-3]\n"
  JSON_FILE ${wc_work}/seeds.json JSON_VERSION 1 JSON_MODEL smith_waterman
  FILE ${wc_work}/seeds.json
  FILE_MATCHES "\"seeds\": \\[\n *\\{\n *\"end\": \"path limit\",\n *\"longest\": 30,\n *\"paths\": [0-9]+,\n *\"paths_to_longest\": [0-9]+,\n *\"runs\": 50,\n *\"seconds\": [0-9.e-]+,\n *\"seed\": 1\n"
  COMMAND ${prowl} worst-case smith_waterman --n 10 --search pyse --seeds 3 --max-paths 50
    --json ${wc_work}/seeds.json)
prowl_cli_test(worst_case_seeds_need_pyse EXIT 2
  STDERR "--seeds 3 needs --search pyse: the other searches have no seed \\(drop --seeds\\)"
  COMMAND ${prowl} worst-case smith_waterman --n 10 --seeds 3)
prowl_cli_test(worst_case_seeds_write_no_policy EXIT 2
  STDERR "--policy-out writes one network, and --seeds 2 trains 2: run the seed you want with --seed S --policy-out"
  COMMAND ${prowl} worst-case smith_waterman --n 10 --search pyse --seeds 2
    --policy-out ${wc_work}/none.policy)

# A user's binary built on run_main (worst_case_user.cpp).
prowl_cli_test(worst_case_user_binary_searches_its_function EXIT 0
  STDOUT "linear_search, search exhaustive\n  n=4: longest 4 in 5 paths "
  COMMAND $<TARGET_FILE:prowl_worst_case_user> linear_search --n 4)
prowl_cli_test(worst_case_user_non_bool_condition_names_the_site EXIT 2
  STDERR "int_condition: worst_case_user.cpp:[0-9]+: the condition of a branch must be Bool, but is Int"
  COMMAND $<TARGET_FILE:prowl_worst_case_user> int_condition --n 1)

# dijkstra: WISE learned at 4; its witness graph replays concretely to the same decisions.
prowl_cli_test(worst_case_wise_dijkstra_writes_a_witness EXIT 0
  STDOUT "learned at n=4 \\(longest 28, 108 paths\\): 4 rules.*n=6: longest 118 in 1 path "
  FILE ${wc_work}/dj/dijkstra-n6.trace
  FILE_MATCHES "^prowl-trace 1 dijkstra kind=worst-case n=6 length=118 search=wise "
  COMMAND ${prowl} worst-case dijkstra --n 6 --search wise --train-n 4 --trace-dir ${wc_work}/dj)
prowl_cli_test(worst_case_dijkstra_witness_replays EXIT 1
  STDOUT "recorded  118 decisions\nreplayed  118 decisions: [TF]+\nreproduced"
  COMMAND ${prowl} replay ${wc_work}/dj/dijkstra-n6.trace)
set_tests_properties(cli.worst_case_dijkstra_witness_replays PROPERTIES
  FIXTURES_REQUIRED fx.worst_case_wise_dijkstra_writes_a_witness)

# A seed that does not reach the best longest counts as above all in the median of the paths to
# it, not in the median of the paths run.
prowl_cli_test(worst_case_pyse_seeds_median_when_seeds_miss_the_longest EXIT 4
  STDOUT "n=10: longest [0-9]+ in [1-3] paths? \\(first at path [-0-9]+\\), 3 runs, .*\n    seeds 1..5: longest first at path [^\n]*not in"
  COMMAND ${prowl} worst-case boyer_moore3 --n 10 --search pyse --seeds 5 --max-paths 3)

prowl_cli_writers(
  worst_case_spf_wca_writes_witnesses
  worst_case_pyse_writes_its_policy
  worst_case_wise_smith_waterman_in_one_path
  worst_case_wise_dijkstra_writes_a_witness)
