#!/bin/sh
# Run by CTest after the tests (CTEST_CUSTOM_POST_TEST, written by tests/CMakeLists.txt): prints
# every skip of the run, "<test>: skipped: why" or "<test>: partly skipped: why", from the skip log
# the tests write (tests/common/skip.hpp), so that a CI log shows them although CTest hides the
# output of tests that passed or were skipped. Always succeeds (a failing post-test fails CTest).
log=${1:?usage: print_skips.sh SKIP_LOG}
if [ -s "$log" ]; then
    echo "Skips of this run, with their reasons ($log):"
    sort "$log" | sed 's/^/  /'
else
    echo "No test skipped anything ($log is empty)."
fi
exit 0
