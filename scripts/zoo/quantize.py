#!/usr/bin/python3
"""Post-training quantization of an NNEF model folder, the way shared/corpus/quantized/ was made.

- Every filter (the `filter` of conv, deconv, linear, and a variable operand of matmul) becomes
  int8 codes, symmetric per tensor: scale = max|w| / 127, codes round(w / scale) in [-127, 127],
  stored as a quantized signed 8-bit tensor file (item code 3).
- Every other variable (biases, norms' parameters, ...) stays float32 and gets no entry.
- Every tensor an operation computes (and the graph's inputs) is quantized asymmetric int8 per
  tensor over its measured range widened to include 0 (statistics of NNEF-Tools'
  `nnef_tools.execute --statistics`): scale = (max - min) / 255, zero_point = round(-128 - min /
  scale), a range narrower than 1e-6 widened to 1e-6 (as the corpus did for all-zero tensors).
  Tensors of logical or integer type are left alone.
- Every parameter is a `zero_point_linear_quantize` entry of graph.quant; `scale` is written as a
  float32 value (every consumer then reads the same number). graph.nnef is copied unchanged.

usage: quantize.py FLOAT_MODEL_DIR OUT_DIR STATS_JSON
"""
import json
import os
import shutil
import sys

import numpy as np

FILTER_OPS = {'conv': ('filter',), 'deconv': ('filter',), 'linear': ('filter',), 'matmul': ('A', 'B')}
MIN_RANGE = 1e-6


class QuantizeError(Exception):
    pass


def f32(x):
    return float(np.float32(x))


def entry(name, zero_point, scale, symmetric):
    return ('"%s": zero_point_linear_quantize(zero_point = %d, scale = %r, bits = 8, signed = true, symmetric = %s);'
            % (name, zero_point, scale, 'true' if symmetric else 'false'))


def activation_params(lo, hi):
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise QuantizeError('range [%r, %r] is not finite' % (lo, hi))
    if hi - lo < MIN_RANGE:
        hi = lo + MIN_RANGE
    scale = f32((hi - lo) / 255.0)
    zero_point = int(np.clip(np.round(-128.0 - lo / scale), -128, 127))
    return zero_point, scale


def quantize_model(src, dst, stats_file):
    import nnef  # the caller puts a module on sys.path (ours or NNEF-Tools')
    try:
        graph = nnef.parse_file(os.path.join(src, 'graph.nnef'))
    except nnef.Error as e:
        raise QuantizeError('%s: %s' % (src, e))
    with open(stats_file) as f:
        stats = json.load(f)
    labels = {}
    for op in graph.operations:
        if op.name == 'variable':
            labels[op.outputs['output']] = op.attribs['label']
    filters = set()
    for op in graph.operations:
        for key in FILTER_OPS.get(op.name, ()):
            arg = op.inputs.get(key)
            if isinstance(arg, str) and arg in labels:
                filters.add(str(arg))

    if os.path.exists(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    shutil.copyfile(os.path.join(src, 'graph.nnef'), os.path.join(dst, 'graph.nnef'))
    lines = []
    # inputs, then every computed tensor in the graph's order
    computed = list(graph.inputs)
    for op in graph.operations:
        if op.name in ('variable', 'external', 'constant'):
            continue
        for value in op.outputs.values():
            for name in (value if isinstance(value, list) else [value]):
                if isinstance(name, str):
                    computed.append(str(name))
    seen = set()
    activations = 0
    for name in computed:
        if name in seen:
            continue
        seen.add(name)
        if graph.tensors[name].dtype != 'scalar':
            continue
        if name not in stats:
            raise QuantizeError('no statistics for tensor %s in %s' % (name, stats_file))
        zero_point, scale = activation_params(stats[name]['min'], stats[name]['max'])
        lines.append(entry(name, zero_point, scale, False))
        activations += 1
    for tensor, label in sorted(labels.items(), key=lambda kv: kv[1]):
        src_file = os.path.join(src, label + '.dat')
        dst_file = os.path.join(dst, label + '.dat')
        os.makedirs(os.path.dirname(dst_file), exist_ok=True)
        if tensor not in filters:
            shutil.copyfile(src_file, dst_file)
            continue
        with open(src_file, 'rb') as f:
            w = nnef.read_tensor(f).astype(np.float64)
        peak = float(np.max(np.abs(w))) if w.size else 0.0
        scale = f32(peak / 127.0) if peak > 0 else 1.0
        codes = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        with open(dst_file, 'wb') as f:
            nnef.write_tensor(f, codes, quantized=True)
        lines.append(entry(tensor, 0, scale, True))
    with open(os.path.join(dst, 'graph.quant'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return {'filters': len(filters), 'activations': activations,
            'float_variables': len(labels) - len(filters)}


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        print(json.dumps(quantize_model(*sys.argv[1:])))
    except (QuantizeError, OSError) as e:
        print('quantize.py: error: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
