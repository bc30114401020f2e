#!/bin/sh
# A CTest test that cannot run in this configuration: says why, adds the reason to the run's skip
# log (tests/print_skips.sh prints it at the end of the run) and exits with the skip code 77.
#   skip_test.sh SKIP_LOG TEST_NAME REASON
log=$1; name=$2; reason=$3
echo "skipped: $reason"
echo "$name: skipped: $reason" >> "$log"
exit 77
