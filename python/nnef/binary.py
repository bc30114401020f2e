"""Tensor files (NNEF spec 5.2): read_tensor and write_tensor, as NNEF-Tools' functions.

read_tensor validates the whole header (every refusal is an nnef.Error naming the file and the
byte offset) and returns the data as a read-only numpy array that views the file's bytes where
the encoding allows (float16/32/64, 8/16/32/64-bit integers; float32 files are memory-mapped).
write_tensor writes an array that read_tensor returned back byte for byte."""
import os
import weakref

import numpy as np

from . import _nnef, _options

# Arrays returned by read_tensor, by id: (weak reference, the tensor as read, its header fields).
_read = {}

_FLOAT, _UINT, _QUINT, _QINT, _INT, _BOOL = 0x00, 0x01, 0x02, 0x03, 0x04, 0x05


def _remember(array, capsule, info):
    key = id(array)

    def forget(_ref, key=key):
        _read.pop(key, None)

    try:
        _read[key] = (weakref.ref(array, forget), capsule, info)
    except TypeError:  # not weakly referenceable: nothing to remember
        pass


def _recalled(array):
    entry = _read.get(id(array))
    if entry is None or entry[0]() is not array:
        return None
    return entry


def _binary(file):
    """The binary stream under a file object (the buffer of a text-mode file)."""
    buffer = getattr(file, 'buffer', None)
    return buffer if buffer is not None else file


def _read_exactly(stream, count, name):
    data = stream.read(count)
    if data is None or len(data) != count:
        raise _nnef.Error('{}: error[data]: file ends after {} of {} bytes'.format(
            name, len(data or b''), count))
    return bytes(data)


def read_tensor(file, return_quantization=False, **limits):
    """Reads a tensor file from a file object (binary or text mode), or a path. Returns the numpy
    array; with return_quantization, (array, quantized) where quantized tells that the file holds
    quantized integer codes (item types 0x02 and 0x03). Raises nnef.Error for invalid files."""
    options = _options.options(limits)
    if isinstance(file, (str, bytes, os.PathLike)):
        array, info, capsule = _nnef.read_tensor_path(os.fsdecode(file), True, options)
    else:
        name = getattr(file, 'name', None)
        stream = _binary(file)
        if isinstance(name, str) and os.path.isfile(name) and stream.seekable() and stream.tell() == 0:
            # A regular file from its start: mapped or read by the library, then the stream moved past it.
            array, info, capsule = _nnef.read_tensor_path(name, True, options)
            stream.seek(128 + info['data_length'], 0)
        else:
            label = name if isinstance(name, str) else '<stream>'
            header = _read_exactly(stream, 128, label)
            length = int.from_bytes(header[4:8], 'little')
            body = _read_exactly(stream, length, label) if header[:2] == b'N\xef' else b''
            array, info, capsule = _nnef.read_tensor_bytes(header + body, label, options)
    _remember(array, capsule, info)
    return (array, info['quantized']) if return_quantization else array


def _split(dtype, quantized):
    kind, size = dtype.kind, dtype.itemsize
    if kind == 'f' and size in (2, 4, 8):
        if quantized:
            raise ValueError("invalid tensor dtype '{}' for quantized tensor".format(dtype))
        return _FLOAT, size * 8
    if kind == 'b':
        if quantized:
            raise ValueError("invalid tensor dtype '{}' for quantized tensor".format(dtype))
        return _BOOL, 1
    if kind == 'i':
        return (_QINT if quantized else _INT), size * 8
    if kind == 'u':
        return (_QUINT if quantized else _UINT), size * 8
    raise TypeError('unsupported tensor dtype: ' + str(dtype))


def write_tensor(file, tensor, quantized=False, version=(1, 0)):
    """Writes a numpy array as a tensor file to a file object (binary or text mode): float16/32/64
    as code 0x00, signed integers as 0x04, unsigned as 0x01, bool as 0x05 with 1 bit; with
    quantized, integers as quantized codes (0x03 signed, 0x02 unsigned). An array that read_tensor
    returned is written back exactly as it was read."""
    if isinstance(file, (str, bytes, os.PathLike)):
        raise ValueError('file parameter must be a file object not a file name')
    entry = _recalled(tensor)
    image = None
    if entry is not None:
        _ref, capsule, info = entry
        if bool(quantized) == info['quantized'] and tuple(version) == tuple(info['version']):
            image = _nnef.encode_read(capsule) if not tensor.flags.writeable else _rewrite(tensor, capsule, info)
    if image is None:
        array = np.ascontiguousarray(tensor)
        item_type, bits = _split(array.dtype, quantized)
        if bits == 1:
            data = np.packbits(array.astype(bool, copy=False).reshape(-1)).tobytes()
        else:
            data = array.astype(array.dtype.newbyteorder('<'), copy=False).tobytes()
        image = _nnef.encode_tensor(tuple(version), list(array.shape), item_type, bits, [], data)
    stream = _binary(file)
    if stream is not file:
        file.flush()
    stream.write(image)


def _rewrite(tensor, capsule, info):
    """The image of a tensor read before whose (writable, decoded) items may have changed: the
    original file when they did not, else the items encoded with the original header."""
    original, _, _ = _nnef.read_tensor_bytes(_nnef.encode_read(capsule), '<memory>', {})
    if np.array_equal(original, tensor):
        return _nnef.encode_read(capsule)
    if info['kind'] in ('linear_quantized', 'log_quantized', 'opaque'):
        return None
    codes = np.asarray(tensor).reshape(-1)
    if info['kind'] in ('int', 'qint') and info['bits'] < 64:
        codes = codes.astype(np.int64) & ((1 << info['bits']) - 1)
    return _nnef.encode_codes(tuple(info['version']), list(info['shape']), info['item_type'], info['bits'],
                              info['params'], codes.astype(np.uint64))
