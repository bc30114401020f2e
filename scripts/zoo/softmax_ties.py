#!/usr/bin/python3
"""Measures the PRO-INT softmax of a quantized model against the exact softmax, in context.

For every softmax of MODEL with graph.quant entries on its input and result, runs the model once
through the PRO-INT lowering on the TOSA interpreter (nnef-run --via tosa --profile pro-int
--dump), and from the interpreter's own input codes computes
  - the exact softmax (float64) and its codes on the result's grid,
  - the integer form of docs/tosa-lowering.md (softmax): e = round(2^15 exp(d scale)), d = code -
    max(code), its sum s, p 2^(15+b) = INTDIV(e 2^15, s) 2^b + INTDIV(r 2^b, s), one rounding to
    the result's grid (the RESCALE's multiplier taken in double),
and prints per softmax: the interpreter's codes against the exact ones ("differing / all"), against
the emulated integer form (0 when the interpreter computes what the documentation says), the
largest distance between the integer form's real and the exact one (in steps of the result's
grid), and how far from a tie between two codes the farthest differing item's exact real lies.
Every differing item within that error of a tie is a rounding of the integer form, not a bug.

usage: /usr/bin/python3 scripts/zoo/softmax_ties.py MODEL [--build DIR] [--input X ...]
Exit status 0 when the interpreter equals the emulation and every differing code lies within the
integer form's error of a tie, 1 otherwise, 2 on usage or when the run fails.
"""
import argparse
import math
import os
import re
import sys
import tempfile
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402
import trace_codes  # noqa: E402  (grids, the graph's operations, runs)

SOFTMAX = re.compile(r'^\s*(\w+)\s*=\s*softmax\s*\(\s*(\w+)\s*(?:,\s*axes\s*=\s*\[([-0-9, ]*)\])?\s*\)', re.M)


def integer_softmax(codes, axes, scale_x, scale_y):
    """The integer form's real p / scale_y (in steps of the result's grid) for i8 input codes, and
    e / s exactly (the same in steps: the error of e's 16 bits alone, without the truncations)."""
    import numpy as np
    c = np.asarray(codes, np.int64)
    d = c - c.max(axis=axes, keepdims=True)
    table = np.array([math.floor(math.ldexp(math.exp(i * scale_x), 15) + 0.5) for i in range(-255, 1)], np.int64)
    e = table[d + 255]
    s = e.sum(axis=axes, keepdims=True)
    count = int(np.prod([c.shape[a] for a in axes]))
    b = int(math.floor(math.log2(2.0 ** 31 / (count * 2.0 ** 15)))) - 1
    q1 = (e * 32768) // s
    q2 = ((e * 32768 - q1 * s) * 2 ** b) // s
    return (q1 * 2 ** b + q2) * (2.0 ** -(15 + b) / scale_y), e / s / scale_y


def main():
    import numpy as np
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('model')
    ap.add_argument('--build', default=os.path.join(os.path.dirname(os.path.dirname(HERE)), 'build'))
    ap.add_argument('--input', action='append', default=None,
                    help='FILE, NAME=FILE or NAME=random:SEED, once per input (default MODEL/reference/input.dat)')
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    sys.path.insert(0, os.path.join(args.build, 'python'))
    graph = os.path.join(args.model, 'graph.nnef')
    if not os.path.exists(graph) or not os.path.exists(os.path.join(args.model, 'graph.quant')):
        print('softmax_ties.py: error: %s has no graph.nnef and graph.quant' % args.model, file=sys.stderr)
        return 2
    try:
        grids = trace_codes.load_grids(args.model)
    except (ValueError, KeyError) as e:
        print('softmax_ties.py: error: %s' % e, file=sys.stderr)
        return 2
    with open(graph) as f:
        text = f.read()
    found = [(m.group(1), m.group(2), m.group(3), text.count('\n', 0, m.start()) + 1) for m in SOFTMAX.finditer(text)]
    pairs = []
    for y, x, axes, line in found:
        if x not in grids or y not in grids:
            print('%s:%d: softmax %s: its input or result has no graph.quant entry; not measured' % (graph, line, y))
        elif any(g.zero_point != math.floor(g.zero_point) for g in (grids[x], grids[y])):
            print('%s:%d: softmax %s: a zero point between codes; not measured' % (graph, line, y))
        else:
            pairs.append((y, x, [int(a) for a in axes.split(',')] if axes else [1], line))
    if not pairs:
        print('softmax_ties.py: error: no softmax with graph.quant entries on its input and result in %s' % graph,
              file=sys.stderr)
        return 2
    inp = args.input or [os.path.join(args.model, 'reference', 'input.dat')]
    work = tempfile.mkdtemp(prefix='zoo-softmax-')
    try:
        names = sorted({n for y, x, _, _ in pairs for n in (x, y)})
        ok, files, skipped, err = trace_codes.run_side('pro-int', args.build, args.model, inp, names, work)
        if not ok:
            print('softmax_ties.py: error: the pro-int run failed: %s' % err, file=sys.stderr)
            return 2
        if skipped:
            print('softmax_ties.py: error: the TOSA graph does not keep %s' % ', '.join(skipped), file=sys.stderr)
            return 2
        total = total_off = emulation_off = 0
        worst_err = worst_tie = worst_e = 0.0
        for y, x, axes, line in pairs:
            gx, gy = grids[x], grids[y]
            cx, cy = gx.codes(check.read(files[x])), gy.codes(check.read(files[y]))
            axes = tuple(a % cx.ndim for a in axes)
            xr = (cx - gx.zero_point) * gx.scale
            ex = np.exp(xr - xr.max(axis=axes, keepdims=True))
            exact = ex / ex.sum(axis=axes, keepdims=True) / gy.scale  # steps of the result's grid
            lowering, rounded_e = integer_softmax(cx, axes, gx.scale, gy.scale)
            want = np.clip(np.floor(exact + gy.zero_point + 0.5), -128, 127)
            emulated = np.clip(np.floor(lowering + gy.zero_point + 0.5), -128, 127)
            off = want != cy
            tie = np.abs(exact - np.floor(exact) - 0.5)
            err = float(np.max(np.abs(lowering - exact)))
            worst_e = max(worst_e, float(np.max(np.abs(rounded_e - exact))))
            far = float(tie[off].max()) if off.any() else 0.0
            print('%-12s graph.nnef:%-6d %d items per softmax: %d / %d codes differ from the exact softmax of its '
                  'input codes, %d from the integer form; error at most %.4f steps; differing items within %.4f '
                  'of a tie' % (y, line, int(np.prod([cx.shape[a] for a in axes])), int(off.sum()), off.size,
                                int((emulated != cy).sum()), err, far))
            total += off.size
            total_off += int(off.sum())
            emulation_off += int((emulated != cy).sum())
            worst_err, worst_tie = max(worst_err, err), max(worst_tie, far)
        print('all %d softmaxes: %d / %d codes differ from the exact softmax, %d from the integer form; error at most '
              '%.4f steps (e\'s 16 bits alone: %.4f); every differing item within %.4f of a tie' %
              (len(pairs), total_off, total, emulation_off, worst_err, worst_e, worst_tie))
        return 0 if emulation_off == 0 and worst_tie <= worst_err else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
