# prowl train and prowl eval (docs/learned.md).
set(learned_work ${PROWL_CLI_WORK}/learned)
file(MAKE_DIRECTORY ${learned_work})

prowl_cli_test(train_writes_a_policy_with_a_learning_curve EXIT 0
  STDOUT "prowl train: maze6 \\(vision\\), 10 updates of 16 episodes, seed 3\n  update     1  episodes      16  coverage 0\\.[0-9]+\n.*  update    10  episodes     160  coverage 0\\.[0-9]+\npolicy written to [^\n]*/maze.policy\n"
  FILE ${learned_work}/maze.policy
  FILE_MATCHES "^prowl-policy 1\nsizes=8,1\nactivation=tanh\nkind=move-policy\nfeatures=moves-v1\nenv=maze6\nmode=vision\nseed=3\nepisodes=160\nalgorithm=a2c\n"
  COMMAND ${prowl} train --env maze6 --episodes 160 --seed 3 -o ${learned_work}/maze.policy)
prowl_cli_test(eval_measures_the_policy_beside_the_baselines EXIT 0
  STDOUT "prowl eval: maze6 \\(vision\\), 10 graphs from seed 1000\n  random   0\\.[0-9]+ ± 0\\.[0-9]+  \\(20 episodes\\)\n  randdfs  0\\.[0-9]+ .*\n  greedy   0\\.[0-9]+ .*\n  qtable   0\\.[0-9]+ ± 0\\.[0-9]+  \\(20 episodes, trained on each graph: 200 episodes\\)\n  policy   0\\.[0-9]+ ± 0\\.[0-9]+  \\(10 episodes, greedy: one per graph\\)\n"
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/maze.policy --graphs 10 --seeds 2)
set_tests_properties(cli.eval_measures_the_policy_beside_the_baselines PROPERTIES
  DEPENDS cli.train_writes_a_policy_with_a_learning_curve)
prowl_cli_test(eval_refuses_a_policy_of_another_env EXIT 2
  STDERR "maze.policy: the policy was trained for maze6 \\(vision\\)\\; this is er-app \\(vision\\): give --env maze6 --mode vision, or train one for this environment"
  COMMAND ${prowl} eval --env er-app --policy ${learned_work}/maze.policy)
prowl_cli_test(eval_refuses_a_policy_of_another_mode EXIT 2
  STDERR "trained for maze6 \\(vision\\)\\; this is maze6 \\(bump\\)"
  COMMAND ${prowl} eval --env maze6 --mode bump --policy ${learned_work}/maze.policy)
set_tests_properties(cli.eval_refuses_a_policy_of_another_env cli.eval_refuses_a_policy_of_another_mode
  PROPERTIES DEPENDS cli.train_writes_a_policy_with_a_learning_curve)
prowl_cli_test(eval_names_a_missing_policy_file EXIT 2
  STDERR "prowl eval: [^\n]*/nosuch.policy: "
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/nosuch.policy)
file(WRITE ${learned_work}/corrupt.policy "prowl-policy 1\nsizes=8,1\nactivation=tanh\nkind=move-policy\nweights 1\n1 2 3\n")
prowl_cli_test(eval_names_the_line_of_a_corrupt_policy EXIT 2
  STDERR "prowl eval: [^\n]*/corrupt.policy:6: "
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/corrupt.policy)
file(WRITE ${learned_work}/pyse.policy "prowl-policy 1\nsizes=8,1\nactivation=relu\nprogram=boyer_moore3\nsearch=pyse\nweights 1\n1 2 3 4 5 6 7 8\nbias 1\n0\n")
prowl_cli_test(eval_refuses_a_policy_prowl_train_did_not_write EXIT 2
  STDERR "pyse.policy: not a policy prowl train wrote \\(kind=<none>, expected move-policy\\): train one with prowl train"
  COMMAND ${prowl} eval --env maze6 --policy ${learned_work}/pyse.policy)
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
  STDERR "--policy is required"
  COMMAND ${prowl} eval --env maze6)
