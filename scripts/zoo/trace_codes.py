#!/usr/bin/python3
"""Finds the first tensor of a quantized model whose codes differ between two ways of running it.

Runs the model twice on one input, each time dumping every activation that has a graph.quant
entry (nnef-run --dump, in batches), turns the dumped reals into codes on the entry's grid and
compares them tensor by tensor in the graph's order. The two sides are chosen from

  float64   nnef-run --float64            (the specification's codes: exact sums, exact rounding)
  float32   nnef-run                      (the default float32 executor)
  quant     nnef-run --quant-like nnef-tools (NNEF-Tools' float32 rounding)
  pro-int   nnef-run --via tosa --profile pro-int (the PRO-INT lowering on the TOSA interpreter)

Default: float64 against pro-int. Printed per tensor with a difference (every tensor with
--all): its position, name, operation and source line, "differing / all codes (largest
difference)", and whether it is an ORIGIN (its compared operands, looking through tensors without
an entry, all agree: the difference arises in this operation) or which differing operands it
reads; for the first origin of each operation its first differing items (index, both codes).
At the end, the origins by operation. A tensor the TOSA graph does not keep (folded into other
operators: nnef-run says `dump-not-lowered`) is skipped and said so.

usage: /usr/bin/python3 scripts/zoo/trace_codes.py MODEL [--build DIR] [--input X ...] [--a SIDE] [--b SIDE]
           [--batch N] [--stop N] [--all] [--work DIR] [--only NAME,...]
MODEL is a model folder (or graph.nnef) with graph.quant; the input defaults to
MODEL/reference/input.dat (the zoo's layout), else --input as nnef-run takes it, once per input. Exit status 0 when every compared code agrees, 1 when
some differ, 2 on usage or when a run fails (its first error line is printed).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402  (read: a tensor file through the project's nnef module)

SIDES = {
    'float64': ['--float64'],
    'float32': [],
    'quant': ['--quant-like', 'nnef-tools'],
    'pro-int': ['--via', 'tosa', '--profile', 'pro-int'],
}

ENTRY = re.compile(r'^\s*"([^"]+)"\s*:\s*([a-z_]+)\s*\((.*)\)\s*;\s*$')
ARG = re.compile(r'([a-z_]+)\s*=\s*([-+0-9.eE]+|true|false)')
ASSIGN = re.compile(r'^\s*([A-Za-z_][A-Za-z_0-9]*)\s*=\s*([A-Za-z_][A-Za-z_0-9]*)\s*(<[^>]*>)?\s*\(')


class Grid:
    """A per-tensor linear grid: real = (code - zero_point) * scale."""

    def __init__(self, zero_point, scale):
        self.zero_point, self.scale = zero_point, scale

    def codes(self, reals):
        import numpy as np
        return np.floor(np.asarray(reals, np.float64) / self.scale + self.zero_point + 0.5)


def grid_of(fragment, args, where):
    a = {k: v for k, v in ARG.findall(args)}
    if fragment == 'zero_point_linear_quantize':
        return Grid(float(a['zero_point']), float(a['scale']))
    if fragment == 'linear_quantize':
        lo, hi, bits = float(a['min']), float(a['max']), int(a['bits'])
        scale = (hi - lo) / (2 ** bits - 1)
        return Grid(-lo / scale, scale)
    raise ValueError('%s: entry %s is not a per-tensor linear grid' % (where, fragment))


def load_grids(model):
    """The graph.quant entries, in the file's order, as {name: Grid} (an ordered dict)."""
    path = os.path.join(model, 'graph.quant')
    grids = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            m = ENTRY.match(line)
            if not m:
                raise ValueError('%s:%d:1: error: cannot read this graph.quant line' % (path, n))
            grids[m.group(1)] = grid_of(m.group(2), m.group(3), '%s:%d:1' % (path, n))
    return grids


def load_operations(model):
    """The graph's operations in order: {tensor: (operation, line, [tensors it reads])} and the
    list of computed tensors (one result per operation, as the zoo's graphs have)."""
    ops, order = {}, []
    with open(os.path.join(model, 'graph.nnef')) as f:
        text = f.read()
    body = text.index('{', text.index('\ngraph ')) + 1
    line = text.count('\n', 0, body) + 1
    for stmt in text[body:].split(';'):
        m = ASSIGN.match(stmt.lstrip('\n'))
        start = line + len(stmt) - len(stmt.lstrip('\n'))
        line += stmt.count('\n')
        if not m:
            continue
        args = re.sub(r"'[^']*'", '', stmt[m.end():])  # strings (labels)
        args = re.sub(r'\b[a-z_]+\s*=', '', args)  # attribute names
        reads = [t for t in re.findall(r'\b[A-Za-z_][A-Za-z_0-9]*\b', args) if t not in ('true', 'false')]
        ops[m.group(1)] = (m.group(2), start, reads)
        order.append(m.group(1))
    return ops, order


def sources(name, ops, compared):
    """The compared tensors that `name` is computed from: its operands, looking through tensors
    that are not compared (no entry, or not kept by the TOSA graph); weights are alike on both sides."""
    found, stack, seen = set(), list(ops[name][2]) if name in ops else [], set()
    while stack:
        t = stack.pop()
        if t in seen:
            continue
        seen.add(t)
        if t in compared:
            found.add(t)
        elif t in ops and ops[t][0] not in ('variable', 'constant'):
            stack += ops[t][2]
    return found


def run_side(side, build, model, inputs, names, out_dir):
    """Runs one side dumping `names`; returns (ok, {name: path}, names not kept, error line)."""
    cmd = [os.path.join(build, 'nnef-run'), model, '--output-dir', out_dir] + SIDES[side]
    for i in inputs:
        cmd += ['--input', i]
    pending = list(names)
    skipped = []
    while True:
        shutil.rmtree(out_dir, ignore_errors=True)
        p = subprocess.run(cmd + ['--dump', ','.join(pending)] if pending else cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        err = p.stderr.decode(errors='replace')
        if p.returncode == 0:
            return True, {n: os.path.join(out_dir, n + '.dat') for n in pending}, skipped, None
        missing = re.findall(r"tensor '([^']+)' has no value in the TOSA graph", err)
        if not missing or not set(missing) <= set(pending):
            return False, {}, skipped, check.first_error(err, '%s: exit %d' % (' '.join(cmd), p.returncode))
        skipped += missing
        pending = [n for n in pending if n not in missing]


def compare(a, b, grid):
    """(differing, all, largest difference, first differing indices, codes a, codes b)."""
    import numpy as np
    ca, cb = grid.codes(a).ravel(), grid.codes(b).ravel()
    nan_a, nan_b = np.isnan(ca), np.isnan(cb)
    differ = (ca != cb) & ~(nan_a & nan_b)
    both = ~(nan_a | nan_b)
    largest = float(np.max(np.abs(ca[both] - cb[both]))) if np.any(differ & both) else 0.0
    return int(np.count_nonzero(differ)), ca.size, largest, np.flatnonzero(differ)[:8], ca, cb


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('model')
    ap.add_argument('--build', default=os.path.join(os.path.dirname(os.path.dirname(HERE)), 'build'))
    ap.add_argument('--input', action='append', default=None,
                    help="FILE, NAME=FILE or NAME=random:SEED as nnef-run takes it, once per input "
                         "(default MODEL/reference/input.dat)")
    ap.add_argument('--a', default='float64', choices=sorted(SIDES))
    ap.add_argument('--b', default='pro-int', choices=sorted(SIDES))
    ap.add_argument('--batch', type=int, default=100, help='tensors dumped per run (disk: two runs of N tensors)')
    ap.add_argument('--stop', type=int, default=1,
                    help='stop after the batch in which N tensors differ (0: compare every tensor)')
    ap.add_argument('--all', action='store_true', help='print every compared tensor, not only differing ones')
    ap.add_argument('--only', default=None, help='compare these tensors only (comma-separated)')
    ap.add_argument('--work', default=None, help='folder for the dumps (default: a temporary one, removed)')
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(args.build, 'python'))
    if args.a == args.b:
        print('trace_codes.py: error: --a and --b are both %s' % args.a, file=sys.stderr)
        return 2
    inp = args.input or [os.path.join(args.model, 'reference', 'input.dat')]
    files = [i.split('=', 1)[-1] for i in inp if not i.split('=', 1)[-1].startswith('random:')]
    for f in [os.path.join(args.model, 'graph.nnef'), os.path.join(args.model, 'graph.quant'),
              os.path.join(args.build, 'nnef-run')] + files:
        if not os.path.exists(f):
            print('trace_codes.py: error: %s does not exist' % f, file=sys.stderr)
            return 2
    try:
        grids = load_grids(args.model)
    except (ValueError, KeyError) as e:
        print('trace_codes.py: error: %s' % e, file=sys.stderr)
        return 2
    ops, order = load_operations(args.model)
    # activations with an entry, in the graph's order (graph inputs first; variables are weights)
    inputs = [n for n in grids if n not in ops]
    names = inputs + [n for n in order if n in grids and ops[n][0] not in ('variable', 'constant')]
    if args.only:
        wanted = args.only.split(',')
        unknown = [n for n in wanted if n not in grids]
        if unknown:
            print('trace_codes.py: error: no graph.quant entry for %s' % ', '.join(unknown), file=sys.stderr)
            return 2
        names = [n for n in names if n in wanted]
    work = args.work or tempfile.mkdtemp(prefix='zoo-trace-')
    print('%s: %s against %s, %d quantized activations, input %s' % (args.model, args.a, args.b, len(names), ' '.join(inp)))
    differing, skipped_all, total_codes, total_diff = 0, [], 0, 0
    agree = {}  # compared tensor -> its codes agree
    origins = {}  # operation -> [tensors that differ while every operand agrees]
    try:
        for start in range(0, len(names), args.batch):
            batch = names[start:start + args.batch]
            dirs = {s: os.path.join(work, s) for s in (args.a, args.b)}
            ok_a, files_a, skip_a, err_a = run_side(args.a, args.build, args.model, inp, batch, dirs[args.a])
            ok_b, files_b, skip_b, err_b = run_side(args.b, args.build, args.model, inp, batch, dirs[args.b])
            for side, ok, err in ((args.a, ok_a, err_a), (args.b, ok_b, err_b)):
                if not ok:
                    print('trace_codes.py: error: the %s run failed: %s' % (side, err), file=sys.stderr)
                    return 2
            skipped_all += [n for n in batch if n in skip_a or n in skip_b]
            for i, n in enumerate(batch, start + 1):
                if n not in files_a or n not in files_b:
                    continue
                diff, count, largest, first, ca, cb = compare(check.read(files_a[n]), check.read(files_b[n]), grids[n])
                agree[n] = diff == 0
                total_codes += count
                total_diff += diff
                op, line = ops[n][:2] if n in ops else ('input', 0)
                if not diff and not args.all:
                    continue
                srcs = sorted(sources(n, ops, agree)) if n in ops else []
                off = [t for t in srcs if not agree[t]]
                where = ('' if not diff else
                         '  ORIGIN: its operands agree' if not off else
                         '  operands differ: %s' % ', '.join(off[:3] + (['...'] if len(off) > 3 else [])))
                print('%5d  %-24s %-20s graph.nnef:%-6d %d / %d codes differ (max %d)%s' %
                      (i, n, op, line, diff, count, largest, where))
                if not diff:
                    continue
                differing += 1
                if not off:
                    origins.setdefault(op, []).append(n)
                    if len(origins[op]) == 1:  # the first origin of each operation: some items
                        g = grids[n]
                        for k in first:
                            print('         item %d: %s code %d, %s code %d' % (k, args.a, ca[k], args.b, cb[k]))
                        print('         (grid: scale %.9g, zero point %g)' % (g.scale, g.zero_point))
            shutil.rmtree(dirs[args.a], ignore_errors=True)
            shutil.rmtree(dirs[args.b], ignore_errors=True)
            if args.stop and differing >= args.stop:
                print('stopped after %d of %d tensors (--stop %d)' % (min(start + args.batch, len(names)), len(names), args.stop))
                break
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    if skipped_all:
        print('not kept by the TOSA graph (not compared): %s' % ', '.join(skipped_all))
    print('%d of %d compared tensors differ; %d of %d codes' % (differing, len(agree), total_diff, total_codes))
    for op, ns in sorted(origins.items()):
        print('origins (differing while their operands agree), %s: %d (%s)' %
              (op, len(ns), ', '.join(ns[:6] + (['...'] if len(ns) > 6 else []))))
    return 1 if differing else 0


if __name__ == '__main__':
    sys.exit(main())
