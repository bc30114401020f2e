"""Parsing NNEF documents into Graphs (NNEF-Tools' parse_string and parse_file)."""
import os

from . import _nnef, _options
from ._graph import LoadedGraph


def _lowered(lowered):
    if lowered is None:
        return []
    if isinstance(lowered, str) or not all(isinstance(x, str) for x in lowered):
        raise _nnef.Error("parameter 'lowered' must be a list of strings")
    return list(lowered)


def _stdlib(stdlib):
    if stdlib:
        raise _nnef.Error("parameter 'stdlib': a replacement standard library is not supported; the library's own "
                          "stdlib (NNEF 1.0.5 with its later additions) is built in (docs/python.md)")


def _load(source, text, name, quant, quant_name, lowered, limits, **more):
    graph, _warnings, _custom = _nnef.load_graph(source, text, name, quant, quant_name,
                                                 _options.options(limits, expand=lowered, **more))
    return LoadedGraph(graph)


def parse_string(graph_str, quant_str=None, stdlib=None, lowered=None, **limits):
    """Parses an NNEF document given as text (and optionally a graph.quant text) and returns its
    Graph: parsed, type checked, compound fragments expanded unless standard (those named in
    `lowered` are expanded too), and shapes inferred. Tensors have no data. Raises nnef.Error.
    Keyword arguments: resource limits (max_errors, max_nesting, ..., see nnef.LIMITS)."""
    _stdlib(stdlib)
    return _load(graph_str, True, 'input', quant_str, 'quantization', _lowered(lowered), limits)


def parse_file(graph_fn, quant_fn=None, stdlib=None, lowered=None, **limits):
    """Parses the NNEF document in file `graph_fn` (and the quantization file `quant_fn`, if given)
    as parse_string does; diagnostics name the files."""
    _stdlib(stdlib)
    lowered = _lowered(lowered)
    graph_fn = os.fspath(graph_fn)
    try:
        with open(graph_fn, 'rb') as f:
            text = f.read()
        quant = None
        if quant_fn is not None:
            quant_fn = os.fspath(quant_fn)
            with open(quant_fn, 'rb') as f:
                quant = f.read()
    except OSError as e:
        raise _nnef.Error('{}: error[io]: {}'.format(e.filename, e.strerror)) from None
    return _load(text, True, graph_fn, quant, quant_fn or '', lowered, limits)
