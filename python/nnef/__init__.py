"""NNEF for Python on the NNEF toolkit's library.

The same API as NNEF-Tools' `nnef` package (parse_string, parse_file, load_graph, save_graph,
infer_shapes, the format_* printers, read_tensor, write_tensor, Graph, Tensor, Operation,
Identifier, Error, Session, StandardOperations), plus what only this library does: validate,
run (the reference executor, or the TOSA interpreter), to_tosa, to_vpu and draw (pictures). See docs/python.md.
"""
import os
import shutil

from . import _nnef, _options
from ._types import Error, Graph, Identifier, Operation, Tensor
from .binary import read_tensor, write_tensor
from .parser import _load, _lowered, _stdlib, parse_file, parse_string
from .printer import (format_argument, format_extensions, format_graph, format_invocation, format_result,
                      format_shapes, format_version)
from .shapes import _StandardShapeFuncs, infer_shapes
from ._extras import Diagnostic, Validation, draw, run, to_tosa, to_vpu, validate

__version__ = _nnef.version()

#: The names of the standard operations (those with a standard shape function).
StandardOperations = set(_StandardShapeFuncs.keys())

#: The resource limits every loading call takes as keyword arguments.
LIMITS = _options.LIMITS


def load_graph(path, stdlib=None, lowered=None, load_variables=True, **limits):
    """Loads a model: a folder (graph.nnef, optional graph.quant, tensor files), a .tar or .tgz
    archive of one, or a bare graph.nnef file. Returns the Graph with shapes inferred, graph.quant
    applied to the tensors' quantization, and (load_variables) every variable's data as a
    read-only numpy array that views the tensor file's bytes without a copy where the encoding
    allows. Raises nnef.Error with the diagnostics. Keyword arguments: resource limits."""
    _stdlib(stdlib)
    path = os.fspath(path)
    return _load(path, False, path, None, '', _lowered(lowered), limits, load_weights=bool(load_variables))


def save_graph(graph, path, annotate_shapes=False):
    """Writes `graph` as a model folder at `path` (which must not exist): graph.nnef, graph.quant
    when a tensor has a quantization (NNEF-Tools writes none), and one tensor file per variable
    that has data."""
    path = os.fspath(path)
    if os.path.exists(path):
        raise RuntimeError("folder already exists: '{}'".format(path))
    os.makedirs(path)
    try:
        with open(os.path.join(path, 'graph.nnef'), 'w') as f:
            f.write(format_version((1, 0)) + '\n\n')
            f.write(format_graph(graph.name, graph.inputs, graph.outputs, graph.operations, graph.tensors,
                                 annotate_shapes=annotate_shapes))
        quant = _format_quantization(graph.tensors)
        if quant:
            with open(os.path.join(path, 'graph.quant'), 'w') as f:
                f.write(quant)
        for op in graph.operations:
            if op.name != 'variable':
                continue
            tensor = graph.tensors[op.outputs['output']]
            if tensor.data is None:
                continue
            label = op.attribs['label'].lstrip('/')
            target = os.path.normpath(os.path.join(path, label + '.dat'))
            if os.path.commonpath([os.path.abspath(target), os.path.abspath(path)]) != os.path.abspath(path):
                raise Error("variable label '{}' leads outside the model folder".format(op.attribs['label']))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, 'wb') as f:
                write_tensor(f, tensor.data, quantized=bool(tensor.quantization) and tensor.data.dtype.kind in 'iu')
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def _quant_value(value):
    if hasattr(value, 'tolist'):
        value = value.tolist()
    return format_argument(value)


def _format_quantization(tensors):
    """graph.quant text for the tensors that have a quantization (as load_graph gives it)."""
    lines = []
    for name, tensor in tensors.items():
        q = tensor.quantization
        if not q or 'op-name' not in q:
            continue
        args = ', '.join('{} = {}'.format(k, _quant_value(v)) for k, v in q.items() if k != 'op-name')
        lines.append('"{}": {}({});'.format(name, q['op-name'], args))
    return '\n'.join(lines) + '\n' if lines else ''


class Session:
    """A model loaded and ready to run (NNEF-Tools' Session): `Session(path)(*inputs)` feeds the
    graph inputs in order, runs one cycle with the reference executor and returns the outputs
    as a tuple of numpy arrays. Variables keep their values between calls (spec 2.4)."""

    def __init__(self, path, stdlib=None, lowered=None, **limits):
        _stdlib(stdlib)
        path = os.fspath(path)
        self._runner = _nnef.Runner(path, 'nnef', _options.options(limits, expand=_lowered(lowered)), {})

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self._runner = None

    def __call__(self, *inputs):
        if self._runner is None:
            raise Error('the session is closed')
        names = self._runner.inputs
        if len(inputs) != len(names):
            raise Error('expected {} inputs ({}), got {}'.format(len(names), ', '.join(names), len(inputs)))
        outputs = self._runner.outputs
        values = self._runner.run(dict(zip(names, inputs)), outputs)
        return tuple(values[n] for n in outputs)


__all__ = ['Diagnostic', 'Error', 'Graph', 'Identifier', 'LIMITS', 'Operation', 'Session', 'StandardOperations',
           'Tensor', 'Validation', 'draw', 'format_argument', 'format_extensions', 'format_graph', 'format_invocation',
           'format_result', 'format_shapes', 'format_version', 'infer_shapes', 'load_graph', 'parse_file',
           'parse_string', 'read_tensor', 'run', 'save_graph', 'to_tosa', 'to_vpu', 'validate', 'write_tensor']
