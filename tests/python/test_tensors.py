"""read_tensor and write_tensor on every tensor file of the corpus, and on new arrays."""
import io
import json
import os

import numpy as np
import pytest

import nnef


def _expectations(corpus):
    with open(os.path.join(corpus, 'tensors', 'expect.json')) as f:
        return json.load(f)


def test_corpus_tensor_files(corpus, tmp_path):
    """Every valid file reads and writes back byte for byte (from a path, a binary file and a
    stream); every corrupt one is an nnef.Error naming the file and the byte offset."""
    cases = _expectations(corpus)
    accepted = rejected = 0
    for case in cases:
        path = os.path.join(corpus, 'tensors', case['file'])
        with open(path, 'rb') as f:
            original = f.read()
        if case['expect'] == 'accept':
            for source in (path, open(path, 'rb'), io.BytesIO(original)):
                array, quantized = nnef.read_tensor(source, return_quantization=True)
                assert list(array.shape) == case.get('shape', list(array.shape)), case['file']
                out = io.BytesIO()
                nnef.write_tensor(out, array, quantized=quantized)
                assert out.getvalue() == original, case['file']
            accepted += 1
        else:
            with pytest.raises(nnef.Error) as e:
                nnef.read_tensor(path)
            text = str(e.value)
            assert case['file'] in text, text
            if 'offset' in case:
                assert str(case['offset']) in text, (case['file'], text)
            stream = io.BytesIO(original)
            if len(original) > 128 and len(original) > 128 + int.from_bytes(original[4:8], 'little'):
                # Bytes after the data: a file is refused, a stream is read up to them (the next
                # tensor may follow).
                nnef.read_tensor(stream)
                assert stream.tell() < len(original)
            else:
                with pytest.raises(nnef.Error):
                    nnef.read_tensor(stream)
            rejected += 1
    assert accepted > 10 and rejected > 10


def test_values_match_expectations(corpus):
    for case in _expectations(corpus):
        if case['expect'] != 'accept' or 'first' not in case:
            continue
        array = nnef.read_tensor(os.path.join(corpus, 'tensors', case['file']))
        flat = array.reshape(-1)
        if flat.size:
            first = case['first'][0] if isinstance(case['first'], list) else case['first']
            if isinstance(first, (int, float)) and not isinstance(first, bool):
                assert float(flat[0]) == pytest.approx(float(first), rel=1e-6, abs=1e-6), case['file']


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64', 'int8', 'uint8', 'int16', 'uint16', 'int32',
                                   'uint32', 'int64', 'uint64', 'bool'])
def test_write_read_new_arrays(dtype):
    rng = np.random.default_rng(1)
    array = (rng.standard_normal((2, 3, 5)) * 50).astype(dtype)
    out = io.BytesIO()
    nnef.write_tensor(out, array)
    assert len(out.getvalue()) >= 128
    back = nnef.read_tensor(io.BytesIO(out.getvalue()))
    assert back.dtype == array.dtype and np.array_equal(back, array)


def test_quantized_and_errors():
    codes = np.arange(-8, 8, dtype=np.int8).reshape(4, 4)
    out = io.BytesIO()
    nnef.write_tensor(out, codes, quantized=True)
    back, quantized = nnef.read_tensor(io.BytesIO(out.getvalue()), return_quantization=True)
    assert quantized and np.array_equal(back, codes)
    with pytest.raises(ValueError, match='quantized'):
        nnef.write_tensor(io.BytesIO(), np.zeros(3, np.float32), quantized=True)
    with pytest.raises(ValueError, match='file object'):
        nnef.write_tensor('x.dat', codes)
    with pytest.raises(TypeError):
        nnef.write_tensor(io.BytesIO(), np.zeros(3, np.complex64))
    with pytest.raises(ValueError, match='rank'):
        nnef.write_tensor(io.BytesIO(), np.zeros([1] * 9, np.float32))
    with pytest.raises(nnef.Error, match='ends after'):
        nnef.read_tensor(io.BytesIO(out.getvalue()[:100]))


def test_text_mode_files_and_streams(tmp_path):
    array = np.linspace(0, 1, 12, dtype=np.float32).reshape(3, 4)
    path = tmp_path / 'a.dat'
    with open(path, 'w') as f:  # text mode, as NNEF-Tools' load_graph opens tensor files
        nnef.write_tensor(f, array)
    with open(path) as f:
        assert np.array_equal(nnef.read_tensor(f), array)
    two = io.BytesIO()
    nnef.write_tensor(two, array)
    nnef.write_tensor(two, array * 2)
    two.seek(0)
    assert np.array_equal(nnef.read_tensor(two), array)
    assert np.array_equal(nnef.read_tensor(two), array * 2)


def test_zero_copy_view(tmp_path):
    array = np.arange(1 << 16, dtype=np.float32)
    path = tmp_path / 'big.dat'
    with open(path, 'wb') as f:
        nnef.write_tensor(f, array)
    back = nnef.read_tensor(str(path))
    assert not back.flags.owndata and not back.flags.writeable
    assert np.array_equal(back, array)
    del back  # the mapping goes with the array
