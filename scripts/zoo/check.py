#!/usr/bin/python3
"""Runs every zoo model (scripts/zoo/generate.py) through every stage and writes the zoo table.

Per model, the float model M and its int8 version M_int8, each on its reference/input.dat:
  validate   nnef-validate
  tosa       nnef-to-tosa (PRO-FP; PRO-INT for int8): the TOSA operator count (tosa.const* not counted)
  mlir       mlir-opt (MLIR 22) --tosa-attach-target="profiles=pro_fp|pro_int level=8k"
             --tosa-validate=strict-op-spec-alignment on that file, as tests/unit/mlir does
  via-tosa   nnef-run --via tosa --profile pro-fp against nnef-run: relative L2 of the outputs
             (int8: against nnef-run --no-quant, the float computation that PRO-FP lowers)
  pro-int    int8 only: nnef-run --via tosa --profile pro-int --output-codes (the PRO-INT lowering
             run by the TOSA interpreter) against nnef-run --float64 --output-codes, as "differing
             codes / all (largest difference)"
  ref        nnef-run against NNEF-Tools' interpreter (reference/output.dat): relative L2
             (int8: nnef-run --quant-like nnef-tools, which reproduces that interpreter's rounding,
             --compare: in quanta of the output's grid)
  vpu        nnef-to-vpu compile (fp16; --profile pro-int for int8): tasks in the task list
  simulate   nnef-to-vpu --simulate with the input: exit status 0 = no violation
  values     fp16: relative L2 of the VPU's output against nnef-run's (and a note when nnef-run's
             output lies below fp16's smallest normal, 2^-14, where the fp16 device returns zeros,
             or above its largest value, 65504, where it overflows to infinity and NaN);
             int8: output codes against nnef-run --float64 --output-codes, as "differing codes /
             all (largest difference)"
  makespan   the simulator's makespan in cycles and its makespan / bound
Every cell is a figure or the failing tool's first error line. Each stage's wall time is recorded.
Results accumulate in OUT/check/results.json (a run on some models keeps the others' results);
the table is rewritten from all of them into docs/zoo.md (--doc).

usage: /usr/bin/python3 scripts/zoo/check.py [--zoo DIR] [--build DIR] [--models a,b] [--doc FILE]
Run it under `nice -n 15`. Exit status 0 when every stage ran (whatever its verdict), 2 on usage.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import zoo_models  # noqa: E402

FP16_SMALLEST_NORMAL = 2.0 ** -14
FP16_LARGEST = 65504.0


class Stage:
    def __init__(self, ok, cell, seconds):
        self.ok, self.cell, self.seconds = ok, cell, seconds


def first_error(text, fallback):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if 'error' in l.lower():
            return l
    return lines[0] if lines else fallback


def sh(cmd, timeout):
    t = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
        out, err, code = p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace'), p.returncode
    except subprocess.TimeoutExpired:
        out, err, code = '', 'timed out after %d s' % timeout, -1
    return code, out, err, time.time() - t


def read(path):
    import nnef
    with open(path, 'rb') as f:
        return nnef.read_tensor(f)


def rel_l2(a, b):
    import numpy as np
    a = np.asarray(a, np.float64).ravel()
    b = np.asarray(b, np.float64).ravel()
    if a.shape != b.shape:
        return None
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return float('nan')
    n = np.linalg.norm(b)
    return float(np.linalg.norm(a - b) / n) if n > 0 else float(np.linalg.norm(a - b))


def one_output(d):
    files = sorted(f for f in os.listdir(d) if f.endswith('.dat') and '.cycle' not in f) if os.path.isdir(d) else []
    return os.path.join(d, files[0]) if len(files) == 1 else None


def fmt(x):
    return 'NaN' if x != x else '%.1e' % x


class Checker:
    def __init__(self, args):
        self.a = args
        self.bin = lambda t: os.path.join(args.build, t)

    def tool(self, cmd, fallback='failed'):
        code, out, err, s = sh(cmd, self.a.timeout)
        return code, out, err, s, (None if code == 0 else first_error(err + '\n' + out, '%s: exit %d' % (fallback, code)))

    def model(self, path, int8, work):
        r = {}
        os.makedirs(work, exist_ok=True)
        inp = os.path.join(path, 'reference', 'input.dat')
        ref = os.path.join(path, 'reference', 'output.dat')
        profile = 'pro-int' if int8 else 'pro-fp'

        code, out, err, s, e = self.tool([self.bin('nnef-validate'), path])
        r['validate'] = Stage(e is None, 'valid' if e is None else e, s)

        mlir = os.path.join(work, 'model.mlir')
        # the MLIR text of the largest models (VGG-11: 0.5 GB of weights, twice that as hex) would
        # not fit the shared disk: their large constants are elided (the structure is the same)
        weights = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path) if f.endswith('.dat'))
        elide = ['--no-weights'] if weights > 300e6 else []
        code, out, err, s, e = self.tool([self.bin('nnef-to-tosa'), path, '--profile', profile, '-o', mlir] + elide)
        if e is None:
            with open(mlir) as f:
                ops = [m for m in re.findall(r'"tosa\.([a-z_0-9]+)"\(', f.read()) if not m.startswith('const')]
            r['tosa'] = Stage(True, '%d ops%s' % (len(ops), ' (weights elided: --no-weights)' if elide else ''), s)
            code, out, err, s, e = self.tool(['nice', '-n', '15', os.path.join(self.a.mlir_dir, 'mlir-opt'),
                                              '--tosa-attach-target=profiles=%s level=8k' % profile.replace('-', '_'),
                                              '--tosa-validate=strict-op-spec-alignment', mlir, '-o', '/dev/null'])
            r['mlir'] = Stage(e is None, 'valid' if e is None else e, s)
        else:
            r['tosa'] = Stage(False, e, s)
            r['mlir'] = Stage(False, 'no TOSA', 0.0)
        if os.path.exists(mlir):
            os.remove(mlir)

        run_dir = os.path.join(work, 'run')
        code, out, err, s, e = self.tool([self.bin('nnef-run'), path, '--input', inp, '--output-dir', run_dir])
        y = read(one_output(run_dir)) if e is None and one_output(run_dir) else None
        r['run'] = Stage(y is not None, 'ran' if y is not None else (e or 'no single output'), s)

        # --via tosa --profile pro-fp (a quantized model's default is PRO-INT, the pro_int stage): on an
        # int8 model the float computation with the stored codes dequantized, which is nnef-run
        # --no-quant's (graph.quant not simulated)
        y_float = y
        if int8:
            nq_dir = os.path.join(work, 'no-quant')
            code, out, err, s, e = self.tool([self.bin('nnef-run'), path, '--no-quant', '--input', inp, '--output-dir', nq_dir])
            y_float = read(one_output(nq_dir)) if e is None and one_output(nq_dir) else None
        vt_dir = os.path.join(work, 'via-tosa')
        code, out, err, s, e = self.tool([self.bin('nnef-run'), path, '--via', 'tosa', '--profile', 'pro-fp', '--input', inp,
                                          '--output-dir', vt_dir])
        if e is None and y_float is not None and one_output(vt_dir):
            d = rel_l2(read(one_output(vt_dir)), y_float)
            r['via_tosa'] = Stage(d is not None and d <= 1e-5, fmt(d) if d is not None else 'shapes differ', s)
        else:
            r['via_tosa'] = Stage(False, e or 'nnef-run failed', s)

        codes64 = None  # int8: nnef-run --float64's output codes, and that run's seconds
        if int8:
            c_dir = os.path.join(work, 'codes64')
            code, out, err, s64, e64 = self.tool([self.bin('nnef-run'), path, '--float64', '--output-codes', '--input', inp,
                                                  '--output-dir', c_dir])
            codes64 = read(one_output(c_dir)) if e64 is None and one_output(c_dir) else None
            pi_dir = os.path.join(work, 'pro-int')
            code, out, err, s, e = self.tool([self.bin('nnef-run'), path, '--via', 'tosa', '--profile', 'pro-int', '--output-codes',
                                              '--input', inp, '--output-dir', pi_dir])
            if e is None and codes64 is not None and one_output(pi_dir):
                r['pro_int'] = codes_stage(read(one_output(pi_dir)), codes64, s)
            else:
                r['pro_int'] = Stage(False, e or e64 or 'no output', s)

        if int8:
            # in quanta: nnef-run --compare's verdict (at most 2 quanta off, at most 2 % of the
            # items more than one) and figures
            code, out, err, s, e = self.tool([self.bin('nnef-run'), path, '--quant-like', 'nnef-tools', '--input', inp,
                                              '--compare', os.path.dirname(ref)])
            m = re.search(r'max (\d+) quanta off .*?, (\d+) of (\d+) items .*relative L2 error ([0-9.e+-]+|nan)', out)
            if m:
                r['ref'] = Stage(code == 0, 'max %s quanta off, %s of %s items more than one (rel L2 %s)'
                                 % (m.group(1), m.group(2), m.group(3), fmt(float(m.group(4)))), s)
            else:
                r['ref'] = Stage(False, e or first_error(out, 'no comparison'), s)
        elif y is not None:
            d = rel_l2(y, read(ref))
            r['ref'] = Stage(d is not None and d <= 1e-4, fmt(d) if d is not None else 'shapes differ', r['run'].seconds)
        else:
            r['ref'] = Stage(False, r['run'].cell, r['run'].seconds)

        tasks = os.path.join(work, 'tasks.json')
        cmd = [self.bin('nnef-to-vpu'), path, '-o', tasks, '--profile', profile]
        code, out, err, s, e = self.tool(cmd)
        if e is None:
            with open(tasks) as f:
                n = len(json.load(f).get('tasks', []))
            r['vpu'] = Stage(True, '%d tasks' % n, s)
        else:
            r['vpu'] = Stage(False, e, s)
        vpu_dir = os.path.join(work, 'vpu')
        if e is not None:
            r['simulate'] = Stage(False, 'not compiled', 0.0)
        elif int8:
            # a task list takes no --output-codes: compile again and simulate (the time is both)
            code, out, err, s, e = self.tool([self.bin('nnef-to-vpu'), path, '--profile', 'pro-int', '--simulate',
                                              '--input', inp, '--output-dir', vpu_dir, '--output-codes'])
            r['simulate'] = Stage(e is None, 'no violation' if e is None else e, s)
        else:
            code, out, err, s, e = self.tool([self.bin('nnef-to-vpu'), tasks, '--simulate', '--input', inp,
                                              '--output-dir', vpu_dir])
            r['simulate'] = Stage(e is None, 'no violation' if e is None else e, s)
        for f in (tasks, tasks[:-5] + '.bin'):
            if os.path.exists(f):
                os.remove(f)
        m = re.search(r'makespan: (\d+) cycles', out)
        b = re.search(r'makespan / bound = ([0-9.]+)', out)
        r['makespan'] = Stage(bool(m and b), '%s / %s' % (m.group(1), b.group(1)) if m and b else
                              (r['simulate'].cell if not r['simulate'].ok else 'not in the report'), 0.0)

        got = one_output(vpu_dir)
        if not r['simulate'].ok or got is None:
            r['values'] = Stage(False, 'not simulated' if not r['simulate'].ok else 'no output file', 0.0)
        elif int8:
            r['values'] = codes_stage(read(got), codes64, s64) if codes64 is not None else Stage(False, e64 or 'no output', s64)
        elif y is None:
            r['values'] = Stage(False, 'no nnef-run output', 0.0)
        else:
            import numpy as np
            d = rel_l2(read(got), y)
            peak = float(np.max(np.abs(y)))
            cell = fmt(d) if d is not None else 'shapes differ'
            small = peak < FP16_SMALLEST_NORMAL
            big = peak > FP16_LARGEST
            if small:
                cell += ' (output below fp16 range: max |y| %.1e)' % peak
            if big:
                cell += ' (output above fp16 range: max |y| %.1e)' % peak
            r['values'] = Stage(d is not None and (d <= 1e-2 or small or big), cell, 0.0)
        subprocess.run(['rm', '-rf', work])
        return r


COLUMNS = [('validate', 'validate'), ('tosa', 'TOSA'), ('mlir', 'MLIR 22 strict'), ('via_tosa', 'via tosa vs nnef-run (rel L2; int8: vs --no-quant)'),
           ('pro_int', 'int8 via tosa --profile pro-int vs nnef-run --float64 (codes)'), ('ref', 'nnef-run vs NNEF-Tools (rel L2)'), ('vpu', 'VPU compile'), ('simulate', 'simulate'),
           ('values', 'VPU values'), ('makespan', 'makespan / bound')]


def codes_stage(got, want, seconds):
    """Output codes against nnef-run --float64's: "differing / all (max difference)", ok when none differ."""
    import numpy as np
    a = np.asarray(got, np.int64).ravel()
    w = np.asarray(want, np.int64).ravel()
    if a.shape != w.shape:
        return Stage(False, 'shapes differ', seconds)
    diff = int(np.count_nonzero(a != w))
    return Stage(diff == 0, '%d / %d codes differ (max %d)' % (diff, a.size, int(np.max(np.abs(a - w)))), seconds)


def cell(st):
    # the model's folder is the row's: graph.nnef:LINE:COL says enough
    text = re.sub(r'\S*/graph\.nnef', 'graph.nnef', st['cell']).replace('|', '\\|')
    if len(text) > 300:
        text = text[:297] + '...'
    return text if st['ok'] else '**' + text + '**'


def write_doc(results, doc, build, zoo):
    order = [m.name for m in zoo_models.MODELS]
    rows, times = [], []
    for name in order:
        for variant in (name, name + '_int8'):
            if variant not in results:
                continue
            st = results[variant]['stages']
            rows.append('| %s | %s |' % (variant, ' | '.join(cell(st[k]) if k in st else '-' for k, _ in COLUMNS)))
            times.append('| %s | %s | %.0f |' % (variant, ' | '.join('%.1f' % st[k]['seconds'] if k in st else '-' for k, _ in COLUMNS
                                                                     if k not in ('makespan',)),
                                                  sum(v['seconds'] for v in st.values())))
    missing = [m.name for m in zoo_models.MODELS if m.name not in results]
    with open(os.path.join(HERE, 'zoo_header.md')) as f:
        header = f.read()
    with open(doc, 'w') as f:
        f.write(header)
        f.write('\n## The table\n\n')
        f.write('| model | %s |\n|%s\n' % (' | '.join(t for _, t in COLUMNS), '---|' * (len(COLUMNS) + 1)))
        f.write('\n'.join(rows) + '\n')
        # how many rows pass each column, float and int8 apart
        for label, int8 in (('float', False), ('int8', True)):
            names = [v for v in results if v.endswith('_int8') == int8]
            f.write('\n%s: %d models; passing per column: %s.\n' % (label, len(names), ', '.join(
                '%s %d' % (title, sum(1 for v in names if results[v]['stages'].get(k, {}).get('ok')))
                for k, title in COLUMNS if any(k in results[v]['stages'] for v in names))))
        if missing:
            f.write('\nNot in the table (not generated: see "Generation" above): %s.\n' % ', '.join(missing))
        f.write('\n## Seconds per stage (wall, 2 loaded cores, tools under nice)\n\n')
        f.write('| model | %s | total |\n|%s\n' % (' | '.join(t for k, t in COLUMNS if k != 'makespan'), '---|' * (len(COLUMNS) + 1)))
        f.write('\n'.join(times) + '\n')
        footer = os.path.join(HERE, 'zoo_footer.md')
        if os.path.exists(footer):
            with open(footer) as g:
                f.write('\n' + g.read())


def load(results_file):
    if not os.path.exists(results_file):
        return {}
    with open(results_file) as f:
        return json.load(f)


def save(results_file, variant, entry):
    """Adds one model's results to the file, under a lock (runs on other models may be writing)
    and whole or not at all (a full disk); all results."""
    import fcntl
    with open(results_file + '.lock', 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = load(results_file)
        results[variant] = entry
        with open(results_file + '.tmp', 'w') as f:
            json.dump(results, f, indent=1)
        os.replace(results_file + '.tmp', results_file)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--zoo', default=os.environ.get('NNEF_ZOO_DIR') or os.path.join(os.path.dirname(ROOT), 'zoo-models'))
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--mlir-dir', default=os.environ.get('NNEF_MLIR_DIR', '/usr/lib/llvm-22/bin'))
    ap.add_argument('--models', default=None, help='comma-separated (default: every generated model)')
    ap.add_argument('--doc', default=os.path.join(ROOT, 'docs', 'zoo.md'))
    ap.add_argument('--variant', choices=('both', 'fp', 'int8'), default='both', help='which models of each name')
    ap.add_argument('--timeout', type=int, default=1800, help='seconds per tool run')
    ap.add_argument('--render-only', action='store_true',
                    help='write --doc from the recorded results without running anything')
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(args.build, 'python'))
    for t in ('nnef-validate', 'nnef-to-tosa', 'nnef-run', 'nnef-to-vpu'):
        if not os.access(os.path.join(args.build, t), os.X_OK):
            print('check.py: error: no %s in %s (build first)' % (t, args.build), file=sys.stderr)
            return 2
    names = args.models.split(',') if args.models else [m.name for m in zoo_models.MODELS]
    unknown = [n for n in names if n not in zoo_models.BY_NAME]
    if unknown:
        print('check.py: error: unknown model(s) %s' % ', '.join(unknown), file=sys.stderr)
        return 2
    state = os.path.join(args.zoo, 'check')
    os.makedirs(state, exist_ok=True)
    results_file = os.path.join(state, 'results.json')
    if args.render_only:
        write_doc(load(results_file), args.doc, args.build, args.zoo)
        return 0
    commit = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'], capture_output=True,
                            text=True).stdout.strip() or 'unknown'
    results = load(results_file)
    checker = Checker(args)
    for name in names:
        for variant, int8 in ((name, False), (name + '_int8', True)):
            if args.variant != 'both' and int8 != (args.variant == 'int8'):
                continue
            path = os.path.join(args.zoo, variant)
            if not os.path.exists(os.path.join(path, 'reference', 'output.dat')):
                print('%s: not generated (no %s/reference/output.dat)' % (variant, path))
                continue
            t = time.time()
            stages = checker.model(path, int8, os.path.join(state, 'work-' + variant))
            results = save(results_file, variant, {'stages': {k: vars(v) for k, v in stages.items()},
                                                   'checked': time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
                                                   'commit': commit})
            print('%s (%.0f s): %s' % (variant, time.time() - t, '; '.join('%s %s' % (k, v.cell) for k, v in stages.items())))
            sys.stdout.flush()
            write_doc(results, args.doc, args.build, args.zoo)
    write_doc(load(results_file), args.doc, args.build, args.zoo)
    return 0


if __name__ == '__main__':
    sys.exit(main())
