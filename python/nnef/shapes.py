"""Shape inference in Python (NNEF-Tools' infer_shapes and the standard shape functions behind
StandardOperations), written from the NNEF specification's shape rules.

A shape function takes the shapes of an operation's tensor inputs (lists of int; a list of them
for tensor-array inputs; [] for literals) positionally and its attributes as keywords, and returns
the output shape, or a tuple of shapes for several outputs (a list of shapes for an array
output). infer_shapes calls them for every operation in order; custom operations take theirs
from custom_shapes."""
import numpy as np

from ._graph import LoadedGraph
from ._types import Error, Identifier, Tensor


class _ShapeError(Exception):
    pass


def _need(condition, message, *args):
    if not condition:
        raise _ShapeError(message.format(*args) if args else message)


def _padded(shape, rank):
    """The shape extended with trailing singleton dimensions to `rank` (NNEF broadcasting)."""
    return list(shape) + [1] * (rank - len(shape))


def _broadcast(a, b):
    rank = max(len(a), len(b))
    a, b = _padded(a, rank), _padded(b, rank)
    _need(all(x == y or x == 1 or y == 1 for x, y in zip(a, b)),
          "arguments are not broadcast compatible ({} vs {})", a, b)
    return [y if x == 1 else x for x, y in zip(a, b)]


def _broadcasts_to(small, big):
    return len(small) <= len(big) and all(s == b or s == 1 for s, b in zip(small, big))


def _product(items):
    result = 1
    for item in items:
        result *= item
    return result


def _windows(extents, kernel, padding, stride, dilation, upward):
    """Output extents of a sliding window (upward: the transposed direction); empty padding is
    automatic ('same') padding."""
    stride = stride or [1] * len(extents)
    dilation = dilation or [1] * len(extents)
    if not padding:
        return [e * s if upward else -(-e // s) for e, s in zip(extents, stride)]
    result = []
    for e, k, (front, back), s, d in zip(extents, kernel, padding, stride, dilation):
        reach = (k - 1) * d + 1
        result.append((e - 1) * s + reach - front - back if upward else (e + front + back - reach) // s + 1)
    return result


def _check_window_args(rank, padding, stride, dilation, what='rank'):
    _need(not padding or len(padding) == rank, "expected 'padding' of length {}, found {}", rank, padding)
    _need(not stride or len(stride) == rank, "expected 'stride' of length {}, found {}", rank, stride)
    _need(not dilation or len(dilation) == rank, "expected 'dilation' of length {}, found {}", rank, dilation)
    _need(all(s > 0 for s in stride or []), "'stride' must be positive, found {}", stride)
    _need(all(d > 0 for d in dilation or []), "'dilation' must be positive, found {}", dilation)


def nullary_shape(shape, **_attribs):
    return list(shape)


def unary_shape(arg, **_attribs):
    return list(arg)


def binary_shape(left, right, **_attribs):
    return _broadcast(left, right)


def asymmetric_binary_shape(left, right, **_attribs):
    _need(_broadcasts_to(right, left), "second argument shape ({}) cannot be broadcast to first argument shape ({})",
          right, left)
    return list(left)


def ternary_shape(cond, left, right, **_attribs):
    return _broadcast(cond, _broadcast(left, right))


def pool_shape(input, size, border=None, padding=(), stride=(), dilation=(), output_shape=None, transposed=False,
               **_attribs):
    rank = len(input)
    _need(len(size) == rank, "expected kernel shape of rank {}, found {}", rank, size)
    _check_window_args(rank, padding, stride, dilation)
    if output_shape:
        _need(len(output_shape) == rank, "expected 'output_shape' of length {}, found {}", rank, output_shape)
        _need(all(s > 0 for s in output_shape), "'output_shape' must be positive, found {}", output_shape)
        back = _windows(output_shape, size, padding, stride, dilation, False)
        _need(list(input) == back, "expected input shape {} derived from 'output_shape' is incompatible with "
              "actual input shape {}", back, input)
        return list(output_shape)
    return _windows(input, size, padding, stride, dilation, transposed)


def pool_with_index_shape(input, size, border=None, padding=(), stride=(), dilation=(), **_attribs):
    shape = pool_shape(input, size, border, padding, stride, dilation)
    return shape, list(shape)


def unpool_shape(input, size, border=None, padding=(), stride=(), dilation=(), output_shape=None, **attribs):
    return pool_shape(input, size, border, padding, stride, dilation, output_shape, True)


def sample_shape(input, index, size, border=None, padding=(), stride=(), dilation=(), output_shape=None,
                 transposed=False, **_attribs):
    _need(list(index) == list(input), "'index' shape {} does not match 'input' shape {}", index, input)
    return pool_shape(input, size, border, padding, stride, dilation, output_shape, transposed)


def desample_shape(input, index, size, border=None, padding=(), stride=(), dilation=(), output_shape=None,
                   **_attribs):
    return sample_shape(input, index, size, border, padding, stride, dilation, output_shape, True)


def conv_shape(input, filter, bias=(), border=None, padding=(), stride=(), dilation=(), groups=1, output_shape=None,
               transposed=False, **_attribs):
    rank = len(input)
    _need(rank >= 2, "expected input of rank at least 2, found {}", input)
    _need(len(filter) == rank, "expected filter shape of rank {}, found {}", rank, filter)
    _check_window_args(rank - 2, padding, stride, dilation)
    _need(groups >= 0, "'groups' must be non-negative, found {}", groups)
    if groups == 0:
        groups = output_shape[1] if transposed and output_shape else input[1]
    if transposed:
        _need(filter[0] == input[1], "filter batch ({}) does not match input channels ({})", filter[0], input[1])
    else:
        _need(filter[1] * groups == input[1], "filter channels ({}) times groups ({}) does not match input channels "
              "({})", filter[1], groups, input[1])
    _need(filter[0] % groups == 0, "'groups' ({}) does not divide filter batch ({})", groups, filter[0])
    channels = filter[1] * groups if transposed else filter[0]
    _need(len(bias) <= 2, "expected bias shape of rank at most 2, found {}", bias)
    if len(bias) == 2:
        _need(bias[0] == 1, "'bias' batch dimension must be singular")
    if bias:
        _need(bias[-1] == channels, "'bias' channels ({}) does not match output channels ({})", bias[-1], channels)
    if output_shape:
        _need(len(output_shape) == rank, "expected 'output_shape' of length {}, found {}", rank, output_shape)
        _need(all(s > 0 for s in output_shape), "'output_shape' must be positive, found {}", output_shape)
        _need(output_shape[0] == input[0], "output batch ({}) does not match input batch ({})", output_shape[0],
              input[0])
        _need(output_shape[1] == channels, "output channels ({}) does not match filter ({})", output_shape[1],
              channels)
        back = [input[0], filter[0]] + _windows(output_shape[2:], filter[2:], padding, stride, dilation, False)
        _need(list(input) == back, "expected input shape {} derived from 'output_shape' is incompatible with "
              "actual input shape {}", back, input)
        return list(output_shape)
    return [input[0], channels] + _windows(input[2:], filter[2:], padding, stride, dilation, transposed)


def deconv_shape(input, filter, bias=(), border=None, padding=(), stride=(), dilation=(), groups=1, output_shape=None,
                 **_attribs):
    return conv_shape(input, filter, bias, border, padding, stride, dilation, groups, output_shape, True)


def separable_conv_shape(input, plane_filter, point_filter, bias=(), border=None, padding=(), stride=(),
                         dilation=(), groups=1, output_shape=None, transposed=False, **_attribs):
    _need(all(x == 1 for x in point_filter[2:]), "point-wise filter must be singular in spatial dimensions, found {}",
          point_filter)
    _need(point_filter[1] == plane_filter[0], "channels of the point-wise filter ({}) do not equal the batch of the "
          "plane-wise filter ({})", point_filter[1], plane_filter[0])
    _need(plane_filter[1] == 1, "channel dimension of plane-wise filter must be singular, found {}", plane_filter)
    channels = point_filter[1] if transposed else input[1]
    filter = [point_filter[0], channels] + list(plane_filter[2:])
    return conv_shape(input, filter, bias, border, padding, stride, dilation, groups, output_shape, transposed)


def separable_deconv_shape(input, plane_filter, point_filter, bias=(), border=None, padding=(), stride=(),
                           dilation=(), groups=1, output_shape=None, **_attribs):
    return separable_conv_shape(input, plane_filter, point_filter, bias, border, padding, stride, dilation, groups,
                                output_shape, True)


def _check_axes(axes, rank):
    _need(all(0 <= a < rank for a in axes), "axes must be in range [0,{}), found {}", rank, axes)


def reduce_shape(input, axes, **_attribs):
    _check_axes(axes, len(input))
    return [1 if i in axes else e for i, e in enumerate(input)]


def normalize_shape(input, axes=None, size=None, **_attribs):
    if axes:
        _check_axes(axes, len(input))
    if size:
        _need(len(size) == len(input), "expected 'size' of length {}, found {}", len(input), size)
        _need(all(s >= 1 for s in size), "'size' must be positive, found {}", size)
    return list(input)


def moments_shape(input, axes, **_attribs):
    shape = reduce_shape(input, axes)
    return shape, list(shape)


def batchnorm_shape(input, mean, variance, offset, scale, epsilon=0, **_attribs):
    _need(epsilon >= 0, "'epsilon' must be non-negative, found {}", epsilon)
    for name, shape in (('mean', mean), ('variance', variance), ('offset', offset), ('scale', scale)):
        _need(_broadcasts_to(shape, input), "'{}' shape {} cannot be broadcast to 'input' shape {}", name, shape,
              input)
    return list(input)


def downsample_shape(input, factor, **_attribs):
    _need(len(factor) == len(input) - 2, "expected 'factor' of length {}, found {}", len(input) - 2, factor)
    _need(all(e % f == 0 for e, f in zip(input[2:], factor)), "'factor' {} does not divide spatial input shape {}",
          factor, input[2:])
    return list(input[:2]) + [e // f for e, f in zip(input[2:], factor)]


def upsample_shape(input, factor, **_attribs):
    _need(len(factor) == len(input) - 2, "expected 'factor' of length {}, found {}", len(input) - 2, factor)
    return list(input[:2]) + [e * f for e, f in zip(input[2:], factor)]


def reshape_shape(input, shape, axis_start=0, axis_count=-1, **_attribs):
    rank = len(input)
    _need(all(s >= -1 for s in shape), "items in 'shape' must be >= -1, found {}", shape)
    _need(list(shape).count(-1) <= 1, "at most one item may be -1 in 'shape', found {}", shape)
    _need(0 <= axis_start <= rank, "'axis_start' must be in range [0,{}], found {}", rank, axis_start)
    _need(axis_count >= -1, "'axis_count' must be non-negative or -1, found {}", axis_count)
    end = rank if axis_count == -1 else axis_start + axis_count
    _need(end <= rank, "'axis_start' + 'axis_count' ({}) must be in range [0,{}]", end, rank)
    part = list(input[axis_start:end])
    new = [part[i] if s == 0 and i < len(part) else s for i, s in enumerate(shape)]
    known = _product(s for s in new if s != -1)
    if -1 in new:
        _need(known != 0 and _product(part) % known == 0,
              "volume of 'shape' ({}) does not divide volume of 'input[{}:{}]' ({})", shape, axis_start, end, part)
        new[new.index(-1)] = _product(part) // known
    else:
        _need(known == _product(part), "volume of 'shape' ({}) does not equal volume of 'input[{}:{}]' ({})", shape,
              axis_start, end, part)
    return list(input[:axis_start]) + new + list(input[end:])


def transpose_shape(input, axes, **_attribs):
    _need(sorted(axes) == list(range(len(axes))), "axes must be a permutation of [0..{}], found {}", len(axes) - 1,
          axes)
    _need(len(axes) <= len(input), "'axes' ({}) longer than the rank of the input ({})", axes, len(input))
    return [input[a] for a in axes] + list(input[len(axes):])


def squeeze_shape(input, axes, **_attribs):
    _check_axes(axes, len(input))
    return [e for i, e in enumerate(input) if i not in axes]


def unsqueeze_shape(input, axes, **_attribs):
    _check_axes(axes, len(input) + len(axes))
    result = list(input)
    for a in axes:
        result.insert(a, 1)
    return result


def concat_shape(values, axis, **_attribs):
    _need(len(values) > 0, "'values' must be non-empty")
    first = list(values[0])
    _need(0 <= axis < len(first), "'axis' must be in range [0,{}), found {}", len(first), axis)
    for v in values:
        _need(len(v) == len(first) and all(a == b for i, (a, b) in enumerate(zip(v, first)) if i != axis),
              "shapes of 'values' must be identical for all dimensions other than 'axis' ({}), found {}", axis,
              values)
    first[axis] = sum(v[axis] for v in values)
    return first


def split_shape(value, axis, ratios, **_attribs):
    _need(0 <= axis < len(value), "axis must be in range [0,{}), found {}", len(value), axis)
    _need(all(r > 0 for r in ratios), "'ratios' must be positive, found {}", ratios)
    total = sum(ratios)
    _need(value[axis] % total == 0, "sum of 'ratios' ({}) does not divide input shape along dimension 'axis' ({})",
          total, value[axis])
    unit = value[axis] // total
    return [[unit * r if i == axis else e for i, e in enumerate(value)] for r in ratios]


def stack_shape(values, axis, **_attribs):
    _need(len(values) > 0, "'values' must be non-empty")
    first = list(values[0])
    _need(0 <= axis <= len(first), "'axis' must be in range [0,{}), found {}", len(first) + 1, axis)
    _need(all(list(v) == first for v in values), "shapes of 'values' must be identical, found {}", values)
    return first[:axis] + [len(values)] + first[axis:]


def unstack_shape(value, axis, **_attribs):
    _need(0 <= axis < len(value), "'axis' must be in range [0,{}), found {}", len(value), axis)
    item = list(value[:axis]) + list(value[axis + 1:])
    return [list(item) for _ in range(value[axis])]


def slice_shape(input, axes, begin, end, stride=(), **_attribs):
    _need(len(begin) == len(axes), "length of 'begin' ({}) does not equal length of 'axes' ({})", len(begin),
          len(axes))
    _need(len(end) == len(axes), "length of 'end' ({}) does not equal length of 'axes' ({})", len(end), len(axes))
    stride = list(stride) or [1] * len(axes)
    _need(len(stride) == len(axes), "length of 'stride' ({}) does not equal length of 'axes' ({})", len(stride),
          len(axes))
    _check_axes(axes, len(input))
    _need(all(s != 0 for s in stride), "'stride' must be non-zero")
    result = list(input)
    for a, b, e, s in zip(axes, begin, end, stride):
        extent = input[a]
        if s > 0:
            b = max(0, min(extent, b + extent if b < 0 else b))
            e = extent if e == 0 and all(x == 1 for x in stride) else e
            e = max(0, min(extent, e + extent if e < 0 else e))
            result[a] = max(0, -(-(e - b) // s))
        else:
            b = max(-1, min(extent - 1, b + extent if b < 0 else b))
            e = max(-1, min(extent - 1, e + extent if e < -1 else e))
            result[a] = max(0, -(-(b - e) // -s))
    return result


def tile_shape(input, repeats, **_attribs):
    _need(len(repeats) == len(input), "expected 'repeats' of length {}, found {}", len(input), repeats)
    return [e * r for e, r in zip(input, repeats)]


def pad_shape(input, padding, **_attribs):
    _need(len(padding) == len(input), "expected 'padding' of length {}, found {}", len(input), padding)
    return [front + e + back for e, (front, back) in zip(input, padding)]


def gather_shape(input, indices, axis=0, **_attribs):
    _need(0 <= axis < len(input), "'axis' must be in range [0,{}), found {}", len(input), axis)
    return list(input[:axis]) + list(indices) + list(input[axis + 1:])


def matmul_shape(A, B, transposeA=False, transposeB=False, **_attribs):
    _need(len(A) == len(B), "argument rank mismatch ({} vs {})", len(A), len(B))
    _need(len(A) >= 2, "rank of arguments must be at least 2, found {}", len(A))
    m, k = (A[-1], A[-2]) if transposeA else (A[-2], A[-1])
    k2, n = (B[-1], B[-2]) if transposeB else (B[-2], B[-1])
    _need(k == k2, "inner dimensions must agree ({} vs {})", k, k2)
    return _broadcast(A[:-2], B[:-2]) + [m, n]


def linear_shape(input, filter, bias=(), **_attribs):
    _need(len(input) == 2, "rank of input must be 2, found {}", len(input))
    _need(len(filter) == 2, "rank of filter must be 2, found {}", len(filter))
    _need(len(bias) <= 2, "rank of bias must be at most 2, found {}", len(bias))
    _need(input[1] == filter[1], "input channels ({}) does not match filter channels ({})", input[1], filter[1])
    if len(bias) == 2:
        _need(bias[0] == 1, "'bias' batch dimension must be singular")
    if bias:
        _need(bias[-1] == filter[0], "'bias' channels ({}) does not match filter batch ({})", bias[-1], filter[0])
    return [input[0], filter[0]]


def softmax_shape(x, axes=(1,), **_attribs):
    _check_axes(axes, len(x))
    return list(x)


def quantize_shape(input, *params, **attribs):
    for p in params:
        _need(_broadcasts_to(p, input), "'min/max' shape {} cannot be broadcast to 'input' shape {}", p, input)
    bits = attribs.get('bits')
    _need(bits is None or bits > 0, "'bits' must be positive, found {}", bits)
    return list(input)


def roi_shape(input, rois, batch_index, output_size, sampling_rate=None, **_attribs):
    rank = len(input)
    _need(len(output_size) == rank - 2, "expected 'output_size' of length {}, found {}", rank - 2, output_size)
    _need(all(s > 0 for s in output_size), "'output_size' must be positive, found {}", output_size)
    _need(len(rois) == 2 and rois[1] == 4, "'rois' must be of shape [n, 4], found {}", rois)
    _need(len(batch_index) == 1 and batch_index[0] == rois[0],
          "'batch_index' must be of shape [{}], found {}", rois[0], batch_index)
    if sampling_rate:
        _need(len(sampling_rate) == rank - 2, "expected 'sampling_rate' of length {}, found {}", rank - 2,
              sampling_rate)
        _need(all(r > 0 for r in sampling_rate), "'sampling_rate' must be positive, found {}", sampling_rate)
    return [rois[0], input[1]] + list(output_size)


def update_shape(variable, value, **_attribs):
    _need(list(value) == list(variable), "shape of update value {} does not match shape of variable {}", value,
          variable)
    return list(variable)


def copy_n_shape(value, times, **_attribs):
    _need(times > 0, "'times' must be positive, found {}", times)
    return [list(value) for _ in range(times)]


def add_n_shape(values, **_attribs):
    _need(len(values) > 0, "values must be non-empty")
    _need(all(list(v) == list(values[0]) for v in values), "shapes of values must be identical, found {}", values)
    return list(values[0])


_UNARY = ('copy neg not rcp exp log sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh abs sign floor ceil '
          'round sqr sqrt rsqr rsqrt log2 sigmoid relu elu selu gelu silu softabs softplus leaky_relu cast').split()
_BINARY = 'add sub mul div pow min max lt le gt ge eq ne and or'.split()
_REDUCE = 'sum_reduce min_reduce max_reduce mean_reduce argmin_reduce argmax_reduce any_reduce all_reduce'.split()
_NORMALIZE = ('local_response_normalization local_mean_normalization local_variance_normalization '
              'local_contrast_normalization l1_normalization l2_normalization').split()

_StandardShapeFuncs = dict(
    [(n, nullary_shape) for n in ('external', 'variable', 'constant')]
    + [(n, unary_shape) for n in _UNARY]
    + [(n, binary_shape) for n in _BINARY]
    + [(n, reduce_shape) for n in _REDUCE]
    + [(n, normalize_shape) for n in _NORMALIZE]
    + [(n, pool_shape) for n in ('box', 'avg_pool', 'max_pool', 'argmax_pool', 'rms_pool')]
    + [(n, unpool_shape) for n in ('debox', 'max_unpool', 'avg_unpool')]
    + [(n, quantize_shape) for n in ('linear_quantize', 'logarithmic_quantize', 'min_max_linear_quantize',
                                     'zero_point_linear_quantize')]
    + [(n, roi_shape) for n in ('avg_roi_pool', 'max_roi_pool', 'avg_roi_align', 'max_roi_align', 'roi_resample')]
    + [(n, downsample_shape) for n in ('nearest_downsample', 'area_downsample')]
    + [(n, upsample_shape) for n in ('nearest_upsample', 'multilinear_upsample')]
    + [('prelu', asymmetric_binary_shape), ('select', ternary_shape), ('clamp', ternary_shape),
       ('conv', conv_shape), ('deconv', deconv_shape), ('separable_conv', separable_conv_shape),
       ('separable_deconv', separable_deconv_shape), ('sample', sample_shape), ('desample', desample_shape),
       ('max_pool_with_index', pool_with_index_shape), ('moments', moments_shape),
       ('batch_normalization', batchnorm_shape), ('reshape', reshape_shape), ('transpose', transpose_shape),
       ('squeeze', squeeze_shape), ('unsqueeze', unsqueeze_shape), ('stack', stack_shape),
       ('unstack', unstack_shape), ('split', split_shape), ('concat', concat_shape), ('slice', slice_shape),
       ('tile', tile_shape), ('pad', pad_shape), ('gather', gather_shape), ('matmul', matmul_shape),
       ('linear', linear_shape), ('softmax', softmax_shape), ('update', update_shape), ('copy_n', copy_n_shape),
       ('add_n', add_n_shape)])


def _shape_of(graph, value):
    if isinstance(value, Identifier):
        return graph.tensors[value].shape
    if isinstance(value, np.ndarray):
        return list(value.shape)
    if isinstance(value, list):
        return [_shape_of(graph, v) for v in value]
    return []


def _assign(graph, result, shape):
    if isinstance(result, Identifier):
        t = graph.tensors[result]
        if t.shape != shape:
            graph.tensors[result] = Tensor(t.name, t.dtype, shape, t.data, t.quantization)
    elif isinstance(result, (list, tuple)):
        _need(isinstance(shape, list) and len(shape) == len(result),
              "number of shapes ({}) does not match number of outputs ({})",
              len(shape) if isinstance(shape, list) else 1, len(result))
        for r, s in zip(result, shape):
            _assign(graph, r, s)


def _apply(func, input_shapes, attribs, results, name):
    shapes = func(*input_shapes, **attribs)
    if not isinstance(shapes, tuple):
        shapes = (shapes,)
    _need(len(shapes) == len(results), "number of shapes ({}) does not match number of outputs ({})", len(shapes),
          len(results))
    return shapes


def _inferred_by_library(graph, external_shapes):
    """True when the shapes the library inferred as it loaded `graph` are what infer_shapes would
    give: the graph as loaded (neither its tensors nor its operations made, so nothing of it can
    have changed), every operation a standard one (the standard shape functions agree with the
    library's: tests/python holds them to it), and every overridden external shape the one it
    has. Then there is nothing to do, and no Python object to make."""
    library = graph._library() if isinstance(graph, LoadedGraph) else None
    if library is None:
        return False
    if not all(name in _StandardShapeFuncs for name in library.operation_names()):
        return False
    inputs = set(graph.inputs)  # the externals' results (a graph parameter exactly when external)
    for name, shape in external_shapes.items():
        if name in inputs and list(shape) != library.shape(name):
            return False
    return True


def infer_shapes(graph, external_shapes=None, custom_shapes=None):
    """Infers the shape of every tensor of `graph` (in place: graph.tensors gets new Tensor
    tuples) by calling the shape function of each operation in order: the standard ones
    (StandardOperations), or custom_shapes[name] for custom operations. external_shapes
    overrides the shapes of external tensors by name. Raises nnef.Error naming the operation."""
    external_shapes = external_shapes or {}
    custom_shapes = custom_shapes or {}
    if _inferred_by_library(graph, external_shapes):
        return
    tensors = graph.tensors
    standard = _StandardShapeFuncs
    for op in graph.operations:
        func = standard.get(op.name) or custom_shapes.get(op.name)
        if func is None:
            raise Error("shape inference function is not defined for operation '{}'".format(op.name))
        results = list(op.outputs.values())
        try:
            if op.name == 'external' and results[0] in external_shapes:
                override = list(external_shapes[results[0]])
                declared = op.attribs['shape']
                _need(len(override) == len(declared), "overridden external shape rank ({}) does not match original "
                      "rank ({})", len(override), len(declared))
                shapes = (override,)
            else:
                # Tensor arguments are mostly identifiers: their shapes straight from the table.
                inputs = [tensors[v].shape if type(v) is Identifier else _shape_of(graph, v)
                          for v in op.inputs.values()]
                shapes = func(*inputs, **op.attribs)
                if type(shapes) is not tuple:
                    shapes = (shapes,)
                _need(len(shapes) == len(results), "number of shapes ({}) does not match number of outputs ({})",
                      len(shapes), len(results))
            for result, shape in zip(results, shapes):
                if type(result) is Identifier:
                    t = tensors[result]
                    if t.shape != shape:
                        tensors[result] = Tensor(t.name, t.dtype, shape, t.data, t.quantization)
                else:
                    _assign(graph, result, shape)
        except (_ShapeError, AssertionError, TypeError, IndexError, KeyError) as e:
            raise Error("while inferring shape of tensor(s) '{}' (operation '{}'): {}".format(
                ', '.join(str(r) for r in results), op.name, e)) from None


def _infer_op_shapes(op_name, attribs, input_shapes, output_counts, custom_shapes=None):
    """The output shapes of one operation from its input shapes (NNEF-Tools' helper of the same
    name)."""
    func = _StandardShapeFuncs.get(op_name) or (custom_shapes or {}).get(op_name)
    if func is None:
        raise Error("shape inference function is not defined for operation '{}'".format(op_name))
    try:
        shapes = _apply(func, input_shapes, attribs, output_counts, op_name)
        # output_counts: per result, None for a tensor or the item count of a tensor array.
        for count, shape in zip(output_counts, shapes):
            if count is not None:
                _need(isinstance(shape, list) and len(shape) == count and all(isinstance(s, list) for s in shape),
                      "number of shapes does not match number of outputs ({})", count)
        return shapes
    except (_ShapeError, AssertionError, TypeError, IndexError) as e:
        raise Error("while inferring output shape of operation '{}': {}".format(op_name, e)) from None
