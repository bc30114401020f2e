#!/usr/bin/python3
"""The nnef-draw HTML page (docs/draw.md, Speed of the page): for each model, the whole process of
`nnef-draw MODEL -o page.html` (wall time, median of --runs), the page's size, and the first render
in headless Chromium (the time page.js reports from its start to the drawn graph, median of
--renders loads; tests/browser/cdp.py drives the browser with the network off).

  /usr/bin/python3 bench/draw_page.py [--runs 5] [--renders 3] [--lowering] [--model DIR ...] BUILD

The models default to the corpus's resnet50 (as written) and its largest models, densenet121 and
convnext_tiny. The target of issue 23: the page written in well under 2 s."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'tests', 'browser'))
import cdp  # noqa: E402


def write_page(argv):
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit('{} exited with {}:\n{}'.format(' '.join(argv), proc.returncode, proc.stderr.decode(errors='replace')))
    return wall


def main():
    corpus = os.environ.get('NNEF_CORPUS_DIR', os.path.join(here, '..', '..', 'shared', 'corpus'))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('build')
    p.add_argument('--runs', type=int, default=5)
    p.add_argument('--renders', type=int, default=3)
    p.add_argument('--lowering', action='store_true', help='pages with the TOSA graph and the VPU schedule')
    p.add_argument('--model', action='append')
    p.add_argument('--chromium', default='/usr/bin/chromium')
    args = p.parse_args()
    models = args.model or [os.path.join(corpus, 'real', m) for m in ('resnet50', 'densenet121', 'convnext_tiny')]
    folder = tempfile.mkdtemp(prefix='nnef-draw-page-bench-')
    print('{:<16} {:>13} {:>10} {:>17}  {}'.format('model', 'write wall s', 'page MB', 'first render ms', 'under 2 s'))
    browser = cdp.Browser(args.chromium) if os.path.exists(args.chromium) else None
    try:
        for model in models:
            page = os.path.join(folder, os.path.basename(model.rstrip('/')) + '.html')
            argv = [os.path.join(args.build, 'nnef-draw'), model, '-o', page] + (['--lowering'] if args.lowering else [])
            wall = statistics.median(write_page(argv) for _ in range(args.runs))
            render = '(no chromium)'
            if browser:
                times = []
                for _ in range(args.renders):
                    browser.open('file://' + page)
                    times.append(float(browser.wait_for("document.body.getAttribute('data-ready')", timeout=600)))
                render = '{:.0f}'.format(statistics.median(times))
            print('{:<16} {:>13.3f} {:>10.2f} {:>17}  {}'.format(os.path.basename(model.rstrip('/')), wall,
                                                                os.path.getsize(page) / 1e6, render,
                                                                'yes' if wall < 2.0 else 'NO'))
            os.remove(page)
    finally:
        if browser:
            browser.close()
        os.rmdir(folder)


if __name__ == '__main__':
    main()
