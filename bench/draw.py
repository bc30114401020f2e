#!/usr/bin/env python3
"""Whole-process time of nnef-draw (docs/draw.md): the model loaded, the picture built, laid out by
Graphviz and written, against `nnef-validate` on the same model in the same run as the baseline
(the front end alone). Runs alternate between the commands so that both see the same load on the
machine; medians of the wall time and of the CPU time (user + system, the child's rusage).

  /usr/bin/python3 bench/draw.py [--runs 7] [--format svg] [--model DIR ...] [--expand-all]
                                [--baseline OTHER_BUILD [--baseline-runs N]] BUILD

The models default to the corpus's resnet50 (the graph as written) and its largest models,
densenet121 and convnext_tiny. Every run must exit 0. The target (issue 23): under 2 s whole
process for each. --baseline also runs OTHER_BUILD's nnef-draw (an earlier version) in the same
run, --baseline-runs times (default --runs; the old layout of the largest models took minutes of
wall on the loaded machine), and prints the ratio of the CPU medians."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def measure(argv):
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    proc.stderr.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit('{} exited with {}:\n{}'.format(' '.join(argv), code, err.decode(errors='replace')))
    return wall, usage.ru_utime + usage.ru_stime


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = os.environ.get('NNEF_CORPUS_DIR', os.path.join(here, '..', '..', 'shared', 'corpus'))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('build')
    p.add_argument('--runs', type=int, default=7)
    p.add_argument('--format', default='svg', choices=('dot', 'svg', 'png', 'json'))
    p.add_argument('--model', action='append')
    p.add_argument('--expand-all', action='store_true', help='draw every invocation open')
    p.add_argument('--baseline', help='another build whose nnef-draw is measured in the same run')
    p.add_argument('--baseline-runs', type=int)
    args = p.parse_args()
    models = args.model or [os.path.join(corpus, 'real', m) for m in ('resnet50', 'densenet121', 'convnext_tiny')]
    out = os.path.join(tempfile.mkdtemp(prefix='nnef-draw-bench-'), 'picture.' + args.format)
    extra = ['--expand-all'] if args.expand_all else []
    baseline_runs = args.baseline_runs if args.baseline_runs is not None else args.runs
    print('{:<16} {:>12} {:>12} {:>14} {:>13}  {:<9} {}'.format('model', 'draw wall s', 'draw cpu s', 'validate wall',
                                                              'validate cpu', 'under 2 s',
                                                              'baseline wall / cpu s, cpu ratio' if args.baseline else ''))
    for model in models:
        draw = [os.path.join(args.build, 'nnef-draw'), model] + extra + ['--format', args.format, '-o', out]
        validate = [os.path.join(args.build, 'nnef-validate'), model]
        before = [os.path.join(args.baseline, 'nnef-draw'), model] + extra + ['--format', args.format, '-o', out] if args.baseline else None
        d, v, b = [], [], []
        for k in range(args.runs):
            d.append(measure(draw))
            v.append(measure(validate))
            if before and k < baseline_runs:
                b.append(measure(before))
        dw = statistics.median(x[0] for x in d)
        dc = statistics.median(x[1] for x in d)
        vw = statistics.median(x[0] for x in v)
        vc = statistics.median(x[1] for x in v)
        tail = ''
        if b:
            bw = statistics.median(x[0] for x in b)
            bc = statistics.median(x[1] for x in b)
            tail = '{:.3f} / {:.3f}, {:.1f}x'.format(bw, bc, bc / dc if dc > 0 else float('inf'))
        print('{:<16} {:>12.3f} {:>12.3f} {:>14.3f} {:>13.3f}  {:<9} {}'.format(os.path.basename(model.rstrip('/')), dw, dc, vw,
                                                                             vc, 'yes' if dw < 2.0 else 'NO', tail))
    os.remove(out)


if __name__ == '__main__':
    main()
