"""The value types of the package: Graph, Tensor, Operation (namedtuples, as NNEF-Tools' `nnef`
defines them), Identifier (a str naming a tensor) and Error."""
from collections import OrderedDict, namedtuple

from . import _nnef


class Identifier(str):
    """A tensor name in an operation's arguments or results (a `str` subclass), as opposed to a
    string literal, which is a plain `str`."""
    __slots__ = ()

    def __repr__(self):
        return 'Identifier(' + str.__repr__(self) + ')'


Error = _nnef.Error
Error.__module__ = 'nnef'
Error.__doc__ = ("An NNEF document, tensor file or model that the library refuses, or a failed run or lowering. "
                 "str(error) is the diagnostic text: 'path:line:col: error[stage]: message', the source line, a "
                 "caret, notes.")

Graph = namedtuple('Graph', ['name', 'tensors', 'operations', 'inputs', 'outputs'])
Graph.__doc__ = ("A flat NNEF graph: name (str), tensors (dict name -> Tensor), operations (list of Operation in "
                 "topological order), inputs and outputs (lists of tensor names).")
Tensor = namedtuple('Tensor', ['name', 'dtype', 'shape', 'data', 'quantization'])
Tensor.__new__.__defaults__ = (None, None, None)
Tensor.__doc__ = ("A tensor: name, dtype ('scalar', 'integer', 'logical'), shape (list of int, None if unknown), "
                  "data (numpy array for variables with loaded data, else None), quantization (dict: 'op-name' "
                  "and the arguments of its graph.quant entry; empty if none).")
Operation = namedtuple('Operation', ['name', 'attribs', 'inputs', 'outputs', 'dtype'])
Operation.__new__.__defaults__ = (None,)
Operation.__doc__ = ("An operation: name, attribs, inputs, outputs (OrderedDicts in declaration order; tensor "
                     "arguments are Identifiers), dtype (the bound generic type or None).")

for _t in (Graph, Tensor, Operation):
    _t.__module__ = 'nnef'

_nnef._set_types(Identifier, Tensor, Operation, Graph, OrderedDict)
