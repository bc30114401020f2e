#!/usr/bin/python3
"""Makes the model zoo of issue 21 the way shared/corpus/real and quantized/ were made.

For each torchvision architecture (random weights: torch.manual_seed(0), eval mode, batch 1):
  1. torch.onnx.export, opset 13, constant folding            -> WORK/<name>.onnx
  2. NNEF-Tools' converter (python -m nnef_tools.convert)      -> OUT/<name>/graph.nnef + *.dat
  3. NNEF-Tools' interpreter (python -m nnef_tools.execute) on an N(0,1) input (numpy seed 0):
     OUT/<name>/reference/{input,output}.dat, and the activation statistics (--statistics)
  4. post-training quantization (quantize.py): OUT/<name>_int8/ (graph.nnef unchanged, graph.quant,
     filters as int8 codes), and its reference from NNEF-Tools' interpreter on the same input.
The PyTorch output is kept too (reference/torch_output.dat): the converter's faithfulness shows
in its distance to output.dat (printed, and written to OUT/<name>/reference/generate.json).

Weights do not go into git: OUT is outside the repository (default: ../zoo-models next to the
repository; --out). NNEF-Tools comes from its source (--nnef-tools, the nnef_tools-pyproject
folder); its `nnef` module is --nnef-module: NNEF-Tools' own module, built as docs/python.md says
(default $NNEF_TOOLS_MODULE, else /tmp/nnef-ref). This project's build/python converts the same but
is not enough for NNEF-Tools' interpreter, which imports the private `nnef.shapes._set_shape`.

usage: /usr/bin/python3 scripts/zoo/generate.py [--out DIR] [--models a,b,...] [--force]
Run it under `nice -n 15`. A model whose step fails is reported with the step's last error line
and skipped; the exit status is 1 when any model failed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_models  # noqa: E402


def run(cmd, env, log, stdin=None):
    """Runs cmd, appending its output to log; returns (ok, last non-empty output line)."""
    with open(log, 'ab') as out:
        out.write(('$ ' + ' '.join(cmd) + '\n').encode())
        out.flush()
        p = subprocess.run(cmd, env=env, stdin=stdin, stdout=out, stderr=subprocess.STDOUT)
    with open(log, 'rb') as f:
        lines = [l for l in f.read().decode(errors='replace').splitlines() if l.strip()]
    return p.returncode == 0, (lines[-1] if lines else '')


def rel_l2(a, b):
    import numpy as np
    a = a.astype(np.float64).ravel()
    b = b.astype(np.float64).ravel()
    d = np.linalg.norm(a - b)
    n = np.linalg.norm(b)
    return float(d / n) if n > 0 else float(d)


def primitive_hard_activations(model):
    """Replaces nn.Hardsigmoid and nn.Hardswish by the same functions written with primitives
    (clamp(x + 3, 0, 6) * (1/6), times x): opset 13 exports them as ONNX HardSigmoid, which
    NNEF-Tools' converter does not map ("Conversion of operator 'HardSigmoid' is not implemented").
    Returns how many modules were replaced."""
    import torch

    class HardSigmoid(torch.nn.Module):
        def forward(self, x):
            return torch.clamp(x + 3.0, 0.0, 6.0) * (1.0 / 6.0)

    class HardSwish(HardSigmoid):
        def forward(self, x):
            return x * super().forward(x)

    count = 0
    for parent in list(model.modules()):
        for key, child in list(parent.named_children()):
            kind = {torch.nn.Hardsigmoid: HardSigmoid, torch.nn.Hardswish: HardSwish}.get(type(child))
            if kind:
                setattr(parent, key, kind())
                count += 1
    return count


def static_shufflenet():
    """ShuffleNet v2's channel split and shuffle with constant sizes. torchvision writes them with
    x.chunk and x.size(), which torch 1.13 exports as Shape/Gather/Slice computations; NNEF-Tools'
    converter refuses those tensors ("dynamic shape") and would fold them only through onnxsim,
    which Debian does not package. The functions are the same (batch 1, static input size)."""
    import torch
    import torchvision.models.shufflenetv2 as shufflenet

    def channel_shuffle(x, groups):
        b, c, h, w = [int(d) for d in x.shape]
        return x.reshape(b, groups, c // groups, h, w).transpose(1, 2).reshape(b, c, h, w)

    def forward(self, x):
        if self.stride == 1:
            half = int(x.shape[1]) // 2
            # the end written out: x[:, half:] exports as Slice to INT64_MAX, which the converter
            # writes as end = 2147483647, and NNEF's slice takes ends in (-extent, extent] only
            out = torch.cat((x[:, :half], self.branch2(x[:, half:2 * half])), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)

    shufflenet.InvertedResidual.forward = forward


def export_onnx(spec, path):
    import numpy as np
    import torch
    torch.manual_seed(0)
    model = spec.build().eval()
    primitive_hard_activations(model)
    for layer in model.modules():
        # torchvision zero-initializes ViT's classifier (heads.head): its output would be 0 for
        # every input. Such a layer gets nn.Linear's own random initialization instead.
        if isinstance(layer, torch.nn.Linear) and not bool(layer.weight.detach().any()):
            layer.reset_parameters()
    if spec.name.startswith('shufflenet'):
        static_shufflenet()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, spec.size, spec.size)).astype(np.float32)
    with torch.no_grad():
        y = model(torch.from_numpy(x)).numpy()
    # outside no_grad: there, nn.MultiheadAttention (ViT) takes its fused fast path,
    # aten::_native_multi_head_attention, which has no ONNX export
    torch.onnx.export(model, torch.from_numpy(x), path, opset_version=13, do_constant_folding=True,
                      input_names=['input'], output_names=['output'])
    return x, y


def nnef_tools_reference(model, work, env, log, stats=None):
    """NNEF-Tools' interpreter on model with model/reference/input.dat piped in: writes its one output
    to model/reference/output.dat and returns it, or returns None and the error line."""
    import nnef
    raw = os.path.join(work, os.path.basename(model) + '.out')
    subprocess.run(['rm', '-rf', raw])
    os.makedirs(raw)
    cmd = [sys.executable, '-m', 'nnef_tools.execute', model, '--format', 'nnef', '--output-path', raw]
    # fragments the converter defined (convnext's erf): the interpreter has no kernel for them and
    # runs their bodies when told to decompose them
    with open(os.path.join(model, 'graph.nnef')) as f:
        fragments = re.findall(r'^\s*fragment\s+(\w+)', f.read(), re.M)
    if fragments:
        cmd += ['--decompose'] + fragments
    if stats:
        cmd += ['--statistics', stats]
    with open(os.path.join(model, 'reference', 'input.dat'), 'rb') as f:
        ok, last = run(cmd, env, log, stdin=f)
    outs = sorted(os.listdir(raw))
    if not ok or len(outs) != 1:
        return None, last if not ok else 'outputs %s, not one' % outs
    dest = os.path.join(model, 'reference', 'output.dat')
    os.replace(os.path.join(raw, outs[0]), dest)
    with open(dest, 'rb') as f:
        return nnef.read_tensor(f), None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--out', default=os.path.join(os.path.dirname(ROOT), 'zoo-models'))
    ap.add_argument('--models', default=','.join(m.name for m in zoo_models.MODELS),
                    help='comma-separated names (default: all, smallest first)')
    ap.add_argument('--nnef-tools', default='/tmp/nnef-tools-src/nnef_tools-pyproject')
    ap.add_argument('--nnef-module', default=os.environ.get('NNEF_TOOLS_MODULE', '/tmp/nnef-ref'),
                    help="folder holding NNEF-Tools' nnef package and its _nnef extension")
    ap.add_argument('--force', action='store_true', help='remake models that exist')
    ap.add_argument('--no-int8', action='store_true')
    args = ap.parse_args()

    names = [n for n in args.models.split(',') if n]
    unknown = [n for n in names if n not in zoo_models.BY_NAME]
    if unknown:
        print('generate.py: error: unknown model(s) %s; known: %s'
              % (', '.join(unknown), ', '.join(zoo_models.BY_NAME)), file=sys.stderr)
        return 2
    for p in (args.nnef_tools, args.nnef_module):
        if not os.path.isdir(p):
            print('generate.py: error: no folder %s' % p, file=sys.stderr)
            return 2
    sys.path.insert(0, args.nnef_module)
    import numpy as np
    import nnef
    import quantize

    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join([args.nnef_module, args.nnef_tools, env.get('PYTHONPATH', '')])
    out = os.path.abspath(args.out)
    work = os.path.join(out, 'work')
    os.makedirs(work, exist_ok=True)
    failed = []
    for name in names:
        spec = zoo_models.BY_NAME[name]
        fp = os.path.join(out, name)
        q8 = os.path.join(out, name + '_int8')
        log = os.path.join(work, name + '.log')
        done = os.path.exists(os.path.join(fp, 'reference', 'generate.json'))
        if done and not args.force and (args.no_int8 or os.path.exists(os.path.join(q8, 'reference', 'output.dat'))):
            print('%s: exists (--force remakes it)' % name)
            continue
        if os.path.exists(log):
            os.remove(log)
        times = {}
        t = time.time()
        onnx_file = os.path.join(work, name + '.onnx')
        try:
            x, y = export_onnx(spec, onnx_file)
        except Exception as e:  # the exporter's refusal, named
            failed.append(name)
            print('%s: torch.onnx.export failed: %s' % (name, str(e).splitlines()[0] if str(e) else type(e).__name__))
            continue
        times['export'] = time.time() - t

        t = time.time()
        subprocess.run(['rm', '-rf', fp])
        convert = [sys.executable, '-m', 'nnef_tools.convert', '--input-format', 'onnx', '--output-format', 'nnef',
                   '--input-model', onnx_file, '--output-model', fp]
        ok, last = run(convert, env, log)
        if not ok and '--fold-constants' in last:
            # shape computations the converter calls dynamic (ViT, Swin): folded, then again
            import onnx
            import fold_shapes
            folded = onnx.load(onnx_file)
            try:
                fold_shapes.fold(folded)
                if spec.name.startswith('swin'):
                    # its window arithmetic slices to INT64_MAX (see fold_shapes.clamp_slice_ends)
                    fold_shapes.clamp_slice_ends(folded)
                onnx.save(folded, onnx_file)
                subprocess.run(['rm', '-rf', fp])
                ok, last = run(convert, env, log)
            except ValueError as e:
                last = 'fold_shapes.py: %s' % e
        times['convert'] = time.time() - t
        if not ok or not os.path.exists(os.path.join(fp, 'graph.nnef')):
            failed.append(name)
            print('%s: nnef_tools.convert failed: %s (log %s)' % (name, last, log))
            continue
        ref = os.path.join(fp, 'reference')
        os.makedirs(ref, exist_ok=True)
        with open(os.path.join(ref, 'input.dat'), 'wb') as f:
            nnef.write_tensor(f, x)
        with open(os.path.join(ref, 'torch_output.dat'), 'wb') as f:
            nnef.write_tensor(f, y.astype(np.float32))

        t = time.time()
        stats = os.path.join(work, name + '.stats.json')
        z, error = nnef_tools_reference(fp, work, env, log, stats)
        times['execute_fp'] = time.time() - t
        if z is None:
            failed.append(name)
            print('%s: nnef_tools.execute failed: %s (log %s)' % (name, error, log))
            continue
        info = {'model': name, 'torchvision': spec.call, 'input_shape': list(x.shape),
                'nnef_tools_vs_torch_rel_l2': rel_l2(z, y), 'output_rms': float(np.sqrt(np.mean(z.astype(np.float64) ** 2))),
                'seconds': times}
        print('%s: float model made (NNEF-Tools vs PyTorch relative L2 %.2e; output rms %.2e; %s)'
              % (name, info['nnef_tools_vs_torch_rel_l2'], info['output_rms'],
                 ', '.join('%s %.0f s' % kv for kv in times.items())))
        if not args.no_int8:
            t = time.time()
            try:
                summary = quantize.quantize_model(fp, q8, stats)
            except quantize.QuantizeError as e:
                failed.append(name)
                print('%s: quantization failed: %s' % (name, e))
                continue
            times['quantize'] = time.time() - t
            q8ref = os.path.join(q8, 'reference')
            os.makedirs(q8ref, exist_ok=True)
            subprocess.run(['cp', os.path.join(ref, 'input.dat'), os.path.join(q8ref, 'input.dat')])
            t = time.time()
            z8, error = nnef_tools_reference(q8, work, env, log)
            times['execute_int8'] = time.time() - t
            if z8 is None:
                failed.append(name)
                print('%s: nnef_tools.execute of the int8 model failed: %s (log %s)' % (name, error, log))
                continue
            summary['int8_vs_float_rel_l2'] = rel_l2(z8, z)
            info['int8'] = summary
            with open(os.path.join(q8ref, 'generate.json'), 'w') as f:
                json.dump(summary, f, indent=1)
            print('%s_int8: made (%d filters int8, %d activations quantized; vs float relative L2 %.2e)'
                  % (name, summary['filters'], summary['activations'], summary['int8_vs_float_rel_l2']))
        with open(os.path.join(ref, 'generate.json'), 'w') as f:
            json.dump(info, f, indent=1)
        sys.stdout.flush()
    if failed:
        print('failed: %s' % ', '.join(failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
