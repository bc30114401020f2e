#!/usr/bin/python3
"""Folds the shape computations of an ONNX model whose input shapes are static.

torch 1.13 exports `x.shape`-driven code (ViT's class token and attention heads, Swin's windows)
as Shape -> Gather/Concat/... -> Reshape computations; NNEF-Tools' converter refuses their
results as dynamic shapes, and its --fold-constants needs onnxsim, which Debian does not package.
This replaces every Shape of a tensor whose shape ONNX's shape inference knows by a constant and
evaluates (numpy) the operations of the list below whose inputs are all constant, until nothing
changes; the folded values become initializers. The function is unchanged.

usage: fold_shapes.py IN.onnx OUT.onnx
"""
import sys

import numpy as np

FOLDABLE = {'Shape', 'Gather', 'Unsqueeze', 'Squeeze', 'Concat', 'Slice', 'Cast', 'Add', 'Sub', 'Mul', 'Div',
            'Equal', 'Where', 'ConstantOfShape', 'Expand', 'Reshape', 'Range', 'Mod', 'Neg', 'Identity', 'Floor',
            'Less', 'Greater', 'Not', 'And', 'Or', 'Max', 'Min', 'Transpose', 'ScatterND'}


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _evaluate(node, ins, shapes):
    """The outputs of node on constant inputs ins (numpy), or None when it cannot be folded."""
    from onnx import numpy_helper
    from onnx.mapping import TENSOR_TYPE_TO_NP_TYPE
    op, a = node.op_type, _attrs(node)
    if op == 'Shape':
        shape = list(ins[0].shape) if ins[0] is not None else shapes.get(node.input[0])
        return [np.array(shape, np.int64)] if shape is not None else None
    if any(x is None for x in ins):
        return None
    if op == 'Gather':
        return [np.take(ins[0], ins[1], axis=a.get('axis', 0))]
    if op == 'Unsqueeze':
        out = ins[0]
        axes = sorted(int(v) % (out.ndim + len(ins[1])) for v in ins[1])
        for ax in axes:
            out = np.expand_dims(out, ax)
        return [out]
    if op == 'Squeeze':
        return [np.squeeze(ins[0], axis=tuple(int(v) for v in ins[1])) if len(ins) > 1 else np.squeeze(ins[0])]
    if op == 'Concat':
        return [np.concatenate(ins, axis=a['axis'])]
    if op == 'Slice':
        x, starts, ends = ins[0], ins[1], ins[2]
        axes = ins[3] if len(ins) > 3 else range(len(starts))
        steps = ins[4] if len(ins) > 4 else [1] * len(starts)
        index = [slice(None)] * x.ndim
        for s, e, ax, st in zip(starts, ends, axes, steps):
            index[int(ax)] = slice(int(s), int(e), int(st))
        return [x[tuple(index)]]
    if op == 'Cast':
        return [ins[0].astype(TENSOR_TYPE_TO_NP_TYPE[a['to']])]
    if op in ('Add', 'Sub', 'Mul', 'Max', 'Min', 'Equal', 'Less', 'Greater', 'And', 'Or'):
        f = {'Add': np.add, 'Sub': np.subtract, 'Mul': np.multiply, 'Max': np.maximum, 'Min': np.minimum,
             'Equal': np.equal, 'Less': np.less, 'Greater': np.greater, 'And': np.logical_and, 'Or': np.logical_or}[op]
        return [f(ins[0], ins[1]).astype(ins[0].dtype if op in ('Add', 'Sub', 'Mul', 'Max', 'Min') else bool)]
    if op == 'Div':
        if np.issubdtype(ins[0].dtype, np.integer):
            return [(np.trunc(ins[0] / ins[1])).astype(ins[0].dtype)]
        return [ins[0] / ins[1]]
    if op == 'Mod':
        return [np.mod(ins[0], ins[1])]
    if op in ('Neg', 'Identity', 'Floor', 'Not'):
        return [{'Neg': np.negative, 'Identity': np.copy, 'Floor': np.floor, 'Not': np.logical_not}[op](ins[0])]
    if op == 'Where':
        return [np.where(ins[0], ins[1], ins[2])]
    if op == 'ConstantOfShape':
        value = numpy_helper.to_array(a['value']) if 'value' in a else np.zeros(1, np.float32)
        return [np.full(tuple(int(d) for d in ins[0]), value.reshape(-1)[0], value.dtype)]
    if op == 'Expand':
        return [ins[0] * np.ones(tuple(int(d) for d in ins[1]), ins[0].dtype)]
    if op == 'Reshape':
        shape = [int(d) if int(d) != 0 else ins[0].shape[i] for i, d in enumerate(ins[1])]
        return [ins[0].reshape(shape)]
    if op == 'Range':
        return [np.arange(ins[0], ins[1], ins[2]).astype(ins[0].dtype)]
    if op == 'ScatterND':  # Swin's attention mask, built by assignments into a constant
        data, indices, updates = ins
        out = data.copy()
        k = indices.shape[-1]
        for index, update in zip(indices.reshape(-1, k), updates.reshape((-1,) + data.shape[k:])):
            out[tuple(int(i) for i in index)] = update
        return [out]
    if op == 'Transpose':
        return [np.transpose(ins[0], a.get('perm'))]
    return None


def fold(model):
    """Folds model in place; the number of nodes removed."""
    from onnx import numpy_helper, shape_inference
    removed = 0
    while True:
        inferred = shape_inference.infer_shapes(model)
        shapes = {}
        for vi in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
            if not vi.type.tensor_type.HasField('shape'):
                continue  # rank unknown
            dims = vi.type.tensor_type.shape.dim
            if all(d.HasField('dim_value') for d in dims):
                shapes[vi.name] = [d.dim_value for d in dims]
        consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        for node in model.graph.node:
            if node.op_type == 'Constant' and 'value' in _attrs(node):
                consts[node.output[0]] = numpy_helper.to_array(_attrs(node)['value'])
        kept, folded = [], 0
        for node in model.graph.node:
            if node.op_type in FOLDABLE and node.op_type != 'Constant':
                try:
                    outs = _evaluate(node, [consts.get(i) if i else None for i in node.input], shapes)
                except (ValueError, IndexError, TypeError) as e:
                    raise ValueError('%s node %s: %s' % (node.op_type, node.name, e))
                if outs is not None:
                    for name, value in zip(node.output, outs):
                        consts[name] = np.asarray(value)
                        model.graph.initializer.append(numpy_helper.from_array(np.asarray(value), name))
                    folded += 1
                    continue
            kept.append(node)
        if not folded:
            break
        removed += folded
        del model.graph.node[:]
        model.graph.node.extend(kept)
        # initializers and Constant nodes nothing reads any more
        used = {i for n in model.graph.node for i in n.input} | {o.name for o in model.graph.output}
        inits = [t for t in model.graph.initializer if t.name in used]
        del model.graph.initializer[:]
        model.graph.initializer.extend(inits)
        nodes = [n for n in model.graph.node if n.op_type != 'Constant' or n.output[0] in used]
        del model.graph.node[:]
        model.graph.node.extend(nodes)
    return removed


def clamp_slice_ends(model):
    """Writes the constant ends of Slice nodes beyond their axis (torch's INT64_MAX for `x[a:]`)
    as the axis's extent: NNEF-Tools writes them as 2147483647, which NNEF's slice does not take
    (ends in (-extent, extent]). The same function; the number of Slice nodes changed."""
    from onnx import numpy_helper, shape_inference
    inferred = shape_inference.infer_shapes(model)
    shapes = {}
    for vi in list(inferred.graph.value_info) + list(inferred.graph.input):
        if vi.type.tensor_type.HasField('shape') and all(d.HasField('dim_value') for d in vi.type.tensor_type.shape.dim):
            shapes[vi.name] = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type == 'Constant' and 'value' in _attrs(node):
            inits[node.output[0]] = numpy_helper.to_array(_attrs(node)['value'])
    changed = 0
    for node in model.graph.node:
        if node.op_type != 'Slice' or len(node.input) < 4 or node.input[0] not in shapes:
            continue
        ends, axes = inits.get(node.input[2]), inits.get(node.input[3])
        if ends is None or axes is None:
            continue
        shape = shapes[node.input[0]]
        clamped = np.array([min(int(e), shape[int(a)]) for e, a in zip(ends, axes)], ends.dtype)
        if not np.array_equal(clamped, ends):
            name = (node.name or node.output[0]) + '_ends'
            model.graph.initializer.append(numpy_helper.from_array(clamped, name))
            node.input[2] = name
            changed += 1
    return changed


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    import onnx
    model = onnx.load(sys.argv[1])
    print('%d nodes folded' % fold(model))
    onnx.save(model, sys.argv[2])
    return 0


if __name__ == '__main__':
    sys.exit(main())
