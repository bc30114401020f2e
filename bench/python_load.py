#!/usr/bin/env python3
"""Benchmark: nnef.load_graph + nnef.infer_shapes in Python, this project's module against
NNEF-Tools' `nnef` module, measured pair by pair in one run (docs/python.md).

  /usr/bin/python3 bench/python_load.py --ours build/python --theirs /tmp/nnef-ref [--runs 5]

--ours and --theirs are the folders to put on PYTHONPATH for each module (ours: the build's
python/ folder; theirs: a folder holding NNEF-Tools' nnef/ package and its _nnef extension, built
as docs/python.md says). Every measurement runs in a fresh interpreter, the two modules
alternating, and reports the whole call's wall time and the process's peak resident memory
(ru_maxrss) and its growth over the interpreter with the module imported; then the same with
every operation and tensor visited after the call (what a converter does next: this module makes
the Python objects of a loaded graph when they are first asked for). Models: the synthetic
100k-operation graph (gen_flat.py --ops 100000, written to a temporary folder, loaded by its
graph.nnef file since it has no tensor files) and a corpus model with weights (squeezenet1_0)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r'''
import json, resource, sys, time
def rss():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
import nnef
base = rss()
path = sys.argv[1]
t0 = time.perf_counter()
c0 = time.process_time()
g = nnef.load_graph(path)
nnef.infer_shapes(g, custom_shapes={})
t1 = time.perf_counter()
c1 = time.process_time()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
# Then every operation and tensor visited, as a converter does (nnef_tools' NNEF reader).
seen = 0
for op in g.operations:
    seen += len(op.attribs) + len(op.inputs) + len(op.outputs)
for t in g.tensors.values():
    seen += len(t.shape or ())
t2 = time.perf_counter()
c2 = time.process_time()
assert len(g.operations) > 0 and seen > 0
print(json.dumps({'seconds': t1 - t0, 'cpu': c1 - c0, 'peak_kib': peak, 'base_kib': base,
                  'walked_seconds': t2 - t0, 'walked_cpu': c2 - c0,
                  'walked_peak_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  'operations': len(g.operations), 'module': nnef.__file__}))
'''


def measure(pythonpath, path):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run([sys.executable, '-c', CHILD, path], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False, timeout=3600)
    if out.returncode != 0:
        raise SystemExit('measurement failed ({}): {}'.format(pythonpath, out.stderr.decode(errors='replace')[-2000:]))
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--ours', default=os.path.join(here, '..', 'build', 'python'))
    p.add_argument('--theirs', required=True)
    p.add_argument('--corpus', default=os.environ.get('NNEF_CORPUS_DIR', os.path.join(here, '..', '..', 'shared',
                                                                                       'corpus')))
    p.add_argument('--runs', type=int, default=5)
    p.add_argument('--ops', type=int, default=100000)
    args = p.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        flat = os.path.join(tmp, 'flat', 'graph.nnef')
        subprocess.run([sys.executable, os.path.join(args.corpus, 'synthetic', 'gen_flat.py'), '--ops', str(args.ops),
                        '--out', flat], check=True, stdout=subprocess.DEVNULL)
        models = [('synthetic {}k ops (graph.nnef)'.format(args.ops // 1000), flat),
                  ('squeezenet1_0 with weights (folder)', os.path.join(args.corpus, 'real', 'squeezenet1_0'))]
        print('load_graph + infer_shapes, {} runs each, pairs alternating; python {}'.format(args.runs, sys.version.split()[0]))
        print('{:<38} {:>10} {:>10} {:>7}   {:>16} {:>16} {:>7}'.format(
            'model', 'ours s', 'theirs s', 'ratio', 'ours peak MiB', 'theirs peak MiB', 'ratio'))
        for label, path in models:
            ours, theirs = [], []
            for _ in range(args.runs):
                ours.append(measure(os.path.abspath(args.ours), path))
                theirs.append(measure(os.path.abspath(args.theirs), path))
            t_o = statistics.median(r['seconds'] for r in ours)
            t_t = statistics.median(r['seconds'] for r in theirs)
            m_o = statistics.median(r['peak_kib'] for r in ours) / 1024
            m_t = statistics.median(r['peak_kib'] for r in theirs) / 1024
            g_o = statistics.median(r['peak_kib'] - r['base_kib'] for r in ours) / 1024
            g_t = statistics.median(r['peak_kib'] - r['base_kib'] for r in theirs) / 1024
            print('{:<38} {:>10.4f} {:>10.4f} {:>6.2f}x   {:>16.1f} {:>16.1f} {:>6.2f}x'.format(
                label, t_o, t_t, t_t / t_o, m_o, m_t, m_t / m_o))
            print('{:<38} {:>10} {:>10} {:>7}   {:>16.1f} {:>16.1f} {:>6.2f}x  (growth over the imported module)'.format(
                '', '', '', '', g_o, g_t, g_t / g_o if g_o > 0 else float('nan')))
            c_o = statistics.median(r['cpu'] for r in ours)
            c_t = statistics.median(r['cpu'] for r in theirs)
            print('{:<38} {:>10.4f} {:>10.4f} {:>6.2f}x   (CPU seconds of the process, all threads)'.format('', c_o, c_t, c_t / c_o))
            w_o = statistics.median(r['walked_seconds'] for r in ours)
            w_t = statistics.median(r['walked_seconds'] for r in theirs)
            wc_o = statistics.median(r['walked_cpu'] for r in ours)
            wc_t = statistics.median(r['walked_cpu'] for r in theirs)
            wm_o = statistics.median(r['walked_peak_kib'] for r in ours) / 1024
            wm_t = statistics.median(r['walked_peak_kib'] for r in theirs) / 1024
            print('{:<38} {:>10.4f} {:>10.4f} {:>6.2f}x   {:>16.1f} {:>16.1f} {:>6.2f}x  (then every operation and tensor '
                  'visited)'.format('', w_o, w_t, w_t / w_o, wm_o, wm_t, wm_t / wm_o))
            print('{:<38} {:>10.4f} {:>10.4f} {:>6.2f}x   (CPU seconds, visited too)'.format('', wc_o, wc_t, wc_t / wc_o))
            print('{:<38} operations: ours {}, theirs {}'.format('', ours[0]['operations'], theirs[0]['operations']))


if __name__ == '__main__':
    main()
