"""What the library does beyond NNEF-Tools' package: validate, run, to_tosa, to_vpu, draw."""
import json
import os
import shutil
import tempfile
from collections import namedtuple

import numpy as np

from . import _nnef, _options
from ._types import Error

Diagnostic = namedtuple('Diagnostic', ['severity', 'stage', 'code', 'message', 'file', 'line', 'column',
                                       'byte_offset', 'notes', 'text'])
Diagnostic.__doc__ = ("One diagnostic: severity ('error', 'warning', 'note'), stage ('syntax', 'semantic', 'shape', "
                      "'data', 'io', ...), code (stable, kebab-case), message, file, line and column (1-based; "
                      "None when not in a text), byte_offset (binary files), notes (list of (message, file, line, "
                      "column)), text (the rendered form with source line and caret).")
Validation = namedtuple('Validation', ['ok', 'diagnostics', 'summary', 'truncated'])
Validation.__doc__ = ("The outcome of nnef.validate: ok (no error), diagnostics (list of Diagnostic), summary (dict: "
                      "name, operations, tensors, inputs, outputs, weights (whether the tensor files were checked: 'weights not checked' for a model stored graph-only, as nnef-validate says); empty after an error), truncated (the max_errors "
                      "limit was reached).")


def _location(obj):
    loc = obj.get('location') or {}
    file = obj.get('file', loc.get('file'))
    return file, loc.get('line', obj.get('line')), loc.get('column', obj.get('column'))


def validate(model=None, text=None, name='input', **limits):
    """Checks a model (a path: folder, .tar, .tgz or graph.nnef; or a document given as text=)
    through every stage (syntax, semantics, shapes, tensor data, graph.quant) without keeping the
    operations, and returns a Validation with every diagnostic as a structured Diagnostic. Never
    raises for invalid input."""
    if (model is None) == (text is None):
        raise TypeError('validate takes a model path or text=, not both')
    source = os.fspath(model) if model is not None else text
    ok, json_items, rendered, summary, truncated = _nnef.validate(source, text is not None,
                                                                  name if text is not None else source,
                                                                  _options.options(limits))
    diagnostics = []
    for item, txt in zip(json_items, rendered):
        obj = json.loads(item)
        file, line, column = _location(obj)
        notes = [(n.get('message'),) + _location(n) for n in obj.get('notes', [])]
        diagnostics.append(Diagnostic(obj['severity'], obj['stage'], obj['code'], obj['message'], file, line, column,
                                      obj.get('byte_offset'), notes, txt.rstrip('\n')))
    return Validation(ok, diagnostics, dict(summary), truncated)


def run(model, inputs=None, via='nnef', outputs=None, random_weights=None, quantization=True, quant_like='spec',
        threads=2, cycles=1, profile=None, bias_grid=None, **limits):
    """Runs a model (a path) with the reference executor (via='nnef', as nnef-run does), lowered
    to TOSA and run by the TOSA interpreter (via='tosa', as nnef-run --via tosa), or exported as an
    NNAPI 1.0 model and run by the NNAPI reference interpreter (via='nnapi', as nnef-run --via
    nnapi; inputs and outputs stay NNEF's: NCHW, reals). `inputs` maps
    graph input names to numpy arrays (or is a sequence in graph input order); `outputs` names the
    tensors to return (default: the graph outputs; intermediate tensors are kept when named).
    random_weights=SEED runs without stored weights; quantization=False runs a quantized model in
    float (nnef-run --no-quant); quant_like='nnef-tools' rounds as NNEF-Tools' interpreter does.
    With cycles > 1 the same inputs are fed that many times (variables carry over). profile and
    bias_grid (via='tosa' only) are to_tosa's. Returns a dict
    name -> numpy array (float32, int64 or bool). Raises nnef.Error."""
    model = os.fspath(model)
    wanted = list(outputs) if outputs is not None else None
    exec_options = {'threads': threads, 'random_weights': random_weights, 'simulate_quantization': bool(quantization),
                    'quant_like': quant_like, 'keep': wanted or [], 'profile': profile, 'bias_grid': bias_grid}
    runner = _nnef.Runner(model, via, _options.options(limits), exec_options)
    if inputs is None:
        inputs = {}
    elif not isinstance(inputs, dict):
        inputs = list(inputs)
        if len(inputs) != len(runner.inputs):
            raise Error('expected {} inputs ({}), got {}'.format(len(runner.inputs), ', '.join(runner.inputs),
                                                                 len(inputs)))
        inputs = dict(zip(runner.inputs, inputs))
    missing = [n for n in runner.inputs if n not in inputs]
    if missing:
        raise Error('no value for graph input(s): ' + ', '.join(missing))
    inputs = {k: np.asarray(v) for k, v in inputs.items()}
    if cycles < 1:
        raise ValueError('cycles must be at least 1')
    result = None
    for _ in range(cycles):
        result = runner.run(inputs, wanted if wanted is not None else runner.outputs)
    return result


def to_tosa(model, profile=None, level='8k', random_weights=None, no_weights=False, bias_grid=None, **limits):
    """Lowers a model (a path) to TOSA 1.0.1 as nnef-to-tosa does and returns the MLIR `tosa`
    dialect text (validated: the profile's data types, the level's limits, every ERROR_IF).
    profile: 'pro-fp' or 'pro-int' (None, as the tools without --profile: 'pro-int' for a quantized
    model, else 'pro-fp'); bias_grid: 'fine' or 'accumulator' (--bias-grid; None: 'fine'); level:
    '8k' or 'none'; no_weights elides large constants. Raises nnef.Error."""
    return _nnef.to_tosa(os.fspath(model), profile, bias_grid, level, random_weights, bool(no_weights),
                         _options.options(limits))


def to_vpu(model, profile=None, target=None, random_weights=None, simulate=False, bias_grid=None, **limits):
    """Compiles a model (a path) for the VPU target (specs/vpu-target.md; `target` a target file, or
    the default target) as nnef-to-vpu does and returns the task list (the JSON document, as a
    dict). profile and bias_grid are to_tosa's. With simulate=True returns (task_list, report): the simulator's timing report as a dict
    (valid, violations, makespan_cycles, makespan_us, lower_bound_cycles, queues, ddr_bytes,
    text). Raises nnef.Error."""
    target = os.fspath(target) if target is not None else None
    text, report = _nnef.to_vpu(os.fspath(model), profile, bias_grid, target, random_weights, bool(simulate),
                                _options.options(limits))
    tasks = json.loads(text)
    return (tasks, report) if simulate else tasks


_DRAW_FORMATS = {'.dot': 'dot', '.gv': 'dot', '.svg': 'svg', '.png': 'png', '.json': 'json', '.html': 'html',
                 '.htm': 'html'}


def draw(model, path, format=None, depth=0, expand=(), expand_all=False, shapes=True, **limits):
    """Draws a model as nnef-draw does (docs/draw.md) and writes the picture to `path`.

    model: a path (folder, .tar, .tgz or graph.nnef), or a Graph (as load_graph returns; saved to a
    temporary folder first). format: 'dot', 'svg', 'png', 'json' (the picture document
    "nnef-draw/1") or 'html' (the page of docs/draw.md, without the lowering); default from the extension of `path`. depth: invocations of compound fragments
    nested less deep are drawn open (0: the graph as written); expand: names of fragments whose
    invocations are drawn open (standard compounds among them are expanded); expand_all: every
    fragment open; shapes=False drops the dtype[shape] labels of the edges.

    An invalid model is drawn as far as it parsed and checked, with the first error marked; the
    picture is written, then nnef.Error is raised with the diagnostics. A model that cannot be read,
    or a picture too large to lay out as svg or png, raises without writing."""
    if isinstance(expand, str):
        expand = [expand]
    if format is None:
        format = _DRAW_FORMATS.get(os.path.splitext(os.fspath(path))[1].lower())
        if format is None:
            raise ValueError('cannot tell the format from the file name {!r}; pass format= (dot, svg, png, json or html)'
                             .format(os.fspath(path)))
    if format not in ('dot', 'svg', 'png', 'json', 'html'):
        raise ValueError("format must be 'dot', 'svg', 'png', 'json' or 'html', not {!r}".format(format))
    if depth < 0:
        raise ValueError('depth must be at least 0')
    folder = None
    if hasattr(model, 'operations') and hasattr(model, 'tensors'):
        from . import save_graph
        folder = tempfile.mkdtemp(prefix='nnef-draw-')
        source = os.path.join(folder, 'model')
        save_graph(model, source)
    else:
        source = os.fspath(model)
    try:
        data, ok, diagnostics = _nnef.draw(source, format, int(depth), list(expand), bool(expand_all), bool(shapes),
                                           _options.options(limits))
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
    with open(path, 'wb') as f:
        f.write(data)
    if not ok:
        raise Error(diagnostics.rstrip('\n'))
