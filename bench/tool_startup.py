#!/usr/bin/env python3
"""Whole-process start-up of the command-line tools on one model: `nnef-validate MODEL` and
`nnef-info MODEL`, each build's binary run in turn (builds alternating, so both see the same load
on the machine), medians of the wall time and of the CPU time (user + system, from the process's
rusage: microseconds, where /usr/bin/time rounds to 10 ms).

  /usr/bin/python3 bench/tool_startup.py [--runs 21] [--model DIR] BUILD [BUILD ...]

Each BUILD is a build folder holding nnef-validate and nnef-info (e.g. a checkout's build/ before
and after a change). The model defaults to the corpus's squeezenet1_0 (26 tensor files). Every
run's exit status must be 0 and its output must be the same for every build, or the script stops
with the difference."""
import argparse
import os
import statistics
import subprocess
import sys
import time

TOOLS = ('nnef-validate', 'nnef-info')


def measure(argv):
    """One run: its output (stdout then stderr, merged), exit status, wall seconds and CPU seconds
    (the child's rusage, reaped with wait4)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read()
    proc.stdout.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return out, proc.returncode, wall, usage.ru_utime + usage.ru_stime


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = os.environ.get('NNEF_CORPUS_DIR', os.path.join(here, '..', '..', 'shared', 'corpus'))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('builds', nargs='+')
    p.add_argument('--model', default=os.path.join(corpus, 'real', 'squeezenet1_0'))
    p.add_argument('--runs', type=int, default=21)
    args = p.parse_args()
    for build in args.builds:
        for tool in TOOLS:
            if not os.access(os.path.join(build, tool), os.X_OK):
                raise SystemExit('no {} in {}'.format(tool, build))
    print('{} on {}: whole process, median of {} runs, builds alternating'.format(
        ' and '.join(TOOLS), os.path.basename(os.path.normpath(args.model)), args.runs))
    print('{:<14} {:<40} {:>10} {:>10}'.format('tool', 'build', 'wall ms', 'CPU ms'))
    for tool in TOOLS:
        walls = {b: [] for b in args.builds}
        cpus = {b: [] for b in args.builds}
        outputs = {}
        for _ in range(args.runs):
            for build in args.builds:
                out, code, wall, cpu = measure([os.path.join(build, tool), args.model])
                if code != 0:
                    raise SystemExit('{} {} exited with {}:\n{}'.format(build, tool, code, out.decode(errors='replace')))
                outputs.setdefault(build, out)
                walls[build].append(wall)
                cpus[build].append(cpu)
        first = outputs[args.builds[0]]
        for build in args.builds[1:]:
            if outputs[build] != first:
                raise SystemExit('{} output differs between {} and {}'.format(tool, args.builds[0], build))
        for build in args.builds:
            print('{:<14} {:<40} {:>10.2f} {:>10.2f}'.format(tool, build, statistics.median(walls[build]) * 1e3,
                                                            statistics.median(cpus[build]) * 1e3))
    return 0


if __name__ == '__main__':
    sys.exit(main())
