#!/bin/sh
# The shop service, started through a record of its starts, for the reliability tests: appends
# its arguments as one line to the file SHOP_STARTS, then becomes the service SHOP_API_REAL with
# those arguments. A test that gives prowl this script as SHOP_API learns whether, and how often,
# prowl started the service. With SHOP_START_DELAY=SECONDS it sleeps that long first: a service
# slow to start.
#
#   SHOP_STARTS=FILE SHOP_API_REAL=build/examples/shop_api/shop_api recording_shop.sh ARGS...
printf '%s\n' "$*" >> "$SHOP_STARTS" || exit 3
if [ -n "${SHOP_START_DELAY:-}" ]; then sleep "$SHOP_START_DELAY"; fi
exec "$SHOP_API_REAL" "$@"
