# prowl train and prowl eval (docs/learned.md).
set(learned_work ${PROWL_CLI_WORK}/learned)
file(MAKE_DIRECTORY ${learned_work})

prowl_cli_test(train_writes_a_policy_with_a_learning_curve EXIT 0
  STDOUT "prowl train: maze6 \\(vision\\), 10 updates of 16 episodes, seed 3\n  update     1  episodes      16  coverage 0\\.[0-9]+\n.*  update    10  episodes     160  coverage 0\\.[0-9]+\npolicy written to [^\n]*/maze.policy\n"
  FILE ${learned_work}/maze.policy
  FILE_MATCHES "^prowl-policy 1\nsizes=12,1\nactivation=tanh\nkind=move-policy\nfeatures=moves-v3\nenv=maze6\nmode=vision\nseed=3\nepisodes=160\nalgorithm=a2c\n"
  COMMAND ${prowl} train --env maze6 --episodes 160 --seed 3 -o ${learned_work}/maze.policy)
prowl_cli_test(eval_measures_the_policy_beside_the_baselines EXIT 0
  STDOUT "prowl eval: maze6 \\(vision\\), 10 graphs from seed 1000\n  random   0\\.[0-9]+ ± 0\\.[0-9]+  \\(20 episodes\\)\n  randdfs  0\\.[0-9]+ .*\n  greedy   0\\.[0-9]+ .*\n  qtable   0\\.[0-9]+ ± 0\\.[0-9]+  \\(20 episodes, on each graph, node ids: 200 episodes, best run\\)\n  qtable_history 0\\.[0-9]+ ± 0\\.[0-9]+  \\(20 episodes, on each graph, whole state: 200 episodes, best run\\)\n  policy   0\\.[0-9]+ ± 0\\.[0-9]+  \\(10 episodes, greedy: one per graph\\)\n"
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/maze.policy --graphs 10 --seeds 2)
set_tests_properties(cli.eval_measures_the_policy_beside_the_baselines PROPERTIES
  FIXTURES_REQUIRED fx.train_writes_a_policy_with_a_learning_curve)
prowl_cli_test(eval_refuses_a_policy_of_another_env EXIT 2
  STDERR "maze.policy: the policy was trained for maze6 \\(vision\\)\\; this is er-app \\(vision\\): give --env maze6 --mode vision, or train one for this environment"
  COMMAND ${prowl} eval --env er-app --policy ${learned_work}/maze.policy)
prowl_cli_test(eval_refuses_a_policy_of_another_mode EXIT 2
  STDERR "trained for maze6 \\(vision\\)\\; this is maze6 \\(bump\\)"
  COMMAND ${prowl} eval --env maze6 --mode bump --policy ${learned_work}/maze.policy)
set_tests_properties(cli.eval_refuses_a_policy_of_another_env cli.eval_refuses_a_policy_of_another_mode
  PROPERTIES FIXTURES_REQUIRED fx.train_writes_a_policy_with_a_learning_curve)
prowl_cli_test(eval_names_a_missing_policy_file EXIT 2
  STDERR "prowl eval: [^\n]*/nosuch.policy: "
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/nosuch.policy)
file(WRITE ${learned_work}/corrupt.policy "prowl-policy 1\nsizes=8,1\nactivation=tanh\nkind=move-policy\nweights 1\n1 2 3\n")
prowl_cli_test(eval_names_the_line_of_a_corrupt_policy EXIT 2
  STDERR "prowl eval: [^\n]*/corrupt.policy:6: "
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/corrupt.policy)
file(WRITE ${learned_work}/pyse.policy "prowl-policy 1\nsizes=8,1\nactivation=relu\nprogram=boyer_moore3\nsearch=pyse\nweights 1\n1 2 3 4 5 6 7 8\nbias 1\n0\n")
prowl_cli_test(eval_refuses_a_policy_prowl_train_did_not_write EXIT 2
  STDERR "pyse.policy: not a policy prowl train wrote \\(kind=<none>, expected move-policy or graph-policy\\): train one with prowl train"
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/pyse.policy)
# A best window: the policy after the 5 updates of highest mean coverage, and where it was.
prowl_cli_test(train_keeps_the_best_window EXIT 0
  STDOUT "  update    20  episodes     320  coverage 0\\.[0-9]+\n  kept the policy after update ([5-9]|1[0-9]|20) \\(updates ([1-9]|1[0-6]) - ([5-9]|1[0-9]|20): mean coverage 0\\.[0-9]+\\)\npolicy written to "
  FILE ${learned_work}/window.policy
  FILE_MATCHES "\nlearning_rate=0\\.05\nkeep_best_window=5\nkept_after_update=([5-9]|1[0-9]|20)\nweights "
  COMMAND ${prowl} train --env maze6 --episodes 320 --seed 3 --keep-best-window 5 -o ${learned_work}/window.policy)
# A window as long as the training: the last update's policy, whatever the curve.
prowl_cli_test(train_keeps_a_window_of_the_whole_training EXIT 0
  STDOUT "  update    20  episodes     320  coverage 0\\.[0-9]+\n  kept the policy after update 20 \\(updates 1 - 20: mean coverage 0\\.[0-9]+\\)\npolicy written to "
  FILE ${learned_work}/whole-window.policy
  FILE_MATCHES "\nkeep_best_window=20\nkept_after_update=20\nweights "
  COMMAND ${prowl} train --env maze6 --episodes 320 --seed 3 --keep-best-window 20 -o ${learned_work}/whole-window.policy)
prowl_cli_test(train_keeps_the_linear_starts_window_too EXIT 0
  STDOUT "  linear start  coverage 0\\.[0-9]+\n  update     1 [^\n]*\n  update     2 [^\n]*\n  the linear start: kept the policy after its update [23]\n  kept the policy after update 2 \\(updates 1 - 2: mean coverage 0\\.[0-9]+\\)\npolicy written to "
  FILE ${learned_work}/graph-window.policy
  FILE_MATCHES "\nlinear_episodes=48\nkeep_best_window=2\nlinear_kept_after_update=[23]\nkept_after_update=2\n"
  COMMAND ${prowl} train --env er-app --network graph --episodes 32 --linear-episodes 48 --keep-best-window 2 --seed 5 -o ${learned_work}/graph-window.policy)
prowl_cli_test(train_with_a_window_longer_than_the_training EXIT 0
  STDOUT "  update     2  episodes      32  coverage 0\\.[0-9]+\n  kept the policy of the last update \\(fewer updates than the window of 5\\)\npolicy written to "
  FILE ${learned_work}/short-window.policy
  FILE_MATCHES "\nlearning_rate=0\\.05\nkeep_best_window=5\nweights "
  COMMAND ${prowl} train --env maze6 --episodes 32 --keep-best-window 5 -o ${learned_work}/short-window.policy)
prowl_cli_test(train_refuses_a_negative_window EXIT 2
  STDERR "--keep-best-window: Value -1 not in range 0 to 1000000"
  COMMAND ${prowl} train --env maze6 --episodes 32 --keep-best-window -1 -o ${learned_work}/none.policy)
prowl_cli_test(train_needs_an_episode EXIT 2
  STDERR "prowl train: --episodes 0: train for at least one episode"
  COMMAND ${prowl} train --env maze6 --episodes 0 -o ${learned_work}/none.policy)
prowl_cli_test(train_names_the_environments EXIT 2
  STDERR "prowl train: --env maze9: unknown environment 'maze9' \\(the environments: maze6, er-app\\)"
  COMMAND ${prowl} train --env maze9 --episodes 16 -o ${learned_work}/none.policy)
prowl_cli_test(train_er_app_has_no_bump_mode EXIT 2
  STDERR "er-app has no walls to bump into: its mode is vision"
  COMMAND ${prowl} train --env er-app --mode bump --episodes 16 -o ${learned_work}/none.policy)
prowl_cli_test(eval_needs_a_policy EXIT 2
  STDERR "prowl eval: --policy FILE is required \\(or --ablation, which trains its own\\)"
  COMMAND ${prowl} eval --env maze6)
prowl_cli_test(eval_ablation_trains_each_history_summary EXIT 0
  STDOUT "  qtable_history [^\n]*\n  node-nonAR 0\\.[0-9]+ [^\n]*trained 2 updates of 16 after a linear start of 3\\)\n  pool-nonAR 0\\.[0-9]+ [^\n]*\n  graph-nonAR 0\\.[0-9]+ [^\n]*\n  node-AR +0\\.[0-9]+ [^\n]*\n  pool-AR +0\\.[0-9]+ [^\n]*\n  graph-AR 0\\.[0-9]+ [^\n]*trained 2 updates of 16 after a linear start of 3\\)\n$"
  COMMAND ${prowl} eval --env maze6 --ablation --episodes 32 --linear-episodes 48 --graphs 5 --seeds 1)
prowl_cli_test(eval_ablation_with_local_information EXIT 0
  STDOUT "  node-nonAR 0\\.[0-9]+ [^\n]*trained 1 updates of 16; local information\\)\n.*  graph-AR 0\\.[0-9]+ [^\n]*; local information\\)\n$"
  COMMAND ${prowl} eval --env maze6 --mode bump --ablation --information local --episodes 16 --graphs 2 --seeds 1)
prowl_cli_test(eval_ablation_keeps_each_variants_best_window EXIT 0
  STDOUT "  node-nonAR 0\\.[0-9]+ [^\n]*trained 3 updates of 16; local information; kept after update 3\\)\n.*  graph-AR 0\\.[0-9]+ [^\n]*; local information; kept after update 3\\)\n$"
  COMMAND ${prowl} eval --env maze6 --ablation --information local --episodes 48 --keep-best-window 3 --graphs 2 --seeds 1)
prowl_cli_test(eval_ablation_says_when_the_window_is_longer EXIT 0
  STDOUT "  node-nonAR 0\\.[0-9]+ [^\n]*trained 1 updates of 16; local information; kept the last update \\(fewer than 4\\)\\)\n"
  COMMAND ${prowl} eval --env maze6 --ablation --information local --episodes 16 --keep-best-window 4 --graphs 2 --seeds 1)
prowl_cli_test(eval_keep_best_window_needs_the_ablation EXIT 2
  STDERR "--keep-best-window requires --ablation"
  COMMAND ${prowl} eval --env maze6 --keep-best-window 3 --policy ${learned_work}/maze.policy)
prowl_cli_test(eval_information_needs_the_ablation EXIT 2
  STDERR "--information requires --ablation"
  COMMAND ${prowl} eval --env maze6 --information local --policy ${learned_work}/maze.policy)
prowl_cli_test(eval_ablation_takes_no_policy EXIT 2
  STDERR "--policy excludes --ablation"
  COMMAND ${prowl} eval --env maze6 --ablation --policy ${learned_work}/maze.policy)

# --strategy learned: a policy trained on er-app explores the demo's service and a run_main
# program; bad policies and flags are usage errors (exit 2).
prowl_cli_test(train_er_app_for_models EXIT 0
  STDOUT "policy written to [^\n]*/er.policy\n"
  COMMAND ${prowl} train --env er-app --episodes 160 --seed 2 -o ${learned_work}/er.policy)
# Within the demo's depth bound (4) a strategy that is not breadth first may reach a state first
# by a longer path and not expand it (as dfs does: 3 findings, 11 states).
prowl_cli_test(demo_explores_with_the_learned_strategy EXIT 1
  STDOUT "shop: [23] findings( \\([34] paths\\))?; 1[12] states, [0-9]+ transitions, [0-9]+ steps in [0-9.]+ s \\(exhausted, seed 3\\)\n$"
  COMMAND ${prowl} demo --strategy learned --policy ${learned_work}/er.policy --seed 3 --quiet)
prowl_cli_test(demo_walks_with_the_learned_strategy EXIT 1
  STDOUT "shop: [23] findings( \\([34] paths\\))?; 1[12] states, [0-9]+ transitions, [0-9]+ steps in [0-9.]+ s \\(exhausted, seed 3\\)\n$"
  COMMAND ${prowl} demo --strategy learned --policy ${learned_work}/er.policy --walk --seed 3 --quiet)
prowl_cli_test(learned_strategy_refuses_a_maze_policy EXIT 2
  STDERR "maze.policy: the policy was trained for maze6 features \\(moves by direction, no back\\)\\; a model's moves are its actions and back: train one with prowl train --env er-app"
  COMMAND ${prowl} demo --strategy learned --policy ${learned_work}/maze.policy)
set_tests_properties(cli.demo_explores_with_the_learned_strategy
  cli.demo_walks_with_the_learned_strategy PROPERTIES FIXTURES_REQUIRED fx.train_er_app_for_models)
set_tests_properties(cli.learned_strategy_refuses_a_maze_policy PROPERTIES
  FIXTURES_REQUIRED fx.train_writes_a_policy_with_a_learning_curve)
prowl_cli_test(learned_strategy_needs_a_policy EXIT 2
  STDERR "prowl demo: strategy 'learned' needs a policy file: --strategy learned --policy FILE \\(prowl train writes one\\; docs/learned.md\\)"
  COMMAND ${prowl} demo --strategy learned)
prowl_cli_test(policy_flag_is_for_the_learned_strategy EXIT 2
  STDERR "--policy and --walk are for --strategy learned\\; the strategy is 'mcts'"
  COMMAND ${prowl} demo --strategy mcts --walk)
prowl_cli_test(learned_strategy_names_a_missing_policy_file EXIT 2
  STDERR "[^\n]*/nosuch.policy: cannot read the policy file"
  COMMAND ${prowl} demo --strategy learned --policy ${learned_work}/nosuch.policy)
prowl_cli_test(train_writes_a_graph_policy EXIT 0
  STDOUT "prowl train: er-app \\(vision\\), 2 updates of 16 episodes, seed 5, after a linear start of 3 updates\n  linear start  coverage 0\\.[0-9]+\n  update     1  episodes      16  coverage 0\\.[0-9]+\n  update     2  episodes      32  coverage 0\\.[0-9]+\npolicy written to "
  FILE ${learned_work}/graph.policy
  FILE_MATCHES "^prowl-policy 1\nsizes=60,32,1\nactivation=tanh\nkind=graph-policy\nfeatures=moves-v3\nnode_features=nodes-v1\nenv=er-app\nmode=vision\nhidden=16\nrounds=3\nreadout=16\nsummary=graph\nhistory=none\ninformation=full\nskip=linear\nseed=5\nepisodes=32\n.*\nlinear_episodes=48\n.*\nvector encoder [0-9]+\n.*\nvector skip 12\n"
  COMMAND ${prowl} train --env er-app --network graph --episodes 32 --linear-episodes 33 --seed 5 -o ${learned_work}/graph.policy)
prowl_cli_test(eval_measures_a_graph_policy EXIT 0
  STDOUT "  policy   0\\.[0-9]+ ± 0\\.[0-9]+  \\(5 episodes, greedy: one per graph\\)\n"
  COMMAND ${prowl} eval --env er-app --policy ${learned_work}/graph.policy --graphs 5 --seeds 1)
prowl_cli_test(demo_walks_with_a_graph_policy EXIT 1
  STDOUT "shop: [23] findings( \\([34] paths\\))?; 1[12] states, [0-9]+ transitions, [0-9]+ steps in [0-9.]+ s \\(exhausted, seed 3\\)\n$"
  COMMAND ${prowl} demo --strategy learned --policy ${learned_work}/graph.policy --walk --seed 3 --quiet)
set_tests_properties(cli.eval_measures_a_graph_policy cli.demo_walks_with_a_graph_policy
  PROPERTIES FIXTURES_REQUIRED fx.train_writes_a_graph_policy)
prowl_cli_test(train_writes_a_graph_policy_with_history EXIT 0
  STDOUT "prowl train: er-app \\(vision\\), 2 updates of 16 episodes, seed 5\n.*policy written to "
  FILE ${learned_work}/lstm.policy
  FILE_MATCHES "^prowl-policy 1\nsizes=60,32,1\nactivation=tanh\nkind=graph-policy\n.*\nsummary=graph\nhistory=lstm\ninformation=full\nskip=linear\nlstm=16\nseed=5\n.*\nvector encoder [0-9]+\n.*\nvector lstm 2112\n.*\nvector skip 12\n"
  COMMAND ${prowl} train --env er-app --network graph --history lstm --episodes 32 --linear-episodes 0 --seed 5 -o ${learned_work}/lstm.policy)
prowl_cli_test(demo_explores_with_a_graph_policy_with_history EXIT 1
  STDOUT "shop: [23] findings( \\([34] paths\\))?; 1[12] states, [0-9]+ transitions, [0-9]+ steps in [0-9.]+ s \\(exhausted, seed 3\\)\n$"
  COMMAND ${prowl} demo --strategy learned --policy ${learned_work}/lstm.policy --seed 3 --quiet)
set_tests_properties(cli.demo_explores_with_a_graph_policy_with_history
  PROPERTIES FIXTURES_REQUIRED fx.train_writes_a_graph_policy_with_history)
prowl_cli_test(train_fine_tunes_a_policy EXIT 0
  STDOUT "prowl train: er-app \\(vision\\), 2 updates of 16 episodes, seed 4, from [^\n]*/er.policy\n.*policy written to "
  FILE ${learned_work}/er-tuned.policy
  FILE_MATCHES "\nfine_tuned_from=[^\n]*/er.policy\n"
  COMMAND ${prowl} train --env er-app --episodes 32 --seed 4 --from ${learned_work}/er.policy -o ${learned_work}/er-tuned.policy)
prowl_cli_test(train_refuses_to_fine_tune_another_envs_policy EXIT 2
  STDERR "prowl train: [^\n]*/er.policy: the policy was trained for er-app \\(vision\\)\\; this is maze6 \\(vision\\)"
  COMMAND ${prowl} train --env maze6 --episodes 32 --from ${learned_work}/er.policy -o ${learned_work}/none.policy)
set_tests_properties(cli.train_fine_tunes_a_policy cli.train_refuses_to_fine_tune_another_envs_policy
  PROPERTIES FIXTURES_REQUIRED fx.train_er_app_for_models)
if(DEFINED counters)
  # A run_main program trains on its own model.
  prowl_cli_test(counters_trains_a_policy_on_its_model EXIT 0
    STDOUT "counters train: model counters \\(9 states, all of them\\), 10 steps an episode, 10 updates of 16 episodes, seed 1\n  update     1 .*policy written to [^\n]*/counters.policy\n"
    FILE ${learned_work}/counters.policy
    FILE_MATCHES "\nenv=model\nmode=vision\nmodel=counters\nmodel_states=9\nbudget=10\noption.k=2\noption.n=3\nseed=1\nepisodes=160\n"
    COMMAND ${counters} train -o ${learned_work}/counters.policy --k 2 --n 3 --episodes 160 --budget 10)
  prowl_cli_test(counters_train_keeps_the_best_window EXIT 0
    STDOUT "  update    10  episodes     160  coverage [01]\\.[0-9]+\n  kept the policy after update ([3-9]|10) \\(updates ([1-8]) - ([3-9]|10): mean coverage [01]\\.[0-9]+\\)\npolicy written to "
    FILE ${learned_work}/counters-window.policy
    FILE_MATCHES "\nkeep_best_window=3\nkept_after_update=([3-9]|10)\n"
    COMMAND ${counters} train -o ${learned_work}/counters-window.policy --k 2 --n 3 --episodes 160 --budget 10 --keep-best-window 3)
  prowl_cli_test(counters_explores_with_its_own_policy EXIT 0
    STDOUT "counters: no findings. 64 states, 288 transitions, 288 steps in [0-9.]+ s \\(exhausted, seed 2\\)\n$"
    COMMAND ${counters} --k 3 --n 4 --seed 2 --quiet --strategy learned --policy ${learned_work}/counters.policy)
  set_tests_properties(cli.counters_explores_with_its_own_policy PROPERTIES
    FIXTURES_REQUIRED fx.counters_trains_a_policy_on_its_model)
  prowl_cli_test(counters_train_refuses_a_maze_policy EXIT 2
    STDERR "counters train: [^\n]*/maze.policy: the policy was trained for maze6 features"
    COMMAND ${counters} train -o ${learned_work}/none.policy --from ${learned_work}/maze.policy)
  set_tests_properties(cli.counters_train_refuses_a_maze_policy PROPERTIES
    FIXTURES_REQUIRED fx.train_writes_a_policy_with_a_learning_curve)
  prowl_cli_test(counters_trains_a_graph_policy_after_a_linear_start EXIT 0
    STDOUT "counters train: model counters \\(9 states, all of them\\), 10 steps an episode, 1 update of 16 episodes, seed 1, after a linear start of 2 updates\n  linear start  coverage 0\\.[0-9]+\n  update     1 .*policy written to [^\n]*/counters-graph.policy\n"
    FILE ${learned_work}/counters-graph.policy
    FILE_MATCHES "\nkind=graph-policy\n.*\nskip=linear\nmodel=counters\n.*\nlinear_episodes=32\n"
    COMMAND ${counters} train -o ${learned_work}/counters-graph.policy --k 2 --n 3 --episodes 16 --budget 10 --network graph --linear-episodes 32)
  prowl_cli_test(counters_train_linear_episodes_is_for_a_graph_policy EXIT 2
    STDERR "counters train: --linear-episodes is for a new graph policy: give --network graph, and no --from"
    COMMAND ${counters} train -o ${learned_work}/none.policy --linear-episodes 32)
  prowl_cli_test(counters_train_needs_an_output EXIT 2
    STDERR "--output is required"
    COMMAND ${counters} train --episodes 16)
  prowl_cli_test(counters_explores_all_states_with_the_learned_strategy EXIT 0
    STDOUT "counters: no findings. 64 states, 288 transitions, 288 steps in [0-9.]+ s \\(exhausted, seed 5\\)\n$"
    COMMAND ${counters} --k 3 --n 4 --seed 5 --strategy learned:policy=${learned_work}/er.policy,walk=true)
  set_tests_properties(cli.counters_explores_all_states_with_the_learned_strategy PROPERTIES
    FIXTURES_REQUIRED fx.train_er_app_for_models)
endif()
prowl_cli_test(train_history_is_for_a_new_graph_policy EXIT 2
  STDERR "prowl train: --history is for a new graph policy: give --network graph, and no --from"
  COMMAND ${prowl} train --env maze6 --episodes 16 --history lstm -o ${learned_work}/none.policy)
prowl_cli_test(train_summary_is_for_a_new_graph_policy EXIT 2
  STDERR "prowl train: --summary is for a new graph policy: give --network graph, and no --from"
  COMMAND ${prowl} train --env maze6 --episodes 16 --summary pool -o ${learned_work}/none.policy)
prowl_cli_test(train_linear_episodes_is_for_a_new_graph_policy EXIT 2
  STDERR "prowl train: --linear-episodes is for a new graph policy: give --network graph, and no --from"
  COMMAND ${prowl} train --env maze6 --episodes 16 --linear-episodes 16 -o ${learned_work}/none.policy)
prowl_cli_test(eval_linear_episodes_needs_the_ablation EXIT 2
  STDERR "--linear-episodes requires --ablation"
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/maze.policy --linear-episodes 32)
prowl_cli_test(eval_linear_episodes_is_for_full_information EXIT 2
  STDERR "prowl eval: --linear-episodes is for --information full: with local information the variants start from their own weights"
  COMMAND ${prowl} eval --env maze6 --ablation --information local --linear-episodes 32)
prowl_cli_test(eval_episodes_needs_the_ablation EXIT 2
  STDERR "--episodes requires --ablation"
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/maze.policy --episodes 32)

prowl_cli_writers(
  train_writes_a_policy_with_a_learning_curve
  train_er_app_for_models
  train_writes_a_graph_policy
  train_writes_a_graph_policy_with_history
  counters_trains_a_policy_on_its_model)
