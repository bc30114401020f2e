"""Printing graphs and invocations as NNEF text (NNEF-Tools' format_* functions)."""
import numbers

from ._types import Identifier


def format_version(version):
    """'version 1.0;' for version (1, 0)."""
    major, minor = version
    return 'version {}.{};'.format(major, minor)


def format_extensions(extensions):
    """One 'extension NAME;' line per item."""
    return '\n'.join('extension {};'.format(name) for name in extensions)


def _quote(text):
    return "'" + text.replace('\\', '\\\\').replace("'", "\\'") + "'"


def format_argument(value):
    """An argument value as NNEF text: Identifier bare, str quoted, bool true/false, numbers,
    list as [..], tuple as (..)."""
    if isinstance(value, Identifier):
        return str(value)
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, bool) or type(value).__name__ == 'bool_':
        return 'true' if value else 'false'
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, list):
        return '[' + ', '.join(format_argument(v) for v in value) + ']'
    if isinstance(value, tuple):
        return '(' + ', '.join(format_argument(v) for v in value) + ')'
    raise TypeError('arguments must be of type int, float, str, nnef.Identifier or list/tuple of such, found: '
                    + str(type(value)))


def format_result(value):
    """A result (Identifier, or list/tuple of them) as NNEF text."""
    if isinstance(value, Identifier):
        return str(value)
    if isinstance(value, list):
        return '[' + ', '.join(format_result(v) for v in value) + ']'
    if isinstance(value, tuple):
        return '(' + ', '.join(format_result(v) for v in value) + ')'
    raise TypeError('results must be of type nnef.Identifier or list/tuple of such, found: ' + str(type(value)))


def format_shapes(result, tensors):
    """The shapes of a result's tensors, as the comment format_graph(annotate_shapes=True) writes."""
    if isinstance(result, Identifier):
        return str(tensors[result].shape)
    if isinstance(result, list):
        return '[' + ', '.join(format_shapes(v, tensors) for v in result) + ']'
    if isinstance(result, tuple):
        return '(' + ', '.join(format_shapes(v, tensors) for v in result) + ')'
    raise TypeError('results must be of type nnef.Identifier or list/tuple of such, found: ' + str(type(result)))


def format_invocation(name, attribs, inputs, outputs=None, dtype=None):
    """'outputs = name<dtype>(inputs, key = value, ...)' (outputs and dtype optional)."""
    head = '' if outputs is None else ', '.join(format_result(o) for o in outputs) + ' = '
    generic = '' if dtype is None else '<' + dtype + '>'
    args = [format_argument(v) for v in inputs]
    args += [key + ' = ' + format_argument(value) for key, value in attribs.items()]
    return head + name + generic + '(' + ', '.join(args) + ')'


def format_graph(name, inputs, outputs, operations, tensors, annotate_shapes=False):
    """The graph definition (without the version line): header, then one line per operation,
    each with its result shapes as a comment when annotate_shapes."""
    lines = ['graph ' + name + '( ' + ', '.join(inputs) + ' ) -> ( ' + ', '.join(outputs) + ' )', '{']
    for op in operations:
        results = list(op.outputs.values())
        line = '\t' + format_invocation(op.name, op.attribs, list(op.inputs.values()), results, op.dtype) + ';'
        if annotate_shapes:
            line += '\t# ' + ', '.join(format_shapes(r, tensors) for r in results)
        lines.append(line)
    lines.append('}')
    return '\n'.join(lines) + '\n'
