# prowl init --openapi: starter model files from OpenAPI documents (tests/cli/openapi/). The
# models are compared byte for byte with approved golden files, loaded by prowl explore, and the
# shop's, given the command that starts the shop, explored against the real service.
set(openapi ${CMAKE_CURRENT_SOURCE_DIR}/openapi)
set(openapi_work ${PROWL_CLI_WORK}/openapi)
set(shop_openapi ${PROJECT_SOURCE_DIR}/examples/shop_api/openapi.yaml)

prowl_cli_test(openapi_prowl_help_lists_init EXIT 0
  STDOUT "  init        write a starter model file from an OpenAPI document \\(--openapi SPEC\\)\n"
  COMMAND ${prowl} help)
prowl_cli_test(openapi_prowl_init_needs_a_document EXIT 2
  STDERR "--openapi is required"
  COMMAND ${prowl} init)

# The golden files: the petstore (typed from the published OpenAPI 3.0 example) and the shop.
foreach(doc petstore shop)
  set(spec ${openapi}/${doc}.yaml)
  if(doc STREQUAL "shop")
    set(spec ${shop_openapi})
  endif()
  add_test(NAME cli.openapi_prowl_init_writes_the_golden_model_of_${doc}
    COMMAND ${CMAKE_COMMAND} -DPROWL=${prowl} -DSPEC=${spec}
      -DGOLDEN=${openapi}/${doc}.golden.yaml -DOUT=${openapi_work}/${doc}.yaml
      -P ${openapi}/golden.cmake)
  set_tests_properties(cli.openapi_prowl_init_writes_the_golden_model_of_${doc} PROPERTIES
    FIXTURES_SETUP openapi_${doc})
endforeach()
prowl_cli_test(openapi_prowl_explore_loads_the_init_model_of_the_petstore EXIT 0
  STDOUT "^model swagger_petstore: 3 actions, 2 invariants\n\nactions:\n  listPets\n.*  createPets\n.*  showPetById\n    Info for a specific pet\n    requires pet_id"
  COMMAND ${prowl} explore ${openapi_work}/petstore.yaml --list-actions)
set_tests_properties(cli.openapi_prowl_explore_loads_the_init_model_of_the_petstore PROPERTIES
  FIXTURES_REQUIRED openapi_petstore)
prowl_cli_test(openapi_prowl_explore_loads_the_init_model_of_the_shop EXIT 0
  STDOUT "^model shop_api: 12 actions, 7 invariants\n.*  pay\n    pending -> paid: records a payment of amount_cents\n    requires order_id"
  COMMAND ${prowl} explore ${openapi_work}/shop.yaml --list-actions)
set_tests_properties(cli.openapi_prowl_explore_loads_the_init_model_of_the_shop PROPERTIES
  FIXTURES_REQUIRED openapi_shop)

prowl_cli_test(openapi_prowl_init_writes_to_standard_output_without_o EXIT 0
  STDOUT "^# A prowl model of Swagger Petstore 1\\.0\\.0, written by `prowl init` from petstore\\.yaml\\.\n.*\n  - name: showPetById\n"
  COMMAND ${prowl} init --openapi ${openapi}/petstore.yaml)
prowl_cli_test(openapi_prowl_init_does_not_replace_a_file_without_force EXIT 2
  WORKDIR ${openapi_work}/exists COPY ${openapi}/petstore.yaml
  STDERR "^prowl init: petstore\\.yaml exists. give --force to replace it, or another -o FILE\n$"
  COMMAND ${prowl} init --openapi petstore.yaml -o petstore.yaml)
prowl_cli_test(openapi_prowl_init_replaces_a_file_with_force EXIT 0
  WORKDIR ${openapi_work}/force COPY ${openapi}/petstore.yaml
  STDOUT "^wrote model.yaml from petstore.yaml. read its TODO comments, then: prowl explore model.yaml\n$"
  FILE ${openapi_work}/force/model.yaml FILE_MATCHES "^# A prowl model of Swagger Petstore"
  COMMAND ${prowl} init --openapi petstore.yaml -o model.yaml --force)
prowl_cli_test(openapi_prowl_init_refuses_a_swagger_2_document EXIT 2
  STDERR "^[^\n]*/openapi/swagger2.json:2:14: this is a Swagger 2.0 document. prowl init reads OpenAPI 3.0 and 3.1\n  hint: convert it to OpenAPI 3 first"
  COMMAND ${prowl} init --openapi ${openapi}/swagger2.json)
prowl_cli_test(openapi_prowl_init_refuses_a_missing_document EXIT 2
  STDERR "^/nonexistent/api.yaml: cannot read the OpenAPI document: No such file or directory\n"
  COMMAND ${prowl} init --openapi /nonexistent/api.yaml)

# The shop's model, given the command that starts the shop (on an in-memory database, so that a
# restart empties it), finds the shop's seeded double cancel through GET /stats's audit.
if(PROWL_BUILD_EXAMPLES)
  prowl_cli_test(openapi_prowl_init_writes_the_command_it_is_given EXIT 0
    WORKDIR ${openapi_work}/shop-run
    FILE ${openapi_work}/shop-run/shop.yaml
    FILE_MATCHES "\n    command: \"[^\n]*/shop_api --port {port} --db sqlite::memory:\"   # runs through /bin/sh -c"
    COMMAND ${prowl} init --openapi ${shop_openapi} -o shop.yaml
      --command "$<TARGET_FILE:shop_api> --port {port} --db sqlite::memory:")
  set_tests_properties(cli.openapi_prowl_init_writes_the_command_it_is_given PROPERTIES
    FIXTURES_SETUP openapi_shop_run)
  prowl_cli_test(openapi_prowl_explore_of_the_init_model_finds_a_seeded_shop_bug EXIT 1
    STDOUT "\\[1\\] high invariant_violation stats_matches_schema \\(confirmed\\)\n    GET http://127\\.0\\.0\\.1:[0-9]+/stats: '/audit/stock_mismatched_products' is 1, expected at most 0\n    steps:\n      1\\. create_order: POST [^\n]*/orders \\{\"product_id\":1\\} -> 201 [^\n]*\n      2\\. cancel: POST [^\n]*/orders/1/cancel -> 200 [^\n]*\n      3\\. cancel: POST [^\n]*/orders/1/cancel -> 200 [^\n]*  <- fails\n.*shop_api: 1 finding. 21 states, 81 transitions"
    COMMAND ${prowl} explore ${openapi_work}/shop-run/shop.yaml --max-depth 3)
  set_tests_properties(cli.openapi_prowl_explore_of_the_init_model_finds_a_seeded_shop_bug PROPERTIES
    FIXTURES_REQUIRED openapi_shop_run)
endif()
